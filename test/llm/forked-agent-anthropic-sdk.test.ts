import * as root from 'engram';
import {
  createAnthropicModel,
  createFileTools,
  createOpenAIModel,
  directorySandbox,
  estimateMessagesTokens,
  FILE_TOOL_DEFINITIONS,
  resolveModel,
  runForkedAgent,
  singleFileSandbox,
} from 'engram/llm';
import { scriptedModel } from 'engram/test';
import { describe, expect, it } from 'vitest';
import { fresh, mainConversation, SYSTEM, startServer, text } from './support.js';

describe('public names', () => {
  it('exports the names the issue uses, from engram/llm, engram/test and the root', () => {
    for (const fn of [runForkedAgent, resolveModel, directorySandbox, singleFileSandbox]) {
      expect(typeof fn).toBe('function');
    }
    expect(typeof createAnthropicModel).toBe('function');
    expect(typeof createOpenAIModel).toBe('function');
    expect(typeof createFileTools).toBe('function');
    expect(FILE_TOOL_DEFINITIONS.map((t) => t.name).sort()).toEqual(
      ['edit', 'grep', 'list', 'read', 'write'].sort(),
    );
    const r = root as Record<string, unknown>;
    expect(typeof r.runForkedAgent).toBe('function');
    expect(typeof r.resolveModel).toBe('function');
  });

  it('resolveModel() with nothing configured says no model is available and how to set one', () => {
    const r = resolveModel({ env: {} });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reason).toMatch(/no model/i);
    expect(r.reason).toContain('ANTHROPIC_API_KEY');
    expect(r.reason).toContain('OPENAI_BASE_URL');
  });

  it('one token estimator: characters-based, corrected by a real usage anchor', () => {
    const msgs = mainConversation();
    const estimate = estimateMessagesTokens(msgs);
    expect(estimate).toBeGreaterThan(10);
    expect(estimate).toBeLessThan(200);
    const usage = { inputTokens: 5000, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    const anchored = estimateMessagesTokens(msgs, { messageCount: 3, usage });
    expect(anchored).toBeGreaterThan(5000);
    expect(anchored).toBeLessThan(5000 + estimate);
  });
});

describe('a fork through the real Anthropic SDK', () => {
  it('sends the main request system, tools and messages byte for byte, then only its own', async () => {
    const server = await startServer();
    const model = scriptedModel(server);
    const messages = mainConversation();
    // The main agent's own request.
    await model.generate({ system: SYSTEM, tools: FILE_TOOL_DEFINITIONS, messages });
    const main = server.requests[0]?.body;
    server.push({ text: 'nada a salvar' });
    const result = await runForkedAgent({
      model,
      prefix: { system: SYSTEM, tools: FILE_TOOL_DEFINITIONS, messages },
      prompt: 'Resuma o que vale lembrar.',
      tools: createFileTools(await fresh('mem')),
      canUseTool: directorySandbox(await fresh('mem2')),
      maxTurns: 3,
    });
    expect(result.status).toBe('completed');
    const fork = server.requests[1]?.body;
    expect(JSON.stringify(fork.system)).toBe(JSON.stringify(main.system));
    expect(JSON.stringify(fork.tools)).toBe(JSON.stringify(main.tools));
    const shared = fork.messages.slice(0, main.messages.length);
    expect(JSON.stringify(shared)).toBe(JSON.stringify(main.messages));
    // Only the fork's instruction follows.
    const own = fork.messages.slice(main.messages.length);
    expect(own.length).toBe(1);
    expect(JSON.stringify(own)).toContain('Resuma o que vale lembrar.');
    // The raw body starts the same way too: the shared JSON is a byte prefix up to the messages.
    const rawMain = server.requests[0]?.rawBody ?? '';
    const rawFork = server.requests[1]?.rawBody ?? '';
    const cut = rawMain.indexOf('"messages"');
    expect(cut).toBeGreaterThan(0);
    expect(rawFork.includes(JSON.stringify(main.messages).slice(0, -1))).toBe(true);
    // Cache breakpoints sit on the stable prefix: system, the tool list, the shared messages.
    expect(JSON.stringify(fork.system)).toContain('cache_control');
    expect(fork.tools.at(-1).cache_control).toBeDefined();
    expect(JSON.stringify(shared)).toContain('cache_control');
  });

  it('runForkedAgent({ prefix, prompt, tools, canUseTool, maxTurns }) uses the configured model', async () => {
    const server = await startServer();
    server.push({ text: 'feito' });
    const saved = { ...process.env };
    for (const k of ['ENGRAM_MODEL', 'OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ANTHROPIC_AUTH_TOKEN'])
      delete process.env[k];
    process.env.ANTHROPIC_BASE_URL = server.url;
    process.env.ANTHROPIC_API_KEY = 'sk-ant-env';
    try {
      const result = await runForkedAgent({
        prefix: { system: SYSTEM, tools: FILE_TOOL_DEFINITIONS, messages: mainConversation() },
        prompt: 'Sem modelo explícito.',
        tools: [],
        canUseTool: () => ({ behavior: 'allow' }),
        maxTurns: 2,
      });
      expect(result.status).toBe('completed');
      expect(result.finalText).toBe('feito');
      delete process.env.ANTHROPIC_BASE_URL;
      delete process.env.ANTHROPIC_API_KEY;
      const none = await runForkedAgent({
        prefix: { tools: [], messages: mainConversation() },
        prompt: 'x',
        tools: [],
        canUseTool: () => ({ behavior: 'allow' }),
        maxTurns: 1,
      });
      expect(none.status).toBe('error');
      expect(none.error?.message).toMatch(/no model/i);
    } finally {
      process.env = saved;
    }
  });

  it('a prefix that carries the main reply is kept unchanged too', async () => {
    // The script may be given up front, with bare strings as text replies.
    const server = await startServer(['resposta principal', 'resposta do fork']);
    const model = scriptedModel(server);
    const messages = [...mainConversation(), text('m6', 'assistant', 'Anotado: nada de cron.')];
    await model.generate({ system: SYSTEM, tools: FILE_TOOL_DEFINITIONS, messages });
    const main = server.requests[0]?.body;
    await runForkedAgent({
      model,
      prefix: { system: SYSTEM, tools: FILE_TOOL_DEFINITIONS, messages },
      prompt: 'Extraia.',
      tools: [],
      canUseTool: () => ({ behavior: 'allow' }),
      maxTurns: 1,
    }).then((r) => expect(r.finalText).toBe('resposta do fork'));
    const fork = server.requests[1]?.body;
    expect(JSON.stringify(fork.system)).toBe(JSON.stringify(main.system));
    expect(JSON.stringify(fork.tools)).toBe(JSON.stringify(main.tools));
    expect(JSON.stringify(fork.messages.slice(0, main.messages.length))).toBe(
      JSON.stringify(main.messages),
    );
  });
});
