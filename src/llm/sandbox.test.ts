import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { classifyToolCall, directorySandbox, singleFileSandbox } from './sandbox.js';

let root: string;
let mem: string;
let outside: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'engram-sandbox-')));
  mem = join(root, 'mem');
  outside = join(root, 'outside');
  await mkdir(join(mem, 'sub'), { recursive: true });
  await mkdir(outside);
  await symlink(outside, join(mem, 'out-link'));
  await symlink(join(mem, 'sub'), join(mem, 'in-link'));
  await symlink(join(outside, 'later.md'), join(mem, 'dangling.md'));
  await symlink('../../outside', join(mem, 'sub', 'relative-out'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const allow = { behavior: 'allow' };

describe('symbolic links in the sandbox', () => {
  it('applies .. to the physical parent of a symlink, like the kernel, and refuses loops', async () => {
    const can = directorySandbox(mem);
    // Lexically "out-link/.." is mem itself; physically it is root: outside.
    expect((await can('write', { path: 'out-link/../x.md' })).behavior).toBe('deny');
    expect(await can('write', { path: 'in-link/a.md' })).toEqual(allow);
    expect(await can('write', { path: 'new/deeper/../z.md' })).toEqual(allow);
    await symlink(join(mem, 'loop-b'), join(mem, 'loop-a'));
    await symlink(join(mem, 'loop-a'), join(mem, 'loop-b'));
    expect(await can('write', { path: 'loop-a/x' })).toMatchObject({
      behavior: 'deny',
      message: expect.stringMatching(/symbolic link/),
    });
  });
});

describe('directorySandbox', () => {
  it('reads and writes inside the directory, reads in its read roots, and nothing else', async () => {
    const can = directorySandbox(mem);
    expect((await can('read', { path: '/etc/passwd' })).behavior).toBe('deny');
    expect((await can('Grep', { pattern: 'x', path: '/' })).behavior).toBe('deny');
    expect((await can('Read', { file_path: 'out-link/secret' })).behavior).toBe('deny');
    expect(await can('read', { path: 'sub/missing.md' })).toEqual(allow);
    expect(await can('LS', {})).toEqual(allow);
    const project = directorySandbox(mem, { readRoots: [outside] });
    expect(await project('Read', { file_path: join(outside, 'later.md') })).toEqual(allow);
    expect((await project('Write', { file_path: join(outside, 'x.md') })).behavior).toBe('deny');
    expect(await can('write', { path: 'a.md', content: '' })).toEqual(allow);
    expect(await can('edit', { path: join(mem, 'sub', 'b.md') })).toEqual(allow);
    expect(await can('write', { path: 'in-link/c.md' })).toEqual(allow);
    expect(await can('Write', { file_path: join(mem, 'new', 'd.md') })).toEqual(allow);
    expect(await can('memory', { command: 'create', path: '/memories/e.md' })).toEqual(allow);
    expect(await can('memory', { command: 'view', path: '/memories' })).toEqual(allow);
  });

  it.each([
    ['absolute outside', 'write', { path: '/tmp/engram-escape.md' }],
    ['dot-dot', 'write', { path: '../outside/x.md' }],
    ['symlink dir out', 'edit', { path: 'out-link/x.md' }],
    ['dot-dot through symlink', 'write', { path: 'out-link/../x.md' }],
    ['dangling symlink', 'write', { path: 'dangling.md' }],
    ['relative symlink', 'Edit', { file_path: 'sub/relative-out/x' }],
    ['the directory itself', 'write', { path: '.' }],
    ['claude code MultiEdit', 'MultiEdit', { file_path: '../outside/x' }],
    ['notebook', 'NotebookEdit', { notebook_path: 'out-link/n.ipynb' }],
    ['memory tool escape', 'memory', { command: 'create', path: '/memories/../x.md' }],
    ['memory path without /memories', 'memory', { command: 'create', path: '/etc/x' }],
    [
      'memory rename out',
      'memory',
      { command: 'rename', old_path: '/memories/a', new_path: '/memories/out-link/a' },
    ],
    ['memory delete', 'memory', { command: 'delete', path: '/memories/a.md' }],
    ['delete tool', 'delete_file', { path: 'a.md' }],
    ['shell', 'Bash', { command: 'ls' }],
    ['unknown tool', 'WebFetch', { url: 'https://example.com' }],
    ['missing path', 'write', { content: 'x' }],
    ['nul byte', 'write', { path: 'a\0b' }],
  ])('refuses %s', async (_label, tool, input) => {
    const decision = await directorySandbox(mem)(tool, input);
    expect(decision.behavior).toBe('deny');
    expect(decision).toMatchObject({ message: expect.stringMatching(/^Refused/) });
  });
});

describe('sandbox cwd', () => {
  it('resolves relative paths from cwd but /memories from the sandbox directory', async () => {
    const can = directorySandbox(mem, { cwd: outside });
    expect((await can('write', { path: 'a.md' })).behavior).toBe('deny');
    expect(await can('write', { path: '../mem/a.md' })).toEqual(allow);
    expect(await can('memory', { command: 'str_replace', path: '/memories/a.md' })).toEqual(allow);
  });
});

describe('singleFileSandbox', () => {
  it('allows only that file to be written', async () => {
    const file = join(mem, 'notes.md');
    await writeFile(file, '# notes');
    const can = singleFileSandbox(file);
    expect(await can('edit', { path: file })).toEqual(allow);
    expect(await can('edit', { path: 'notes.md' })).toEqual(allow);
    // in-link points at sub, so in-link/.. is physically mem again: the same file.
    expect(await can('Edit', { file_path: `${mem}/in-link/../notes.md` })).toEqual(allow);
    expect((await can('Edit', { file_path: `${mem}/out-link/../notes.md` })).behavior).toBe('deny');
    expect((await can('Read', { file_path: '/etc/hosts' })).behavior).toBe('deny');
    expect(await can('Read', { file_path: file })).toEqual(allow);
    expect((await can('write', { path: join(mem, 'other.md') })).behavior).toBe('deny');
    expect((await can('Bash', { command: 'true' })).behavior).toBe('deny');
  });

  it('follows a symlink to the file', async () => {
    const file = join(mem, 'sub', 'notes.md');
    await writeFile(file, '');
    const can = singleFileSandbox(file);
    expect(await can('write', { path: join(mem, 'in-link', 'notes.md') })).toEqual(allow);
  });
});

describe('classifyToolCall', () => {
  it('knows what each family of tools does', () => {
    expect(classifyToolCall('LS', {})).toEqual({ kind: 'read', paths: ['.'], memoryTool: false });
    expect(classifyToolCall('write', { path: 'a' })).toEqual({
      kind: 'write',
      paths: ['a'],
      memoryTool: false,
    });
    expect(
      classifyToolCall('memory', {
        command: 'rename',
        old_path: '/memories/a',
        new_path: '/memories/b',
      }),
    ).toEqual({
      kind: 'write',
      paths: ['/memories/a', '/memories/b'],
      memoryTool: true,
    });
    expect(classifyToolCall('rm', {}).kind).toBe('deny');
  });

  it("reads the Anthropic text editor tool's commands and checks its real paths", async () => {
    const editor = 'str_replace_based_edit_tool';
    expect(classifyToolCall(editor, { command: 'view', path: '/etc' })).toEqual({
      kind: 'read',
      paths: ['/etc'],
      memoryTool: false,
    });
    expect(classifyToolCall(editor, { command: 'create', path: '/x/a.md' })).toEqual({
      kind: 'write',
      paths: ['/x/a.md'],
      memoryTool: false,
    });
    expect(classifyToolCall(editor, { command: 'str_replace' }).kind).toBe('deny');
    expect(classifyToolCall(editor, { command: 'delete', path: '/x/a.md' }).kind).toBe('deny');
    const can = directorySandbox(mem);
    expect(await can(editor, { command: 'create', path: join(mem, 'a.md') })).toEqual(allow);
    expect(await can(editor, { command: 'insert', path: join(mem, 'out-link', 'a.md') })).toEqual({
      behavior: 'deny',
      message: expect.stringContaining('outside'),
    });
  });
});
