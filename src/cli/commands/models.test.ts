import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, startScriptedModelServer } from '../../testing/index.js';
import { runCaptured, testIo } from '../test-io.js';

let server: ScriptedModelServer;
beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await server.close();
});

function ioWith(env: Record<string, string>) {
  const io = testIo();
  io.env = { ...io.env, ...env };
  return io;
}

describe('engram models check', () => {
  it('makes one real call and prints the model and usage', async () => {
    server.push({ text: 'OK', usage: { input_tokens: 14, output_tokens: 2 } });
    const io = ioWith({
      ANTHROPIC_API_KEY: 'k',
      ANTHROPIC_BASE_URL: server.anthropicBaseURL,
      ENGRAM_MODEL: 'anthropic:claude-test',
    });
    const run = await runCaptured(['models', 'check'], io);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^model: claude-test \(anthropic:claude-test at http/);
    expect(run.stdout).toMatch(/reply: OK/);
    expect(run.stdout).toMatch(/usage: 14 input, 2 output, 0 cache read, 0 cache write tokens/);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.body).toMatchObject({ model: 'claude-test', max_tokens: 256 });
  });

  it('prints JSON through an OpenAI-compatible base URL without a key', async () => {
    const io = ioWith({ OPENAI_BASE_URL: server.openaiBaseURL, ENGRAM_MODEL: 'openai:llama3.2' });
    const run = await runCaptured(['models', 'check', '--json'], io);
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout);
    expect(json).toMatchObject({
      ok: true,
      configured: true,
      provider: 'openai',
      model: 'llama3.2',
      reply: 'ok',
      stopReason: 'end_turn',
      usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    expect(typeof json.durationMs).toBe('number');
    expect(server.requests[0]!.api).toBe('openai');
  });

  it('exits non-zero with the configuration hint when no model is configured', async () => {
    const io = ioWith({});
    const run = await runCaptured(['models', 'check'], io);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/No model is configured.*ANTHROPIC_API_KEY/s);
    const json = await runCaptured(['models', 'check', '--json'], io);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      configured: false,
      reason: expect.stringMatching(/ENGRAM_MODEL/),
    });
  });

  it('reports a failing model with its status', async () => {
    server.push({ error: { status: 401, message: 'invalid x-api-key' } });
    const io = ioWith({ ANTHROPIC_API_KEY: 'bad', ANTHROPIC_BASE_URL: server.anthropicBaseURL });
    const run = await runCaptured(['models', 'check', '--json'], io);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      ok: false,
      configured: true,
      error: { status: 401, isRetryable: false },
    });
    expect(server.requests).toHaveLength(1);
  });

  it('bounds the whole check by --timeout, retries included, and rejects a bad --timeout', async () => {
    server.push({ error: { status: 503 } }, { delayMs: 20_000, text: 'late' });
    const io = ioWith({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.anthropicBaseURL });
    const run = await runCaptured(['models', 'check', '--timeout', '1500', '--json'], io);
    expect(run.code).toBe(1);
    // The check gave up at its bound instead of waiting for the 20 s answer.
    expect(JSON.parse(run.stdout).error.message).toMatch(/no answer within 1500 ms/);
    for (const bad of ['abc', '0', '-5']) {
      const r = await runCaptured(['models', 'check', '--timeout', bad], io);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--timeout/);
    }
  });
});
