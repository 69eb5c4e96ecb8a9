/**
 * Parity with the SDK's reference filesystem tool: for plain (non-memory) files every result and
 * error text must be the one a model trained on the official tool expects, so these cases run the
 * same commands through both implementations and compare the strings.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BetaLocalFilesystemMemoryTool } from '@anthropic-ai/sdk/tools/memory/node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryToolHandlers } from './index.js';

let base: string;
let official: BetaLocalFilesystemMemoryTool;
let ours: ReturnType<typeof createMemoryToolHandlers>;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'engram-parity-'));
  official = await BetaLocalFilesystemMemoryTool.init(join(base, 'official'));
  ours = createMemoryToolHandlers({ memoryDir: join(base, 'ours') });
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

type Input = Record<string, unknown> & { command: string };

/** The text a command returns, or `error: <message>`. */
async function outcome(run: () => unknown): Promise<string> {
  try {
    return String(await run());
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

async function both(input: Input): Promise<[string, string]> {
  type Run = Record<string, (i: Input) => unknown>;
  const a = await outcome(() => (official as unknown as Run)[input.command]!.call(official, input));
  const b = await outcome(() => (ours as unknown as Run)[input.command]!(input));
  return [a, b];
}

const SCRIPT: Input[] = [
  {
    command: 'create',
    path: '/memories/notes/todo.txt',
    file_text: 'buy milk\nwalk the dog\nbuy milk',
  },
  { command: 'create', path: '/memories/notes/todo.txt', file_text: 'again' },
  { command: 'view', path: '/memories/notes/todo.txt' },
  { command: 'view', path: '/memories/notes/todo.txt', view_range: [2, -1] },
  { command: 'view', path: '/memories/notes' },
  { command: 'view', path: '/memories/nothing-here.txt' },
  { command: 'str_replace', path: '/memories/notes/todo.txt', old_str: 'buy milk', new_str: 'x' },
  { command: 'str_replace', path: '/memories/notes/todo.txt', old_str: 'feed cat', new_str: 'x' },
  {
    command: 'str_replace',
    path: '/memories/notes/todo.txt',
    old_str: 'walk the dog',
    new_str: 'walk the dog twice',
  },
  { command: 'str_replace', path: '/memories/ghost.txt', old_str: 'a', new_str: 'b' },
  {
    command: 'insert',
    path: '/memories/notes/todo.txt',
    insert_line: 1,
    insert_text: 'water plants\n',
  },
  { command: 'insert', path: '/memories/notes/todo.txt', insert_line: 42, insert_text: 'x' },
  { command: 'insert', path: '/memories/ghost.txt', insert_line: 0, insert_text: 'x' },
  {
    command: 'rename',
    old_path: '/memories/notes/todo.txt',
    new_path: '/memories/archive/2026/todo.txt',
  },
  { command: 'create', path: '/memories/b.txt', file_text: 'b' },
  { command: 'rename', old_path: '/memories/b.txt', new_path: '/memories/archive/2026/todo.txt' },
  { command: 'rename', old_path: '/memories/ghost.txt', new_path: '/memories/x.txt' },
  { command: 'delete', path: '/memories/b.txt' },
  { command: 'delete', path: '/memories/archive' },
  { command: 'delete', path: '/memories/ghost.txt' },
  { command: 'delete', path: '/memories' },
  { command: 'rename', old_path: '/memories', new_path: '/memories/y' },
  { command: 'create', path: '/tmp/outside.txt', file_text: 'x' },
  { command: 'create', path: '/memories/../../../etc/passwd', file_text: 'x' },
  { command: 'view', path: '/memories/../memories_backup/secret.txt' },
];

describe('same texts as the SDK reference tool for plain files', () => {
  it('runs one script through both and gets the same result or error for every command', async () => {
    for (const input of SCRIPT) {
      const [official, engram] = await both(input);
      expect({ input, text: engram }).toEqual({ input, text: official });
    }
  });

  it('reports a symlink escape and an over-long file in the official words', async () => {
    const outside = join(base, 'outside');
    await mkdir(outside);
    await writeFile(join(outside, 'secret.txt'), 'secret');
    await mkdir(join(base, 'ours'), { recursive: true });
    await symlink(outside, join(base, 'official', 'memories', 'link'));
    await symlink(outside, join(base, 'ours', 'link'));
    for (const input of [
      { command: 'view', path: '/memories/link/secret.txt' },
      { command: 'create', path: '/memories/link/new/file.txt', file_text: 'x' },
    ]) {
      const [official, engram] = await both(input);
      expect(official).toBe('error: Path would escape /memories directory via symlink');
      expect(engram.startsWith(official)).toBe(true);
    }
    const huge = Array.from({ length: 1_000_000 }, () => 'l').join('\n');
    await both({ command: 'create', path: '/memories/huge.txt', file_text: huge });
    const [official, engram] = await both({ command: 'view', path: '/memories/huge.txt' });
    expect(engram).toBe(official);
    expect(engram).toMatch(/Maximum is 999,999 lines/);
  });
});
