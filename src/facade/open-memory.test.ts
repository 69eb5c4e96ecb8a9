import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Message } from '../llm/types.js';
import { saveMemory } from '../memdir/index.js';
import { SYSTEM_PROMPT_HEADINGS as FACADE_HEADINGS } from '../runtime/prompts.js';
import {
  type ScriptedModelServer,
  scriptedModel,
  startScriptedModelServer,
} from '../testing/index.js';
import { type MemoryEvent, openMemory } from './open-memory.js';

let root: string;
let project: string;
let memoryDir: string;
let env: Record<string, string>;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'engram-facade-'));
  project = join(root, 'project');
  memoryDir = join(root, 'memory');
  await mkdir(project, { recursive: true });
  env = { ENGRAM_HOME: join(root, '.engram'), ENGRAM_MANAGED_DIR: join(root, 'managed') };
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const TABS = {
  name: 'Tabs in Go files',
  description: 'the user wants gofmt tabs kept in generated Go files',
  type: 'feedback' as const,
  body: 'Keep gofmt tabs in generated Go files.\n**Why:** spaces broke the linter in CI.\n**How to apply:** every generated .go file.',
};

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

describe('openMemory', () => {
  it('without a cwd works in process.cwd(), as createEngram does; a cwd that is no string is refused', async () => {
    const { execFileSync } = await import('node:child_process');
    execFileSync('git', ['init', '-q', project]);
    const named = await openMemory({ cwd: project, env, homedir: root, instructions: false });
    const here = process.cwd();
    process.chdir(project);
    try {
      const implicit = await openMemory({ env, homedir: root, instructions: false });
      expect(implicit.memoryDir).toBe(named.memoryDir);
      await implicit.close();
    } finally {
      process.chdir(here);
    }
    await named.close();
    await expect(openMemory({ cwd: 42 as unknown as string, env, homedir: root })).rejects.toThrow(
      expect.objectContaining({
        code: 'invalid_input',
        message: 'cwd must be a path string (got number)',
      }),
    );
  });

  it('builds the system prompt once: instructions, guidance, index, same bytes all session', async () => {
    await writeFile(join(project, 'AGENTS.md'), 'Run `make check` before every commit.\n');
    await saveMemory(memoryDir, TABS);
    const memory = await openMemory({ cwd: project, memoryDir, env, homedir: root });
    const first = await memory.systemPrompt();
    expect(first).toContain('Run `make check` before every commit.');
    expect(first).toContain('# Persistent memory');
    expect(first).toContain(FACADE_HEADINGS.index);
    expect(first).toContain('- [Tabs in Go files](tabs-in-go-files.md)');
    const order = ['make check', '# Persistent memory', FACADE_HEADINGS.index].map((s) =>
      first.indexOf(s),
    );
    expect(order).toEqual([...order].sort((a, b) => a - b));
    // A memory saved mid-session does not change the prefix the provider has cached.
    await saveMemory(memoryDir, { ...TABS, name: 'Another one', description: 'another memory' });
    expect(await memory.systemPrompt()).toBe(first);
    await memory.close();
  });

  it('recalls before a turn and hands the injection over exactly once, never waiting', async () => {
    await saveMemory(memoryDir, TABS);
    const events: MemoryEvent[] = [];
    const memory = await openMemory({
      cwd: project,
      memoryDir,
      env,
      homedir: root,
      onEvent: (e) => events.push(e),
    });
    expect(memory.attachments([])).toEqual([]); // no recall started: nothing, at once
    const history: Message[] = [];
    await memory.beforeTurn('generate the Go files for the new API', history);
    const texts = memory.attachments(history);
    expect(texts).toHaveLength(1);
    expect(texts[0]).toContain('Keep gofmt tabs in generated Go files.');
    expect(memory.attachments(history)).toEqual([]);
    expect(events.filter((e) => e.kind === 'recall')).toHaveLength(1);

    // Once in the history, the memory is surfaced: the next turn does not repeat it.
    history.push({
      id: 'u1',
      role: 'user',
      content: [
        { type: 'text', text: 'generate the Go files' },
        { type: 'text', text: texts[0]! },
      ],
    });
    history.push(assistant('a1', 'done'));
    await memory.beforeTurn('regenerate the Go files with tabs again', history);
    expect(memory.attachments(history)).toEqual([]);
    await memory.close();
  });

  it('without a model: no background work, compaction by truncation', async () => {
    const memory = await openMemory({ cwd: project, memoryDir, env, homedir: root });
    const history = Array.from({ length: 30 }, (_, i) =>
      i % 2 === 0
        ? user(`u${i}`, `question ${i} ${'x'.repeat(12_000)}`)
        : assistant(`a${i}`, `answer ${i} ${'y'.repeat(12_000)}`),
    );
    memory.afterTurn(history);
    const compacted = await memory.compact(history);
    expect(compacted.method).toBe('truncation');
    expect(compacted.messages.length).toBeLessThan(history.length);
    await memory.close();
  });

  describe('with a model (scripted server)', () => {
    let server: ScriptedModelServer;
    beforeEach(async () => {
      server = await startScriptedModelServer();
    });
    afterEach(async () => {
      await server.close();
    });

    it('extracts after a turn in the background and close() waits for it', async () => {
      const file = `---\nname: Release on Tuesdays\ndescription: releases ship on Tuesdays only\ntype: project\n---\nReleases ship on Tuesdays.\n**Why:** the ops rota.\n**How to apply:** plan release dates.\n`;
      server.push(
        { toolUse: [{ name: 'write', input: { path: 'release-on-tuesdays.md', content: file } }] },
        {
          toolUse: [
            {
              name: 'write',
              input: {
                path: 'MEMORY.md',
                content:
                  '- [Release on Tuesdays](release-on-tuesdays.md) — releases ship on Tuesdays only\n',
              },
            },
          ],
        },
        { text: 'Saved.' },
      );
      const events: MemoryEvent[] = [];
      const memory = await openMemory({
        cwd: project,
        memoryDir,
        env,
        homedir: root,
        model: scriptedModel(server),
        modelRecall: false,
        sessionNotes: false,
        consolidation: false,
        onEvent: (e) => events.push(e),
      });
      const history = [
        user('u1', 'From now on we only release on Tuesdays.'),
        assistant('a1', 'Understood.'),
      ];
      memory.afterTurn(history);
      await memory.close();
      const saved = events.find((e) => e.kind === 'saved');
      expect(saved?.kind === 'saved' && saved.notice.files).toEqual(['release-on-tuesdays.md']);
      // The fork reused the session's system prompt.
      expect(server.requests[0]!.body.system).toEqual(expect.anything());
      expect(JSON.stringify(server.requests[0]!.body.system)).toContain('# Persistent memory');
    });
  });
});
