import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileTools, FILE_TOOL_DEFINITIONS } from '../llm/file-tools.js';
import type { Message, ToolImplementation } from '../llm/types.js';
import { parseIndexEntries, readIndexRaw } from '../memdir/index-file.js';
import { revokeMemory, saveMemory } from '../memdir/memory-file.js';
import { createMemoryToolHandlers, MemoryToolError } from '../memdir/memory-tool/handler.js';
import {
  type ScriptedModelServer,
  scriptedModel,
  startScriptedModelServer,
} from '../testing/index.js';
import { createExtractor } from './extractor.js';
import type { ExtractionContext, ExtractionRun, ExtractorOptions, SavedNotice } from './types.js';

const SYSTEM = 'You are a careful coding agent working in a TypeScript repository.';

const user = (id: string, text: string): Message => ({
  id,
  role: 'user',
  content: [{ type: 'text', text }],
});
const assistant = (id: string, text: string): Message => ({
  id,
  role: 'assistant',
  content: [{ type: 'text', text }],
});
const context = (messages: Message[]): ExtractionContext => ({
  system: SYSTEM,
  tools: FILE_TOOL_DEFINITIONS,
  messages,
});

const MEMORY = `---
name: no try/catch in handlers
description: errors are handled by the middleware; do not wrap handlers in try/catch
type: feedback
---
Do not add try/catch blocks to route handlers.
**Why:** the error middleware logs and maps every error; local catches hide failures.
**How to apply:** in src/routes, let errors propagate.
`;

let server: ScriptedModelServer;
let root: string;
let memoryDir: string;
let runs: ExtractionRun[];
let notices: SavedNotice[];

beforeEach(async () => {
  server = await startScriptedModelServer();
  root = await mkdtemp(join(tmpdir(), 'engram-extract-'));
  memoryDir = join(root, 'memory');
  runs = [];
  notices = [];
});
afterEach(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

function extractor(overrides: Partial<ExtractorOptions> = {}) {
  return createExtractor({
    memoryDir,
    model: scriptedModel(server),
    cwd: root,
    now: () => new Date(2026, 10, 29, 12),
    onRun: (run) => runs.push(run),
    onSaved: (notice) => notices.push(notice),
    ...overrides,
  });
}

/** The text of the fork's instruction: the last message of a recorded request. */
function forkPrompt(index: number): string {
  const messages = server.requests[index]?.body.messages as Array<{ content: unknown }>;
  return JSON.stringify(messages.at(-1)?.content);
}

async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile())
      out[join(e.parentPath, e.name)] = await readFile(join(e.parentPath, e.name), 'utf8');
  }
  return out;
}

describe('mutual exclusion with the main agent', () => {
  it('skips without any model request when the main agent wrote a memory, and moves the cursor past it', async () => {
    const ex = extractor();
    const messages: Message[] = [
      user('u1', 'Never add try/catch in handlers, the middleware handles errors.'),
      {
        id: 'a1',
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: 't1',
            name: 'Write',
            input: { file_path: join(memoryDir, 'x.md'), content: MEMORY },
          },
        ],
      },
      {
        id: 'r1',
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }],
      },
      assistant('a2', 'Saved that as a memory.'),
    ];
    expect(ex.onTurnEnd(context(messages))).toEqual({
      status: 'skipped',
      reason: 'main_agent_wrote',
    });
    expect(await ex.drain()).toBe(true);
    expect(server.requests).toHaveLength(0);
    expect(ex.state().cursor).toBe('a2');
    expect(runs[0]).toMatchObject({
      outcome: 'skipped',
      mainAgentWrote: ['x.md'],
      cursorAfter: 'a2',
    });

    // The next turn starts after the main agent's write: only the two new messages are offered.
    ex.onTurnEnd(context([...messages, user('u3', 'Thanks.'), assistant('a3', 'Sure.')]));
    await ex.drain();
    expect(server.requests).toHaveLength(1);
    expect(forkPrompt(0)).toContain('last ~2 messages');
  });
});

describe('at-least-once cursor', () => {
  it('leaves the cursor after a failed fork, and the next trigger sends those messages again', async () => {
    const ex = extractor();
    server.push({ error: { status: 400, message: 'bad request' } });
    const first = [user('u1', 'Our release freeze starts Thursday.'), assistant('a1', 'Noted.')];
    expect(ex.onTurnEnd(context(first)).status).toBe('started');
    await ex.drain();
    expect(runs[0]).toMatchObject({ outcome: 'failed', reason: 'error', cursorAfter: undefined });
    expect(ex.state().cursor).toBeUndefined();

    server.push({ text: 'Nothing to save.' });
    ex.onTurnEnd(context([...first, user('u2', 'Go on.'), assistant('a2', 'Done.')]));
    await ex.drain();
    expect(server.requests).toHaveLength(2);
    const resent = JSON.stringify(server.requests[1]?.body.messages);
    expect(resent).toContain('Our release freeze starts Thursday.');
    expect(forkPrompt(1)).toContain('last ~4 messages');
    expect(runs[1]).toMatchObject({ outcome: 'nothing_saved', cursorAfter: 'a2' });
  });
});

describe('coalescing', () => {
  it('turns three triggers during one slow run into exactly one trailing run over the new messages', async () => {
    const ex = extractor();
    server.push({ delayMs: 300, text: 'Nothing to save.' }, { text: 'Nothing either.' });
    const history = [user('u1', 'one'), assistant('a1', 'one')];
    expect(ex.onTurnEnd(context(history)).status).toBe('started');
    for (const n of [2, 3, 4]) {
      history.push(user(`u${n}`, `turn ${n}`), assistant(`a${n}`, `reply ${n}`));
      expect(ex.onTurnEnd(context([...history])).status).toBe('queued');
    }
    expect(ex.state()).toMatchObject({ inProgress: true, hasPending: true });
    expect(await ex.drain()).toBe(true);
    expect(server.requests).toHaveLength(2);
    expect(runs.map((r) => [r.trailing, r.cursorBefore, r.cursorAfter, r.newMessageCount])).toEqual(
      [
        [false, undefined, 'a1', 2],
        [true, 'a1', 'a4', 6],
      ],
    );
    expect(forkPrompt(1)).toContain('last ~6 messages');
    expect(ex.state()).toMatchObject({ inProgress: false, hasPending: false, cursor: 'a4' });
  });
});

describe('the fork request', () => {
  it('carries the manifest and reuses the main conversation prefix byte for byte', async () => {
    await saveMemory(memoryDir, {
      name: 'no try/catch in handlers',
      description: 'errors are handled by the middleware',
      type: 'feedback',
      body: 'Rule.\n**Why:** middleware.\n**How to apply:** routes.',
      file: 'no-try-catch.md',
    });
    await saveMemory(memoryDir, {
      name: 'use npm',
      description: 'the project uses npm',
      type: 'project',
      body: 'npm.\n**Why:** x.\n**How to apply:** y.',
      file: 'use-npm.md',
    });
    await revokeMemory(memoryDir, 'use-npm.md', { reason: 'moved to pnpm' });
    const model = scriptedModel(server);
    const messages = [user('u1', 'Please rename the helper to parseConfig.')];
    // The main agent's own request, as the host sent it.
    server.push({ text: 'Renamed.' });
    const reply = await model.generate({ system: SYSTEM, tools: FILE_TOOL_DEFINITIONS, messages });
    const ex = extractor({ model });
    server.push({ text: 'Nothing worth saving.' });
    ex.onTurnEnd(context([...messages, { ...reply.message, id: 'a1' }]));
    await ex.drain();

    const [main, fork] = server.requests;
    // System, tools and messages: identical bytes, cache breakpoints included. The main request
    // ended at the user's message, and the fork keeps a breakpoint there.
    expect(JSON.stringify(fork?.body.system)).toBe(JSON.stringify(main?.body.system));
    expect(JSON.stringify(fork?.body.tools)).toBe(JSON.stringify(main?.body.tools));
    const mainMessages = main?.body.messages as unknown[];
    const shared = JSON.stringify(mainMessages).slice(0, -1);
    expect(fork?.rawBody).toContain(
      `"system":${JSON.stringify(main?.body.system)},"tools":${JSON.stringify(main?.body.tools)},"messages":${shared},`,
    );
    expect(fork?.body.messages.slice(0, mainMessages.length)).toEqual(mainMessages);
    // The reply closes the shared part and carries its breakpoint (the last shared message).
    expect(fork?.body.messages[1]).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Renamed.', cache_control: { type: 'ephemeral' } }],
    });

    const prompt = forkPrompt(1);
    expect(prompt).toContain('[feedback] no-try-catch.md');
    expect(prompt).toContain('errors are handled by the middleware');
    expect(prompt).toMatch(/\[project\] use-npm\.md \([^)]+\) \[revoked\]/);
    expect(prompt).toContain('last ~2 messages');
  });

  it('on the OpenAI API, the main request messages (system included) open the fork request unchanged', async () => {
    const model = scriptedModel(server, 'openai');
    const messages = [user('u1', 'Please rename the helper to parseConfig.')];
    server.push({ text: 'Renamed.' });
    const reply = await model.generate({ system: SYSTEM, tools: FILE_TOOL_DEFINITIONS, messages });
    const ex = extractor({ model });
    server.push({ text: 'Nothing worth saving.' });
    ex.onTurnEnd(context([...messages, { ...reply.message, id: 'a1' }]));
    await ex.drain();
    const [main, fork] = server.requests;
    const shared = JSON.stringify(main?.body.messages).slice(0, -1); // without the closing ]
    expect(fork?.rawBody).toContain(`"messages":${shared},`);
    expect(fork?.rawBody).toContain(JSON.stringify(main?.body.tools));
  });
});

describe('sandbox and saving', () => {
  it('refuses writes outside the memory directory and deletes, and nothing outside changes', async () => {
    await saveMemory(memoryDir, {
      name: 'keep me',
      description: 'a memory that must survive',
      type: 'user',
      body: 'Prefers short answers.',
      file: 'keep.md',
    });
    const outsideFile = join(root, 'src.ts');
    await writeFile(outsideFile, 'export const x = 1;\n');
    const before = await snapshot(root);
    // A host whose tool list also has the memory tool and a shell: the fork may call them, the
    // sandbox decides when they execute.
    const deleting: ToolImplementation = {
      definition: { name: 'memory', input_schema: { type: 'object' } },
      async execute(input) {
        await rm(
          join(memoryDir, String((input as { path: string }).path).replace('/memories/', '')),
        );
        return { content: 'deleted' };
      },
    };
    const shell: ToolImplementation = {
      definition: { name: 'Bash', input_schema: { type: 'object' } },
      async execute() {
        await rm(outsideFile);
        return { content: 'ran' };
      },
    };
    const ex = extractor({ tools: [...createFileTools(memoryDir), deleting, shell] });
    server.push(
      {
        toolUse: [
          { name: 'write', input: { path: join(root, 'evil.md'), content: 'x' } },
          { name: 'write', input: { path: '../escape.md', content: 'x' } },
          { name: 'edit', input: { path: outsideFile, old_string: '1', new_string: '2' } },
          { name: 'memory', input: { command: 'delete', path: '/memories/keep.md' } },
          { name: 'Bash', input: { command: `rm ${outsideFile}` } },
        ],
      },
      { text: 'Could not do any of that.' },
    );
    ex.onTurnEnd({
      system: SYSTEM,
      tools: [...FILE_TOOL_DEFINITIONS, deleting.definition, shell.definition],
      messages: [user('u1', 'hello'), assistant('a1', 'hi')],
    });
    await ex.drain();
    expect(runs[0]?.toolCalls.map((c) => c.allowed)).toEqual([false, false, false, false, false]);
    expect(runs[0]?.toolCalls[3]?.result).toMatch(/delet/i);
    expect(await snapshot(root)).toEqual(before);
    expect(runs[0]).toMatchObject({ outcome: 'nothing_saved', saved: [] });
    expect(notices).toEqual([]);
  });

  it.each(['anthropic', 'openai'] as const)(
    'saves in two steps, file then index line, and emits "Saved 1 memory" (%s)',
    async (api) => {
      const ex = extractor({ model: scriptedModel(server, api) });
      server.push(
        { toolUse: [{ name: 'read', input: { path: join(memoryDir, 'MEMORY.md') } }] },
        {
          toolUse: [
            { name: 'write', input: { path: join(memoryDir, 'no-try-catch.md'), content: MEMORY } },
            {
              name: 'write',
              input: {
                path: join(memoryDir, 'MEMORY.md'),
                content:
                  '- [No try/catch in handlers](no-try-catch.md) — middleware handles errors\n',
              },
            },
          ],
        },
        { text: 'Done.' },
      );
      ex.onTurnEnd(
        context([
          user('u1', 'Stop adding try/catch, errors are handled in the middleware.'),
          assistant('a1', 'Understood, I removed them.'),
        ]),
      );
      await ex.drain();
      expect(await readFile(join(memoryDir, 'no-try-catch.md'), 'utf8')).toBe(MEMORY);
      const entries = parseIndexEntries((await readIndexRaw(memoryDir)) ?? '');
      expect(entries.map((e) => e.file)).toEqual(['no-try-catch.md']);
      expect(notices).toEqual([
        {
          text: 'Saved 1 memory: no-try-catch.md',
          files: ['no-try-catch.md'],
          savedTo: [
            { layer: 'project', file: 'no-try-catch.md', path: join(memoryDir, 'no-try-catch.md') },
          ],
        },
      ]);
      expect(runs[0]).toMatchObject({
        outcome: 'saved',
        turns: 3,
        warnings: [],
        cursorAfter: 'a1',
      });
    },
  );

  it('works with a host that brings the Anthropic memory tool: /memories maps onto the directory', async () => {
    const handlers = createMemoryToolHandlers({ memoryDir });
    const memoryTool: ToolImplementation = {
      definition: { name: 'memory', input_schema: { type: 'object' } },
      async execute(input) {
        const command = input as { command: keyof typeof handlers };
        try {
          // biome-ignore lint/suspicious/noExplicitAny: the handler map is keyed by command.
          return { content: await (handlers[command.command] as any)(input) };
        } catch (error) {
          if (error instanceof MemoryToolError) return { content: error.message, isError: true };
          throw error;
        }
      },
    };
    const ex = extractor({ tools: [memoryTool] });
    server.push(
      {
        toolUse: [
          {
            name: 'memory',
            input: { command: 'create', path: '/memories/no-try-catch.md', file_text: MEMORY },
          },
          {
            name: 'memory',
            input: { command: 'create', path: '/memories/../escape.md', file_text: 'x' },
          },
        ],
      },
      { text: 'Done.' },
    );
    ex.onTurnEnd({
      system: SYSTEM,
      tools: [memoryTool.definition],
      messages: [user('u1', 'Stop adding try/catch.'), assistant('a1', 'OK.')],
    });
    await ex.drain();
    expect(runs[0]?.toolCalls.map((c) => [c.allowed, c.isError])).toEqual([
      [true, false],
      [false, true],
    ]);
    expect(await readFile(join(memoryDir, 'no-try-catch.md'), 'utf8')).toBe(MEMORY);
    expect(notices.map((n) => n.text)).toEqual(['Saved 1 memory: no-try-catch.md']);
    expect(forkPrompt(0)).toContain('stands for this directory');
    // The memory tool keeps MEMORY.md in step itself, so the save is not an orphan.
    expect(runs[0]?.warnings).toEqual([]);
    expect(await readdir(root)).toEqual(['memory']);
  });

  it('saves a user fact through the memory tool as /memories/user/, with its own index line', async () => {
    const userDir = join(root, 'home', 'user', 'memory');
    const ex = extractor({ userDir });
    const definition = { name: 'memory', input_schema: { type: 'object' as const } };
    const fact = MEMORY.replace('type: feedback', 'type: user');
    server.push(
      {
        toolUse: [
          {
            name: 'memory',
            input: { command: 'create', path: '/memories/user/no-try-catch.md', file_text: fact },
          },
          {
            name: 'memory',
            input: { command: 'create', path: '/memories/user/../../escape.md', file_text: 'x' },
          },
        ],
      },
      { text: 'Done.' },
    );
    ex.onTurnEnd({
      system: SYSTEM,
      tools: [definition],
      messages: [user('u1', 'I never want try/catch, anywhere.'), assistant('a1', 'OK.')],
    });
    await ex.drain();
    expect(runs[0]?.toolCalls.map((c) => c.allowed)).toEqual([true, false]);
    expect(await readFile(join(userDir, 'no-try-catch.md'), 'utf8')).toBe(fact);
    const entries = parseIndexEntries((await readIndexRaw(userDir)) ?? '');
    expect(entries.map((e) => e.file)).toEqual(['no-try-catch.md']);
    expect(runs[0]?.savedTo).toEqual([
      { layer: 'user', file: 'no-try-catch.md', path: join(userDir, 'no-try-catch.md') },
    ]);
    expect(runs[0]?.warnings).toEqual([]);
    expect(forkPrompt(0)).toContain('/memories/user');
    await expect(readdir(memoryDir)).resolves.not.toContain('no-try-catch.md');
    expect(await readdir(join(root, 'home'))).toEqual(['user']);
  });

  it("acts through Claude Code's tool names and the memory tool without host executors", async () => {
    const claudeTools = ['Read', 'Write', 'Edit', 'memory'].map((name) => ({
      name,
      input_schema: { type: 'object' },
    }));
    const ex = extractor();
    server.push(
      {
        toolUse: [
          {
            name: 'Write',
            input: { file_path: join(memoryDir, 'no-try-catch.md'), content: MEMORY },
          },
          {
            name: 'Write',
            input: {
              file_path: join(memoryDir, 'MEMORY.md'),
              content: '- [No try/catch](no-try-catch.md) — middleware\n',
            },
          },
          {
            name: 'memory',
            input: { command: 'create', path: '/memories/deploys.md', file_text: MEMORY },
          },
          { name: 'Write', input: { file_path: join(root, 'outside.md'), content: 'x' } },
        ],
      },
      { text: 'Done.' },
    );
    ex.onTurnEnd({
      system: SYSTEM,
      tools: claudeTools,
      messages: [user('u1', 'Stop adding try/catch.'), assistant('a1', 'OK.')],
    });
    await ex.drain();
    expect(runs[0]?.toolCalls.map((c) => [c.name, c.allowed, c.isError])).toEqual([
      ['Write', true, false],
      ['Write', true, false],
      ['memory', true, false],
      ['Write', false, true],
    ]);
    expect(notices.map((n) => n.text)).toEqual(['Saved 2 memories: no-try-catch.md, deploys.md']);
    expect(await readFile(join(memoryDir, 'deploys.md'), 'utf8')).toBe(MEMORY);
    expect(await readdir(root)).toEqual(['memory']);
    // The tool list went out exactly as the host sent it.
    expect(server.requests[0]?.body.tools.map((t: { name: string }) => t.name)).toEqual([
      'Read',
      'Write',
      'Edit',
      'memory',
    ]);
  });

  it('reports what a save got wrong: a memory without its index line is an orphan', async () => {
    const ex = extractor();
    server.push(
      { toolUse: [{ name: 'write', input: { path: join(memoryDir, 'a.md'), content: MEMORY } }] },
      { text: 'Done.' },
    );
    ex.onTurnEnd(context([user('u1', 'x'), assistant('a1', 'y')]));
    await ex.drain();
    expect(runs[0]?.notice).toBe('Saved 1 memory: a.md');
    expect(runs[0]?.warnings).toEqual([
      expect.stringContaining('a.md: no line in MEMORY.md points to it'),
    ]);
  });
});

describe('failure modes and lifecycle', () => {
  it('counts a run that hits 5 turns as a failure and keeps the cursor', async () => {
    const ex = extractor();
    for (let i = 0; i < 6; i++)
      server.push({ toolUse: [{ name: 'list', input: { path: memoryDir } }] });
    ex.onTurnEnd(context([user('u1', 'x'), assistant('a1', 'y')]));
    await ex.drain();
    expect(server.requests).toHaveLength(5);
    expect(runs[0]).toMatchObject({
      outcome: 'failed',
      reason: 'max_turns',
      turns: 5,
      cursorAfter: undefined,
    });
    expect(ex.state().cursor).toBeUndefined();
  });

  it('ignores incomplete turns and throttles to every Nth completed turn', async () => {
    const ex = extractor({ everyNTurns: 2 });
    const midTurn: Message = {
      id: 'a0',
      role: 'assistant',
      content: [{ type: 'tool_use', id: 't', name: 'read', input: { path: 'x' } }],
    };
    expect(ex.onTurnEnd(context([user('u0', 'x'), midTurn]))).toEqual({
      status: 'ignored',
      reason: 'turn_not_complete',
    });
    const history = [user('u1', 'a'), assistant('a1', 'b')];
    expect(ex.onTurnEnd(context(history))).toEqual({ status: 'skipped', reason: 'throttled' });
    history.push(user('u2', 'c'), assistant('a2', 'd'));
    expect(ex.onTurnEnd(context(history)).status).toBe('started');
    await ex.drain();
    expect(server.requests).toHaveLength(1);
    expect(forkPrompt(0)).toContain('last ~4 messages');
  });

  it('reports a trailing run that cannot even be decided as failed, never as an unhandled rejection', async () => {
    const ex = extractor();
    server.push({ delayMs: 100, text: 'Nothing.' });
    const history = [user('u1', 'one'), assistant('a1', 'one')];
    ex.onTurnEnd(context(history));
    const broken = { id: 'x', role: 'assistant', content: undefined } as unknown as Message;
    expect(
      ex.onTurnEnd(context([...history, broken, user('u2', 'two'), assistant('a2', 'two')])),
    ).toEqual({ status: 'queued' });
    expect(await ex.drain()).toBe(true);
    expect(runs.map((r) => [r.trailing, r.outcome])).toEqual([
      [false, 'nothing_saved'],
      [true, 'failed'],
    ]);
    expect(ex.state()).toMatchObject({ inProgress: false, cursor: 'a1' });
  });

  it('sends the conversation as it was at the trigger even when the host keeps appending', async () => {
    const ex = extractor();
    const live = [user('u1', 'one'), assistant('a1', 'reply one')];
    ex.onTurnEnd(context(live));
    live.push(user('u2', 'next question typed right away'));
    await ex.drain();
    const sent = server.requests[0]?.body.messages as unknown[];
    expect(sent).toHaveLength(3);
    expect(JSON.stringify(sent)).not.toContain('next question');
    expect(ex.state().cursor).toBe('a1');
  });

  it('keeps state per instance, bounds drain, and abort leaves the cursor', async () => {
    const a = extractor();
    const b = extractor({ memoryDir: join(root, 'other') });
    // Which request arrives first is up to the scheduler, so each answer depends on its request.
    const answer = (req: { rawBody: string }) =>
      req.rawBody.includes('second conversation')
        ? { text: 'fast' }
        : { delayMs: 30_000, text: 'slow' };
    server.push(answer, answer);
    a.onTurnEnd(context([user('u1', 'x'), assistant('a1', 'y')]));
    b.onTurnEnd(context([user('v1', 'second conversation'), assistant('b1', 'y')]));
    expect(await b.drain()).toBe(true);
    expect(b.state()).toMatchObject({ cursor: 'b1', inProgress: false });
    expect(a.state()).toMatchObject({ cursor: undefined, inProgress: true });
    expect(await a.drain(50)).toBe(false);
    a.abort();
    expect(await a.drain()).toBe(true);
    expect(a.state().cursor).toBeUndefined();
    expect(runs.find((r) => r.cursorBefore === undefined && r.outcome === 'failed')?.reason).toBe(
      'aborted',
    );
  });
});
