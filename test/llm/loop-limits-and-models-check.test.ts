import { FILE_TOOL_DEFINITIONS, runForkedAgent } from 'engram/llm';
import { scriptedModel } from 'engram/test';
import { describe, expect, it } from 'vitest';
import { cliEnv } from '../support/cli-process.js';
import {
  abortScenario,
  cli,
  fresh,
  loopScenario,
  mainConversation,
  retryScenario,
  SYSTEM,
  startServer,
} from './support.js';

describe('loop limits, retries, abort', () => {
  it('Anthropic: maxTurns stops a model that keeps calling tools', () => loopScenario('anthropic'));
  it('OpenAI: maxTurns stops a model that keeps calling tools', () => loopScenario('openai'));
  it('Anthropic: 429 then 200 succeeds after one retry; 400 is not retried; 5xx is retryable', () =>
    retryScenario('anthropic'));
  it('OpenAI: 429 then 200 succeeds after one retry; 400 is not retried', () =>
    retryScenario('openai'));
  it('Anthropic: an aborted signal stops within the request in flight', () =>
    abortScenario('anthropic'));
  it('OpenAI: an aborted signal stops within the request in flight', () => abortScenario('openai'));

  it('OpenAI: the fork request starts with the main request messages unchanged', async () => {
    const server = await startServer();
    const model = scriptedModel(server, { api: 'openai', model: 'gemma-local' });
    const messages = mainConversation();
    await model.generate({ system: SYSTEM, tools: FILE_TOOL_DEFINITIONS, messages });
    await runForkedAgent({
      model,
      prefix: { system: SYSTEM, tools: FILE_TOOL_DEFINITIONS, messages },
      prompt: 'Extraia.',
      tools: [],
      canUseTool: () => ({ behavior: 'allow' }),
      maxTurns: 1,
    });
    const main = server.requests[0]?.body;
    const fork = server.requests[1]?.body;
    expect(JSON.stringify(fork.tools)).toBe(JSON.stringify(main.tools));
    expect(JSON.stringify(fork.messages.slice(0, main.messages.length))).toBe(
      JSON.stringify(main.messages),
    );
    expect(fork.messages.length).toBe(main.messages.length + 1);
    expect(server.requests.every((r) => r.api === 'openai' && r.body.model === 'gemma-local')).toBe(
      true,
    );
  });
});

describe('engram models check (child process)', () => {
  it('Anthropic-compatible base URL: one call, prints the model and the usage', async () => {
    const server = await startServer();
    server.push({
      text: 'OK',
      usage: { input_tokens: 21, output_tokens: 3, cache_read_input_tokens: 64 },
    });
    const home = await fresh('home');
    const env = cliEnv(home, {
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: 'sk-ant-acceptance',
      ENGRAM_MODEL: 'anthropic:claude-haiku-4-5',
    });
    const r = await cli(['models', 'check'], env, home);
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests.length).toBe(1);
    expect(server.requests[0]?.api).toBe('anthropic');
    // The SDK sends the key (as x-api-key or as a bearer token, depending on its version).
    const h = server.requests[0]?.headers ?? {};
    expect(`${h['x-api-key']} ${h.authorization}`).toContain('sk-ant-acceptance');
    expect(r.stdout).toContain('claude-haiku-4-5');
    expect(r.stdout).toMatch(/21\b/);
    expect(r.stdout).toMatch(/\b3\b/);
    expect(r.stdout).toMatch(/64 cache read/);
  });

  it('OpenAI-compatible base URL (--json): model and usage as data', async () => {
    const server = await startServer();
    server.push({
      text: 'OK',
      usage: { input_tokens: 17, output_tokens: 2, cache_read_input_tokens: 40 },
    });
    const home = await fresh('home');
    const env = cliEnv(home, {
      OPENAI_BASE_URL: `${server.url}/v1`,
      ENGRAM_MODEL: 'openai:qwen3-local',
    });
    const r = await cli(['models', 'check', '--json'], env, home);
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests[0]?.api).toBe('openai');
    expect(server.requests[0]?.body.model).toBe('qwen3-local');
    const out = JSON.parse(r.stdout);
    expect(out.ok).toBe(true);
    expect(out.model).toBe('qwen3-local');
    expect(out.usage.inputTokens).toBe(17);
    expect(out.usage.outputTokens).toBe(2);
    expect(out.usage.cacheReadTokens).toBe(40);
  });

  it('an OpenAI-compatible base URL alone is enough: the served model is used', async () => {
    const server = await startServer({ models: ['mistral-small-local'] });
    const home = await fresh('home');
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1` });
    const r = await cli(['models', 'check'], env, home);
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests.length).toBe(1);
    expect(server.requests[0]?.body.model).toBe('mistral-small-local');
    expect(r.stdout).toContain('mistral-small-local');
    expect(r.stdout).toMatch(/usage: \d+ input, \d+ output/);
  });

  it('nothing configured: exits non-zero and says how to configure a model', async () => {
    const home = await fresh('home');
    const r = await cli(['models', 'check'], cliEnv(home, {}), home);
    expect(r.code).not.toBe(0);
    expect(`${r.stdout}${r.stderr}`).toMatch(/ANTHROPIC_API_KEY/);
  });

  it('a failing endpoint: exit non-zero with the status', async () => {
    const server = await startServer();
    server.push({ error: { status: 401, message: 'bad key' } });
    const home = await fresh('home');
    const env = cliEnv(home, { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'nope' });
    const r = await cli(['models', 'check', '--json'], env, home);
    expect(r.code).not.toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.ok).toBe(false);
    expect(out.error.status).toBe(401);
    expect(server.requests.length).toBe(1);
  });
});
