import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileTools, FILE_TOOL_DEFINITIONS } from './file-tools.js';

let root: string;
let tools: ReturnType<typeof createFileTools>;
const run = (name: string, input: unknown) => {
  const tool = tools.find((t) => t.definition.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool.execute(input, {});
};

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'engram-tools-'));
  tools = createFileTools(root);
  await mkdir(join(root, 'project'));
  await writeFile(
    join(root, 'project', 'deploy.md'),
    'line one\nDeploy with make ship\nline three\n',
  );
  await writeFile(join(root, 'MEMORY.md'), '- [deploy](project/deploy.md)\n');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('file tools', () => {
  it('have the documented names and object schemas', () => {
    expect(FILE_TOOL_DEFINITIONS.map((d) => d.name)).toEqual([
      'read',
      'write',
      'edit',
      'list',
      'grep',
    ]);
    for (const d of FILE_TOOL_DEFINITIONS) expect(d.input_schema.type).toBe('object');
  });

  it('read numbers lines and pages with offset/limit', async () => {
    expect((await run('read', { path: 'project/deploy.md' })).content).toBe(
      '     1\tline one\n     2\tDeploy with make ship\n     3\tline three',
    );
    const page = await run('read', { path: join(root, 'project/deploy.md'), offset: 2, limit: 1 });
    expect(page.content).toBe('     2\tDeploy with make ship\n(1 more lines; use offset 3)');
    expect(await run('read', { path: 'missing.md' })).toEqual({
      content: 'No such file or folder: missing.md',
      isError: true,
    });
    expect((await run('read', { path: 'project' })).isError).toBe(true);
  });

  it('write creates folders and replaces atomically, leaving no temp files', async () => {
    expect(
      (await run('write', { path: 'user/role.md', content: 'hello' })).isError,
    ).toBeUndefined();
    expect(await readFile(join(root, 'user/role.md'), 'utf8')).toBe('hello');
    await run('write', { path: 'user/role.md', content: 'again' });
    expect(await readFile(join(root, 'user/role.md'), 'utf8')).toBe('again');
    expect(await readdir(join(root, 'user'))).toEqual(['role.md']);
    expect((await run('write', { path: 'x.md' })).isError).toBe(true);
  });

  it('edit needs exactly one match', async () => {
    const ok = await run('edit', {
      path: 'project/deploy.md',
      old_string: 'make ship',
      new_string: 'make deploy',
    });
    expect(ok.isError).toBeUndefined();
    expect(await readFile(join(root, 'project/deploy.md'), 'utf8')).toContain(
      'Deploy with make deploy',
    );
    const none = await run('edit', {
      path: 'project/deploy.md',
      old_string: 'absent',
      new_string: 'x',
    });
    expect(none).toMatchObject({ isError: true, content: expect.stringMatching(/not found/) });
    const many = await run('edit', {
      path: 'project/deploy.md',
      old_string: 'line',
      new_string: 'x',
    });
    expect(many).toMatchObject({ isError: true, content: expect.stringMatching(/occurs 2 times/) });
    // "$&" must be inserted literally, not interpreted as a replacement pattern.
    await run('edit', { path: 'MEMORY.md', old_string: '[deploy]', new_string: '[$& cost]' });
    expect(await readFile(join(root, 'MEMORY.md'), 'utf8')).toBe(
      '- [$& cost](project/deploy.md)\n',
    );
  });

  it('list and grep report paths relative to the root', async () => {
    expect((await run('list', {})).content).toBe('MEMORY.md\nproject/deploy.md');
    expect((await run('grep', { pattern: 'make\\s+ship' })).content).toBe(
      'project/deploy.md:2: Deploy with make ship',
    );
    expect((await run('grep', { pattern: 'zzz' })).content).toBe('No matches.');
    expect((await run('grep', { pattern: '(' })).isError).toBe(true);
    expect((await run('list', { path: 'nope' })).isError).toBe(true);
  });

  it('list and grep over a folder holding credential and version-control folders skip them, not fail', async () => {
    for (const [rel, text] of [
      ['.aws/credentials', 'TOKEN=aws'],
      ['.svn/wc.db', 'TOKEN=svn'],
      ['sub/.hg/hgrc', '[auth]\nx.password = TOKEN'],
      ['sub/notes.md', 'TOKEN is rotated monthly'],
    ] as const) {
      await mkdir(join(root, rel, '..'), { recursive: true });
      await writeFile(join(root, rel), text);
    }
    expect((await run('list', {})).content).toBe('MEMORY.md\nproject/deploy.md\nsub/notes.md');
    expect((await run('grep', { pattern: 'TOKEN' })).content).toBe(
      'sub/notes.md:1: TOKEN is rotated monthly',
    );
    // Named on its own, a refused folder still says why.
    const named = await run('list', { path: '.aws' });
    expect(named.isError).toBe(true);
    expect(named.content).toMatch(/credentials/);
  });

  it('grep stops when its signal is aborted', async () => {
    const grep = tools.find((t) => t.definition.name === 'grep')!;
    const result = await grep.execute({ pattern: 'make' }, { signal: AbortSignal.abort() });
    expect(result).toEqual({ content: 'grep was aborted.', isError: true });
  });
});
