import { lstat, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { betaMemoryTool } from '@anthropic-ai/sdk/helpers/beta/memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseIndexEntries, readMemory, revokeMemory } from '../index.js';
import { createMemoryToolHandlers } from './handler.js';
import { parseMemoryToolPath } from './paths.js';

let base: string;
let dir: string;
let handlers: ReturnType<typeof createMemoryToolHandlers>;
const NOW = new Date('2026-03-01T12:00:00Z');

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'engram-memtool-'));
  dir = join(base, 'memory');
  handlers = createMemoryToolHandlers({ memoryDir: dir, now: () => NOW });
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const MEMORY = `---
name: Use pnpm
description: this repo installs with pnpm; npm breaks the lockfile
type: feedback
---
Use pnpm, never npm.
**Why:** npm rewrote the lockfile and broke CI.
**How to apply:** every install command in this repo.`;

async function index(): Promise<string> {
  return readFile(join(dir, 'MEMORY.md'), 'utf8').catch(() => '');
}

async function mode(path: string): Promise<number> {
  return (await stat(path)).mode & 0o777;
}

describe('memory tool commands', () => {
  it('create writes a 0600 file in 0700 folders and adds the index line (two-step save)', async () => {
    const text = await handlers.create({
      command: 'create',
      path: '/memories/team/pnpm.md',
      file_text: MEMORY,
    });
    expect(text).toBe('File created successfully at: /memories/team/pnpm.md');
    expect(await mode(join(dir, 'team/pnpm.md'))).toBe(0o600);
    expect(await mode(join(dir, 'team'))).toBe(0o700);
    expect(await mode(dir)).toBe(0o700);
    expect(await mode(join(dir, 'MEMORY.md'))).toBe(0o600);
    expect(parseIndexEntries(await index())).toMatchObject([
      {
        title: 'Use pnpm',
        file: 'team/pnpm.md',
        hook: 'this repo installs with pnpm; npm breaks the lockfile',
      },
    ]);
    await expect(
      handlers.create({ command: 'create', path: '/memories/team/pnpm.md', file_text: 'x' }),
    ).rejects.toThrow('File /memories/team/pnpm.md already exists');
  });

  it('create of a memory without frontmatter tells the model recall cannot use it', async () => {
    const text = await handlers.create({
      command: 'create',
      path: '/memories/notes.md',
      file_text: 'loose notes',
    });
    expect(text).toMatch(
      /^File created successfully at: \/memories\/notes.md\nNote: notes.md has no `description`/,
    );
    expect(parseIndexEntries(await index()).map((e) => e.file)).toEqual(['notes.md']);
    // Non-markdown files are plain files: no index line.
    await handlers.create({
      command: 'create',
      path: '/memories/progress.txt',
      file_text: 'step 1',
    });
    expect(parseIndexEntries(await index()).map((e) => e.file)).toEqual(['notes.md']);
  });

  it('view lists two levels, skipping hidden items, and shows numbered lines with a range', async () => {
    await handlers.create({ command: 'create', path: '/memories/a.md', file_text: MEMORY });
    await handlers.create({
      command: 'create',
      path: '/memories/x/y/z/deep.txt',
      file_text: 'deep',
    });
    await writeFile(join(dir, '.hidden'), 'secret');
    const listing = await handlers.view({ command: 'view', path: '/memories' });
    const lines = listing.split('\n');
    expect(lines[0]).toBe(
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:",
    );
    const paths = lines.slice(1).map((l) => l.split('\t')[1]);
    expect(paths).toEqual([
      '/memories',
      '/memories/MEMORY.md',
      '/memories/a.md',
      '/memories/x/',
      '/memories/x/y/',
    ]);
    const file = await handlers.view({
      command: 'view',
      path: '/memories/a.md',
      view_range: [2, 3],
    });
    expect(file).toBe(
      "Here's the content of /memories/a.md with line numbers:\n     2\tname: Use pnpm\n     3\tdescription: this repo installs with pnpm; npm breaks the lockfile",
    );
    const all = await handlers.view({
      command: 'view',
      path: '/memories/a.md',
      view_range: [7, -1],
    });
    expect(all.split('\n').slice(1)).toEqual([
      '     7\t**Why:** npm rewrote the lockfile and broke CI.',
      '     8\t**How to apply:** every install command in this repo.',
    ]);
    await expect(handlers.view({ command: 'view', path: '/memories/none.md' })).rejects.toThrow(
      'The path /memories/none.md does not exist. Please provide a valid path.',
    );
  });

  it('str_replace replaces a unique multi-line old_str and keeps the index in step', async () => {
    await handlers.create({ command: 'create', path: '/memories/a.md', file_text: MEMORY });
    const result = await handlers.str_replace({
      command: 'str_replace',
      path: '/memories/a.md',
      old_str: 'description: this repo installs with pnpm; npm breaks the lockfile\ntype: feedback',
      new_str: 'description: installs use pnpm 9 only\ntype: feedback',
    });
    expect(result).toMatch(
      /^The memory file has been edited\. Here is the snippet showing the change \(with line numbers\):\n/,
    );
    expect(result).toContain('     3\tdescription: installs use pnpm 9 only');
    expect(parseIndexEntries(await index())[0]?.hook).toBe('installs use pnpm 9 only');
    expect(await mode(join(dir, 'a.md'))).toBe(0o600);
  });

  it('str_replace refuses a missing or repeated old_str with the official wording', async () => {
    await handlers.create({ command: 'create', path: '/memories/r.txt', file_text: 'a\nb\na' });
    await expect(
      handlers.str_replace({
        command: 'str_replace',
        path: '/memories/r.txt',
        old_str: 'zzz',
        new_str: '',
      }),
    ).rejects.toThrow(
      'No replacement was performed, old_str `zzz` did not appear verbatim in /memories/r.txt.',
    );
    await expect(
      handlers.str_replace({
        command: 'str_replace',
        path: '/memories/r.txt',
        old_str: 'a',
        new_str: 'c',
      }),
    ).rejects.toThrow(
      'No replacement was performed. Multiple occurrences of old_str `a` in lines: 1, 3. Please ensure it is unique',
    );
  });

  it('insert adds a line within [0, line count] and refuses outside', async () => {
    await handlers.create({ command: 'create', path: '/memories/list.txt', file_text: 'one\ntwo' });
    expect(
      await handlers.insert({
        command: 'insert',
        path: '/memories/list.txt',
        insert_line: 0,
        insert_text: 'zero\n',
      }),
    ).toBe('The file /memories/list.txt has been edited.');
    await handlers.insert({
      command: 'insert',
      path: '/memories/list.txt',
      insert_line: 3,
      insert_text: 'three',
    });
    expect(await readFile(join(dir, 'list.txt'), 'utf8')).toBe('zero\none\ntwo\nthree');
    await expect(
      handlers.insert({
        command: 'insert',
        path: '/memories/list.txt',
        insert_line: 9,
        insert_text: 'x',
      }),
    ).rejects.toThrow(
      'Invalid `insert_line` parameter: 9. It should be within the range of lines of the file: [0, 4]',
    );
  });

  it('delete revokes a memory by default: kept on disk, off the index', async () => {
    await handlers.create({ command: 'create', path: '/memories/a.md', file_text: MEMORY });
    const result = await handlers.delete({ command: 'delete', path: '/memories/a.md' });
    expect(result).toMatch(
      /^Successfully deleted \/memories\/a.md \(the memory is kept on disk marked revoked/,
    );
    const doc = await readMemory(dir, 'a.md');
    expect(doc.header.status).toBe('revoked');
    expect(doc.header.frontmatter.revoked).toBe('2026-03-01');
    expect(parseIndexEntries(await index())).toEqual([]);
  });

  it('delete of a folder revokes its memories, removes its plain files, and keeps earlier revocations', async () => {
    await handlers.create({ command: 'create', path: '/memories/q3/a.md', file_text: MEMORY });
    await handlers.create({
      command: 'create',
      path: '/memories/q3/b.md',
      file_text: MEMORY.replace('Use pnpm', 'Use corepack'),
    });
    await handlers.create({ command: 'create', path: '/memories/q3/todo.txt', file_text: '1. x' });
    await handlers.create({ command: 'create', path: '/memories/q3/deep/log.txt', file_text: 'y' });
    await revokeMemory(dir, 'q3/b.md', { reason: 'corepack was dropped', now: NOW });
    const result = await handlers.delete({ command: 'delete', path: '/memories/q3/' });
    expect(result).toBe(
      'Successfully deleted /memories/q3/ (2 memories are kept on disk marked revoked, so they are never recalled or learned again)',
    );
    expect((await readMemory(dir, 'q3/a.md')).header.status).toBe('revoked');
    // An earlier revocation keeps its own reason.
    expect((await readMemory(dir, 'q3/b.md')).header.frontmatter.reason).toBe(
      'corepack was dropped',
    );
    await expect(lstat(join(dir, 'q3/todo.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(lstat(join(dir, 'q3/deep'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(parseIndexEntries(await index())).toEqual([]);
    // Deleting an already revoked memory again changes nothing on disk.
    const before = await readFile(join(dir, 'q3/b.md'), 'utf8');
    await handlers.delete({ command: 'delete', path: '/memories/q3/b.md' });
    expect(await readFile(join(dir, 'q3/b.md'), 'utf8')).toBe(before);
  });

  it('delete removes for real when configured, and removes plain files and folders', async () => {
    const remover = createMemoryToolHandlers({ memoryDir: dir, onDelete: 'remove' });
    await remover.create({ command: 'create', path: '/memories/sub/a.md', file_text: MEMORY });
    await remover.create({ command: 'create', path: '/memories/b.txt', file_text: 'b' });
    expect(await remover.delete({ command: 'delete', path: '/memories/b.txt' })).toBe(
      'Successfully deleted /memories/b.txt',
    );
    expect(await remover.delete({ command: 'delete', path: '/memories/sub' })).toBe(
      'Successfully deleted /memories/sub',
    );
    await expect(lstat(join(dir, 'sub'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(parseIndexEntries(await index())).toEqual([]);
    await expect(remover.delete({ command: 'delete', path: '/memories/b.txt' })).rejects.toThrow(
      'The path /memories/b.txt does not exist',
    );
  });

  it('rename moves a memory, keeps its index line in place and never overwrites', async () => {
    await handlers.create({
      command: 'create',
      path: '/memories/first.md',
      file_text: MEMORY.replace('Use pnpm', 'First'),
    });
    await handlers.create({ command: 'create', path: '/memories/a.md', file_text: MEMORY });
    await handlers.create({
      command: 'create',
      path: '/memories/last.md',
      file_text: MEMORY.replace('Use pnpm', 'Last'),
    });
    expect(
      await handlers.rename({
        command: 'rename',
        old_path: '/memories/a.md',
        new_path: '/memories/tools/pnpm.md',
      }),
    ).toBe('Successfully renamed /memories/a.md to /memories/tools/pnpm.md');
    expect(parseIndexEntries(await index()).map((e) => e.file)).toEqual([
      'first.md',
      'tools/pnpm.md',
      'last.md',
    ]);
    await expect(
      handlers.rename({
        command: 'rename',
        old_path: '/memories/first.md',
        new_path: '/memories/last.md',
      }),
    ).rejects.toThrow('The destination /memories/last.md already exists');
    await handlers.rename({
      command: 'rename',
      old_path: '/memories/tools',
      new_path: '/memories/kit',
    });
    expect(parseIndexEntries(await index()).map((e) => e.file)).toEqual([
      'first.md',
      'kit/pnpm.md',
      'last.md',
    ]);
    expect(await mode(join(dir, 'MEMORY.md'))).toBe(0o600);
  });

  it('works through the official betaMemoryTool helper', async () => {
    const tool = betaMemoryTool(handlers);
    expect(tool.type).toBe('memory_20250818');
    expect(tool.name).toBe('memory');
    const out = await tool.run(
      { command: 'create', path: '/memories/x.md', file_text: MEMORY },
      {} as never,
    );
    expect(out).toBe('File created successfully at: /memories/x.md');
  });
});

describe('memory tool refusals', () => {
  it.each([
    ['/memoriesX/a', 'Path must start with /memories, got: /memoriesX/a'],
    ['/memories/../x', 'would escape /memories directory'],
    ['/memories/%2e%2e/x', 'would escape /memories directory'],
    ['/memories/%252e%252e/x', 'would escape /memories directory'],
    ['/memories/a%2f..%2fx', 'would escape /memories directory'],
    ['/memories/a\\..\\..\\x', 'would escape /memories directory'],
    ['/memories/a\\b.md', 'backslash'],
    ['/memories/a\0b', 'NUL'],
    ['/etc/passwd', 'Path must start with /memories'],
    ['memories/a', 'Path must start with /memories'],
  ])('refuses %j', async (path, message) => {
    expect(parseMemoryToolPath(path).ok).toBe(false);
    await expect(handlers.create({ command: 'create', path, file_text: 'x' })).rejects.toThrow(
      message,
    );
    await expect(handlers.view({ command: 'view', path })).rejects.toThrow(message);
  });

  it('refuses encoded backslashes and NUL, and a % in a memory name (its index line would mislead)', async () => {
    expect(parseMemoryToolPath('/memories/a%5c..%5cx')).toMatchObject({ ok: false });
    expect(parseMemoryToolPath('/memories/a%00b')).toMatchObject({ ok: false });
    expect(parseMemoryToolPath('/memories/progress-100%.md')).toEqual({
      ok: true,
      rel: 'progress-100%.md',
    });
    await expect(
      handlers.create({
        command: 'create',
        path: '/memories/progress-100%.md',
        file_text: 'done',
      }),
    ).rejects.toThrow(/would break its index line/);
    // A plain (non-memory) file may carry it: it never gets an index line.
    expect(
      await handlers.create({ command: 'create', path: '/memories/100%.txt', file_text: 'x' }),
    ).toBe('File created successfully at: /memories/100%.txt');
  });

  it('accepts the root with and without a trailing slash and collapses empty segments', () => {
    expect(parseMemoryToolPath('/memories')).toEqual({ ok: true, rel: '' });
    expect(parseMemoryToolPath('/memories/')).toEqual({ ok: true, rel: '' });
    expect(parseMemoryToolPath('/memories//a//b.md')).toEqual({ ok: true, rel: 'a/b.md' });
  });

  it('refuses to follow a symlink to /etc, for reads and writes', async () => {
    await mkdir(dir, { recursive: true });
    await symlink('/etc', join(dir, 'etc'));
    await symlink('/etc/hostname-that-does-not-exist', join(dir, 'dangling.md'));
    await expect(handlers.view({ command: 'view', path: '/memories/etc/passwd' })).rejects.toThrow(
      'Path would escape /memories directory via symlink: /memories/etc/passwd',
    );
    await expect(
      handlers.create({ command: 'create', path: '/memories/etc/engram-test', file_text: 'x' }),
    ).rejects.toThrow('via symlink');
    await expect(
      handlers.create({ command: 'create', path: '/memories/dangling.md', file_text: 'x' }),
    ).rejects.toThrow('via symlink');
    await expect(handlers.delete({ command: 'delete', path: '/memories/etc' })).rejects.toThrow(
      'via symlink',
    );
    // The listing leaves the escaping links out instead of following them.
    const listing = await handlers.view({ command: 'view', path: '/memories/' });
    expect(listing).not.toContain('/memories/etc');
  });

  it.each(['/memories', '/memories/', '/memories//'])(
    'refuses to delete or rename the root %j',
    async (path) => {
      await handlers.create({ command: 'create', path: '/memories/keep.md', file_text: MEMORY });
      await expect(handlers.delete({ command: 'delete', path })).rejects.toThrow(
        'Cannot delete the /memories directory itself',
      );
      await expect(
        handlers.rename({ command: 'rename', old_path: path, new_path: '/memories/x' }),
      ).rejects.toThrow('Cannot rename the /memories directory itself');
      expect(await readFile(join(dir, 'keep.md'), 'utf8')).toBe(MEMORY);
    },
  );

  it('refuses to delete or rename the index, or move a folder into itself', async () => {
    await handlers.create({ command: 'create', path: '/memories/d/a.md', file_text: MEMORY });
    await expect(
      handlers.delete({ command: 'delete', path: '/memories/MEMORY.md' }),
    ).rejects.toThrow('is the index');
    await expect(
      handlers.rename({
        command: 'rename',
        old_path: '/memories/d/a.md',
        new_path: '/memories/MEMORY.md',
      }),
    ).rejects.toThrow('MEMORY.md is the index');
    await expect(
      handlers.rename({ command: 'rename', old_path: '/memories/d', new_path: '/memories/d/e' }),
    ).rejects.toThrow('into itself');
  });
});
