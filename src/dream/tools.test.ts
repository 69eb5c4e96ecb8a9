import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DREAM_SYSTEM_PROMPT, FIND_TOOL_DESCRIPTION } from './prompts.js';
import {
  createDreamTools,
  DREAM_TOOL_DEFINITIONS,
  dreamCanUseTool,
  dreamConfinement,
} from './tools.js';

function find(root: string, readRoots: string[] = []) {
  const tool = createDreamTools(root, dreamConfinement(root, readRoots)).find(
    (t) => t.definition.name === 'find',
  );
  if (!tool) throw new Error('no find tool');
  return (input: unknown) => tool.execute(input, {});
}

describe('dream tools', () => {
  it('sends the model layer file tools plus find, each with a description', () => {
    expect(DREAM_TOOL_DEFINITIONS.map((t) => t.name)).toEqual([
      'read',
      'write',
      'edit',
      'list',
      'grep',
      'find',
    ]);
    expect(FIND_TOOL_DESCRIPTION).toMatch(/^Find files by name/);
    expect(DREAM_SYSTEM_PROMPT).toMatch(/consolidation agent/);
  });

  it('find: glob by name, newest first with times, relative to the memory root or absolute', async () => {
    const root = mkdtempSync(join(tmpdir(), 'engram-find-'));
    const t = join(root, 'transcripts');
    mkdirSync(join(t, 'sub'), { recursive: true });
    for (const [name, hoursAgo] of [
      ['a.jsonl', 3],
      ['b.jsonl', 1],
      ['sub/c.jsonl', 2],
      ['notes.txt', 0],
    ] as const) {
      writeFileSync(join(t, name), '{}');
      const when = new Date(Date.now() - hoursAgo * 3_600_000);
      utimesSync(join(t, name), when, when);
    }
    const run = find(root);
    const rel = await run({ name: '*.jsonl', path: 'transcripts' });
    expect(rel.content.split('\n').map((l) => l.split('\t')[0])).toEqual([
      'transcripts/b.jsonl',
      'transcripts/sub/c.jsonl',
      'transcripts/a.jsonl',
    ]);
    expect(rel.content).toMatch(/\t\d{4}-\d\d-\d\dT/);
    const abs = await find(join(root, 'elsewhere'), [t])({ name: 'sub/*.jsonl', path: t });
    expect(abs.content.split('\t')[0]).toBe(join(t, 'sub', 'c.jsonl'));
    // Outside the memory directory and the session folders, find sees nothing.
    expect(await find(join(root, 'elsewhere'))({ name: '*', path: t })).toMatchObject({
      isError: true,
      content: expect.stringMatching(/^Refused/),
    });
    expect(await run({ name: '*.md', path: 'transcripts' })).toEqual({
      content: 'No files found.',
    });
    expect(await run({ name: '*', path: 'missing' })).toMatchObject({ isError: true });
    expect(await run({})).toMatchObject({ isError: true });
  });

  it('permissions: find and reads in memory and the session folders; writes only to markdown memory files inside the directory', async () => {
    const root = mkdtempSync(join(tmpdir(), 'engram-dream-perm-'));
    const mem = join(root, 'memory');
    const sessions = join(root, 'sessions');
    mkdirSync(mem);
    mkdirSync(sessions);
    const can = dreamCanUseTool(mem, [sessions]);
    const allowed = async (name: string, input: unknown) => (await can(name, input)).behavior;
    expect(await allowed('find', { name: '*', path: '/' })).toBe('deny');
    expect(await allowed('find', { name: '*.jsonl', path: sessions })).toBe('allow');
    expect(await allowed('read', { path: join(sessions, 'a.jsonl') })).toBe('allow');
    expect(await allowed('read', { path: '/etc/hostname' })).toBe('deny');
    expect(await allowed('write', { path: join(sessions, 'a.md'), content: '' })).toBe('deny');
    expect(await allowed('write', { path: 'a.md', content: '' })).toBe('allow');
    expect(await allowed('edit', { path: join(mem, 'MEMORY.md') })).toBe('allow');
    expect(await allowed('write', { path: '.consolidate-lock', content: '' })).toBe('deny');
    expect(await allowed('write', { path: '.hidden.md', content: '' })).toBe('deny');
    expect(await allowed('write', { path: 'notes.txt', content: '' })).toBe('deny');
    expect(await allowed('Write', { file_path: join(mem, '.consolidate-lock') })).toBe('deny');
    expect(await allowed('write', { path: join(root, 'out.md'), content: '' })).toBe('deny');
    expect(await allowed('bash', { command: 'ls' })).toBe('deny');
  });
});
