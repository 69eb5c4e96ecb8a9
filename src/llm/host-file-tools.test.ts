import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHostFileTools } from './host-file-tools.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'engram-host-tools-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const run = (name: string, input: unknown) => {
  const tool = createHostFileTools(root).find((t) => t.definition.name === name);
  if (!tool) throw new Error(`no ${name}`);
  return tool.execute(input, {});
};

describe("Claude Code's file tools over a root", () => {
  it('writes, reads with line numbers, lists and greps by file_path', async () => {
    const file = join(root, 'deploy.md');
    expect(
      (await run('Write', { file_path: file, content: 'freeze on Friday\nship Monday\n' })).isError,
    ).toBeFalsy();
    expect((await run('Read', { file_path: file, offset: 2 })).content).toBe('     2\tship Monday');
    expect((await run('LS', { path: root })).content).toBe('deploy.md');
    expect((await run('Grep', { pattern: 'Fri', path: root })).content).toBe(
      'deploy.md:1: freeze on Friday',
    );
    expect((await run('Read', { file_path: join(root, 'none.md') })).isError).toBe(true);
  });

  it('edits exactly, with replace_all, and MultiEdit all-or-nothing', async () => {
    const file = join(root, 'a.md');
    await writeFile(file, 'x y x\n');
    expect(
      (await run('Edit', { file_path: file, old_string: 'x', new_string: 'z' })).content,
    ).toMatch(/occurs 2 times/);
    await run('Edit', { file_path: file, old_string: 'x', new_string: 'z', replace_all: true });
    expect(await readFile(file, 'utf8')).toBe('z y z\n');
    const multi = await run('MultiEdit', {
      file_path: file,
      edits: [
        { old_string: 'y', new_string: 'w' },
        { old_string: 'missing', new_string: 'q' },
      ],
    });
    expect(multi).toMatchObject({ isError: true, content: expect.stringMatching(/^edit 2: /) });
    expect(await readFile(file, 'utf8')).toBe('z y z\n');
    await run('MultiEdit', { file_path: file, edits: [{ old_string: 'y', new_string: 'w' }] });
    expect(await readFile(file, 'utf8')).toBe('z w z\n');
    expect((await run('MultiEdit', { file_path: file, edits: [] })).isError).toBe(true);
    expect((await run('Edit', { old_string: 'a', new_string: 'b' })).isError).toBe(true);
  });
});
