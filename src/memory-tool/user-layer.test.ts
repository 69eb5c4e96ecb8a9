/**
 * The memory tool with a user layer: `/memories/user/` is the user directory, listed by `view
 * /memories` as a folder of its own; every other path is the project's. Each layer keeps its own
 * MEMORY.md, and nothing moves between them by rename.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryToolHandlers, type MemoryToolTextHandlers } from './index.js';

const memory = (name: string, type: string) =>
  `---\nname: ${name}\ndescription: ${name} in one line\ntype: ${type}\n---\n${name}.\n`;

let root: string;
let projectDir: string;
let userDir: string;
let tool: MemoryToolTextHandlers;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'engram-memory-tool-layers-'));
  projectDir = join(root, 'project');
  userDir = join(root, 'home', 'user', 'memory');
  tool = createMemoryToolHandlers({ memoryDir: projectDir, userDir });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('the memory tool over the project and the user layer', () => {
  it('writes /memories/user/ files into the user directory, each layer indexing its own', async () => {
    await tool.create({
      command: 'create',
      path: '/memories/user/answer-in-chinese.md',
      file_text: memory('answer in Chinese', 'user'),
    });
    await tool.create({
      command: 'create',
      path: '/memories/release-freeze.md',
      file_text: memory('release freeze', 'project'),
    });
    expect(await readFile(join(userDir, 'answer-in-chinese.md'), 'utf8')).toContain(
      'answer in Chinese',
    );
    expect(await readFile(join(userDir, 'MEMORY.md'), 'utf8')).toContain('(answer-in-chinese.md)');
    expect(await readFile(join(projectDir, 'MEMORY.md'), 'utf8')).not.toContain('chinese');
    expect(await readFile(join(projectDir, 'release-freeze.md'), 'utf8')).toContain('freeze');
    // The same file through a doubled slash is the same user memory.
    const shown = await tool.view({
      command: 'view',
      path: '/memories//user/answer-in-chinese.md',
    });
    expect(shown).toContain("Here's the content of /memories/user/answer-in-chinese.md");
  });

  it('lists the user layer as /memories/user/ in the root listing, shadowing a project folder of that name', async () => {
    await mkdir(join(projectDir, 'user'), { recursive: true });
    await writeFile(join(projectDir, 'user', 'hidden.md'), memory('hidden', 'project'));
    await tool.create({
      command: 'create',
      path: '/memories/user/answer-in-chinese.md',
      file_text: memory('answer in Chinese', 'user'),
    });
    const listing = await tool.view({ command: 'view', path: '/memories' });
    const paths = listing
      .split('\n')
      .slice(1)
      .map((l) => l.split('\t')[1]);
    expect(paths).toEqual([
      '/memories',
      '/memories/user/',
      '/memories/user/MEMORY.md',
      '/memories/user/answer-in-chinese.md',
    ]);
    expect(listing).not.toContain('hidden.md');
    const userListing = await tool.view({ command: 'view', path: '/memories/user' });
    expect(userListing).toContain('in /memories/user,');
    expect(userListing).toContain('/memories/user/answer-in-chinese.md');
  });

  it('shows an empty user layer before its first save, and refuses paths that climb out of it', async () => {
    const empty = await tool.view({ command: 'view', path: '/memories/user' });
    expect(empty.split('\n')).toHaveLength(2);
    await expect(
      tool.create({ command: 'create', path: '/memories/user/../../x.md', file_text: 'x' }),
    ).rejects.toThrow(/escape/);
    await expect(
      tool.create({ command: 'create', path: '/memories/user/%2e%2e/x.md', file_text: 'x' }),
    ).rejects.toThrow(/escape/);
  });

  it('refuses to rename a memory from one layer into the other', async () => {
    await tool.create({
      command: 'create',
      path: '/memories/a.md',
      file_text: memory('a', 'user'),
    });
    await expect(
      tool.rename({
        command: 'rename',
        old_path: '/memories/a.md',
        new_path: '/memories/user/a.md',
      }),
    ).rejects.toThrow(/different memory directories/);
    expect(await readFile(join(projectDir, 'a.md'), 'utf8')).toContain('name: a');
  });

  it('without a user layer, /memories/user is an ordinary project folder', async () => {
    const plain = createMemoryToolHandlers({ memoryDir: projectDir });
    await plain.create({
      command: 'create',
      path: '/memories/user/x.md',
      file_text: memory('x', 'user'),
    });
    expect(await readFile(join(projectDir, 'user', 'x.md'), 'utf8')).toContain('name: x');
  });
});
