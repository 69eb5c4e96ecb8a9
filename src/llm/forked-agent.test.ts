import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ScriptedModelServer,
  scriptedModel,
  startScriptedModelServer,
} from '../testing/index.js';
import { createFileTools, FILE_TOOL_DEFINITIONS } from './file-tools.js';
import { runForkedAgent } from './forked-agent.js';
import { directorySandbox } from './sandbox.js';
import type { ConversationPrefix, ToolImplementation } from './types.js';

const prefix: ConversationPrefix = {
  system: 'You are a careful coding agent.',
  tools: FILE_TOOL_DEFINITIONS,
  messages: [
    { id: 'u1', role: 'user', content: [{ type: 'text', text: 'We deploy with `make ship`.' }] },
    { id: 'a1', role: 'assistant', content: [{ type: 'text', text: 'Noted.' }] },
    { id: 'u2', role: 'user', content: [{ type: 'text', text: 'And tests run with vitest.' }] },
  ],
};

let server: ScriptedModelServer;
let root: string;
beforeEach(async () => {
  server = await startScriptedModelServer();
  root = await mkdtemp(join(tmpdir(), 'engram-fork-'));
});
afterEach(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile())
      out[join(e.parentPath, e.name)] = await readFile(join(e.parentPath, e.name), 'utf8');
  }
  return out;
}

describe('runForkedAgent over the Anthropic SDK', () => {
  it('sends the main request prefix byte for byte, with cache breakpoints on it', async () => {
    const model = scriptedModel(server);
    server.push({ text: 'main answer' });
    await model.generate(prefix);
    const memdir = join(root, 'mem');
    await mkdir(memdir);
    server.push(
      { toolUse: [{ name: 'write', input: { path: 'deploy.md', content: 'make ship' } }] },
      { text: 'saved' },
    );
    const result = await runForkedAgent({
      model,
      prefix,
      prompt: 'Save what is worth remembering.',
      tools: createFileTools(memdir),
      canUseTool: directorySandbox(memdir),
      maxTurns: 4,
    });
    expect(result.status).toBe('completed');
    expect(result.turns).toBe(2);
    expect(result.finalText).toBe('saved');
    expect(await readFile(join(memdir, 'deploy.md'), 'utf8')).toBe('make ship');

    const [main, fork1, fork2] = server.requests;
    // The main body minus its closing "]}" is a byte prefix of every fork body.
    const shared = main!.rawBody.slice(0, -2);
    expect(fork1!.rawBody.startsWith(`${shared},`)).toBe(true);
    expect(fork2!.rawBody.startsWith(`${shared},`)).toBe(true);
    expect(fork1!.body.messages).toHaveLength(4);
    expect(fork1!.body.messages[3]).toEqual({
      role: 'user',
      content: [
        {
          type: 'text',
          text: 'Save what is worth remembering.',
          cache_control: { type: 'ephemeral' },
        },
      ],
    });
    expect(fork2!.body.messages).toHaveLength(6);

    const ephemeral = { type: 'ephemeral' };
    expect(main!.body.system.at(-1).cache_control).toEqual(ephemeral);
    expect(main!.body.tools.at(-1).cache_control).toEqual(ephemeral);
    expect(main!.body.tools[0].cache_control).toBeUndefined();
    expect(main!.body.messages[2].content.at(-1).cache_control).toEqual(ephemeral);
    expect(main!.body.messages[0].content[0].cache_control).toBeUndefined();
    // Fork: system, tools, prefix end, own last message: the API's limit of four.
    expect(fork2!.rawBody.split('"cache_control"').length - 1).toBe(4);
    expect(fork2!.body.messages[5].content.at(-1).cache_control).toEqual(ephemeral);
    expect(fork2!.body.messages[3].content.at(-1).cache_control).toBeUndefined();
    // Our message ids never reach the wire.
    expect(main!.rawBody).not.toContain('"id":"u1"');
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(result.usage.inputTokens).toBe(20);
  });

  it('keeps the main request intact when the prefix ends with the reply to it', async () => {
    const model = scriptedModel(server);
    // The main agent's request, then the same conversation with its reply appended (what a host
    // hands a fork at the end of a turn), sent once more as-is (a prefill-style request).
    server.push({ text: 'main answer' });
    const reply = await model.generate(prefix);
    const withReply: ConversationPrefix = {
      ...prefix,
      messages: [...prefix.messages, { ...reply.message, id: 'a2' }],
    };
    await model.generate(withReply);
    await runForkedAgent({
      model,
      prefix: withReply,
      prompt: 'Save what is worth remembering.',
      tools: [],
      canUseTool: () => ({ behavior: 'allow' }),
      maxTurns: 1,
    });
    const [main, prefill, fork] = server.requests;
    for (const earlier of [main!, prefill!]) {
      expect(fork!.body.system).toEqual(earlier.body.system);
      expect(fork!.body.tools).toEqual(earlier.body.tools);
      const n = earlier.body.messages.length;
      expect(fork!.body.messages.slice(0, n)).toEqual(earlier.body.messages);
      expect(fork!.rawBody.startsWith(earlier.rawBody.slice(0, -2))).toBe(true);
    }
    // Breakpoints: system, tools, where the main request ended (the user's message) and the last
    // shared message (the reply). That is the API's four, so the fork's own instruction has none.
    expect(fork!.body.messages[2].content.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(fork!.body.messages[3].content.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(fork!.body.messages[4].content.at(-1).cache_control).toBeUndefined();
    expect(fork!.rawBody.split('"cache_control"').length - 1).toBe(4);
  });

  it('calls onTurn with each turn and its tool calls', async () => {
    const memdir = join(root, 'mem');
    await mkdir(memdir);
    server.push({ toolUse: [{ name: 'list', input: {} }] }, { text: 'nothing to do' });
    const turns: Array<{ turn: number; n: number }> = [];
    const result = await runForkedAgent({
      model: scriptedModel(server),
      prefix,
      prompt: 'Look around.',
      tools: createFileTools(memdir),
      canUseTool: directorySandbox(memdir),
      maxTurns: 3,
      onTurn: (e) => turns.push({ turn: e.turn, n: e.toolCalls.length }),
    });
    expect(result.status).toBe('completed');
    expect(turns).toEqual([
      { turn: 1, n: 1 },
      { turn: 2, n: 0 },
    ]);
  });

  it('answers tool calls left open at the end of the prefix before its own prompt', async () => {
    const open: ConversationPrefix = {
      ...prefix,
      messages: [
        ...prefix.messages,
        {
          id: 'a2',
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'x' } }],
        },
      ],
    };
    await runForkedAgent({
      model: scriptedModel(server),
      prefix: open,
      prompt: 'Go.',
      tools: [],
      canUseTool: () => ({ behavior: 'allow' }),
      maxTurns: 1,
    });
    const first = server.requests[0]!.body.messages[4];
    expect(first.content[0]).toMatchObject({
      type: 'tool_result',
      tool_use_id: 'toolu_1',
      is_error: true,
    });
    expect(first.content[1]).toMatchObject({ type: 'text', text: 'Go.' });
  });

  it('answers a refused call with the refusal even when no executor exists for it', async () => {
    const memdir = join(root, 'mem');
    await mkdir(memdir);
    server.push(
      {
        toolUse: [
          { name: 'delete', input: { path: 'old.md' } },
          { name: 'Glob', input: { pattern: '*.md' } },
        ],
      },
      { text: 'ok' },
    );
    const result = await runForkedAgent({
      model: scriptedModel(server),
      prefix,
      prompt: 'Tidy up.',
      tools: createFileTools(memdir),
      canUseTool: directorySandbox(memdir),
      maxTurns: 2,
    });
    expect(result.toolCalls.map((c) => [c.allowed, c.result])).toEqual([
      [false, expect.stringMatching(/^Refused: deleting is not allowed.*revoked/)],
      [false, 'Tool "Glob" is not available in this background task.'],
    ]);
  });

  it('rejects a maxTurns that is not a positive integer', async () => {
    await expect(
      runForkedAgent({
        model: scriptedModel(server),
        prefix,
        prompt: 'x',
        tools: [],
        canUseTool: () => ({ behavior: 'allow' }),
        maxTurns: 0,
      }),
    ).rejects.toThrow(/maxTurns/);
  });
});

for (const api of ['anthropic', 'openai'] as const) {
  describe(`forked agent contract via the ${api} provider`, () => {
    it('refuses every escape with an error result, keeps looping, and changes nothing outside', async () => {
      const memdir = join(root, 'mem');
      const outside = join(root, 'outside');
      await mkdir(memdir);
      await mkdir(outside);
      await writeFile(join(outside, 'secret.txt'), 'keep me');
      await writeFile(join(memdir, 'old.md'), 'old memory');
      await symlink(outside, join(memdir, 'link'));
      await symlink(join(outside, 'planted.md'), join(memdir, 'dangling.md'));
      const before = await snapshot(outside);
      // A tool that would really delete, to prove the sandbox (not a missing tool) stops it.
      const deleteTool: ToolImplementation = {
        definition: { name: 'delete', input_schema: { type: 'object' } },
        execute: async (input) => {
          await rm(join(memdir, String((input as { path: string }).path)));
          return { content: 'deleted' };
        },
      };
      const escapes = [
        { name: 'write', input: { path: join(outside, 'abs.md'), content: 'x' } },
        { name: 'write', input: { path: '../outside/dots.md', content: 'x' } },
        { name: 'write', input: { path: 'link/through-link.md', content: 'x' } },
        {
          name: 'edit',
          input: { path: 'link/../../outside/secret.txt', old_string: 'keep', new_string: 'lost' },
        },
        { name: 'write', input: { path: 'dangling.md', content: 'x' } },
        { name: 'delete', input: { path: 'old.md' } },
        { name: 'Bash', input: { command: `rm -rf ${outside}` } },
      ];
      server.push(
        ...escapes.map((e) => ({ toolUse: [e] })),
        { toolUse: [{ name: 'write', input: { path: 'inside.md', content: 'fine' } }] },
        { text: 'done' },
      );
      const result = await runForkedAgent({
        model: scriptedModel(server, api),
        prefix,
        prompt: 'Save memories.',
        tools: [...createFileTools(memdir), deleteTool],
        canUseTool: directorySandbox(memdir),
        maxTurns: 20,
      });
      expect(result.status).toBe('completed');
      expect(result.turns).toBe(escapes.length + 2);
      expect(result.toolCalls.slice(0, escapes.length).every((c) => !c.allowed && c.isError)).toBe(
        true,
      );
      expect(result.toolCalls.at(-1)).toMatchObject({
        name: 'write',
        allowed: true,
        isError: false,
      });
      // Each refusal reached the model as an error result on the following request.
      for (let i = 1; i <= escapes.length; i++) {
        const raw = server.requests[i]!.rawBody;
        expect(raw).toMatch(/Refused/);
      }
      expect(await snapshot(outside)).toEqual(before);
      expect(await readFile(join(memdir, 'old.md'), 'utf8')).toBe('old memory');
      expect(await readFile(join(memdir, 'inside.md'), 'utf8')).toBe('fine');
    });

    it('stops a model that keeps calling tools at maxTurns', async () => {
      await server.close();
      server = await startScriptedModelServer({
        fallback: { toolUse: [{ name: 'list', input: {} }] },
      });
      const result = await runForkedAgent({
        model: scriptedModel(server, api),
        prefix,
        prompt: 'Loop.',
        tools: createFileTools(root),
        canUseTool: directorySandbox(root),
        maxTurns: 3,
      });
      expect(result.status).toBe('max_turns');
      expect(result.turns).toBe(3);
      expect(server.requests).toHaveLength(3);
    });

    it('reports a failing model as status error without throwing', async () => {
      server.push({ error: { status: 400, message: 'bad request' } });
      const result = await runForkedAgent({
        model: scriptedModel(server, api),
        prefix,
        prompt: 'x',
        tools: [],
        canUseTool: () => ({ behavior: 'allow' }),
        maxTurns: 3,
      });
      expect(result.status).toBe('error');
      expect(result.error).toMatchObject({ code: 'model_error', status: 400, isRetryable: false });
      expect(server.requests).toHaveLength(1);
    });

    it('stops within one request when the signal aborts', async () => {
      const controller = new AbortController();
      // The abort lands while the second model call is in flight.
      server.push({ toolUse: [{ name: 'list', input: {} }] }, () => {
        controller.abort();
        return { delayMs: 20_000, text: 'late' };
      });
      const result = await runForkedAgent({
        model: scriptedModel(server, api),
        prefix,
        prompt: 'x',
        tools: createFileTools(root),
        canUseTool: directorySandbox(root),
        maxTurns: 5,
        signal: controller.signal,
      });
      expect(result.status).toBe('aborted');
      expect(result.error?.code).toBe('aborted');
      expect(server.requests).toHaveLength(2);
    });
  });
}
