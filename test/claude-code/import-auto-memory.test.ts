import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCaptured, testIo } from '../../src/cli/test-io.js';
import { claudeProjectKey } from '../../src/hooks/index.js';
import { parseIndexEntries } from '../../src/memdir/index.js';

// `engram import claude-code` on a copy of a real-shaped Claude Code auto-memory directory.
const FIXTURE = resolve(import.meta.dirname, '../fixtures/claude-code-memory');
const TOPICS = readdirSync(FIXTURE)
  .filter((f) => f.endsWith('.md') && f !== 'MEMORY.md')
  .sort();

let root: string;
let project: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'engram-import-'));
  project = join(root, 'repo');
  await mkdir(project, { recursive: true });
  execFileSync('git', ['init', '-q', project]);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const snapshot = (dir: string) =>
  Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));

async function memoryDir(io: ReturnType<typeof testIo>): Promise<string> {
  return JSON.parse((await runCaptured(['path', '--json'], io)).stdout).path;
}

describe('engram import claude-code', () => {
  it('imports every memory with its index line from --from; a second run imports nothing', async () => {
    const source = join(root, 'copy');
    cpSync(FIXTURE, source, { recursive: true });
    const before = snapshot(source);
    const io = testIo({ cwd: project, homedir: root });
    const first = await runCaptured(['import', 'claude-code', '--from', source, '--json'], io);
    expect(first.code, first.stderr).toBe(0);
    const result = JSON.parse(first.stdout);
    expect(result.imported.sort()).toEqual(TOPICS);
    expect(result.skipped).toEqual([]);

    const dir = await memoryDir(io);
    for (const file of TOPICS) {
      // The same file format: copied byte for byte, private like every engram memory.
      expect(await readFile(join(dir, file), 'utf8')).toBe(before[file]);
      expect(statSync(join(dir, file)).mode & 0o777).toBe(0o600);
    }
    const index = parseIndexEntries(await readFile(join(dir, 'MEMORY.md'), 'utf8'));
    expect(index.map((e) => e.file).sort()).toEqual(TOPICS);
    // The source's own index line travels with its memory.
    expect(index.find((e) => e.file === 'user_role.md')?.hook).toBe(
      'Data scientist, new to the frontend; explain React in backend terms',
    );

    const second = await runCaptured(['import', 'claude-code', '--from', source, '--json'], io);
    expect(JSON.parse(second.stdout).imported).toEqual([]);
    expect(JSON.parse(second.stdout).skipped.map((s: { reason: string }) => s.reason)).toEqual(
      TOPICS.map(() => 'already imported'),
    );
    const indexAfter = parseIndexEntries(await readFile(join(dir, 'MEMORY.md'), 'utf8'));
    expect(indexAfter).toHaveLength(TOPICS.length);
    // Nothing at the source changed.
    expect(snapshot(source)).toEqual(before);
  });

  it("finds Claude Code's directory for the project by default, and never overwrites a different memory", async () => {
    const claudeDir = join(root, '.claude', 'projects', claudeProjectKey(project), 'memory');
    cpSync(FIXTURE, claudeDir, { recursive: true });
    const io = testIo({ cwd: project, homedir: root });
    const dir = await memoryDir(io);
    await mkdir(dir, { recursive: true });
    const { writeFile } = await import('node:fs/promises');
    await writeFile(
      join(dir, 'user_role.md'),
      '---\nname: mine\ndescription: mine\ntype: user\n---\nMine.\n',
    );
    const run = await runCaptured(['import', 'claude-code'], io);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`from ${claudeDir}`);
    expect(run.stdout).toMatch(/Imported 3 memories/);
    expect(run.stdout).toMatch(/user_role\.md: a different memory with this name is here/);
    expect(await readFile(join(dir, 'user_role.md'), 'utf8')).toContain('Mine.');
  });

  it('names each folder and link it did not copy, and why; a --from relative to --cwd', async () => {
    const source = join(project, 'auto memory');
    cpSync(FIXTURE, source, { recursive: true });
    const { mkdirSync, symlinkSync, writeFileSync } = await import('node:fs');
    mkdirSync(join(source, 'archive'));
    writeFileSync(
      join(source, 'archive', 'old.md'),
      '---\nname: old\ndescription: old\ntype: user\n---\nOld.\n',
    );
    const outside = join(root, 'elsewhere');
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.md'), 'not a memory\n');
    symlinkSync(join(outside, 'secret.md'), join(source, 'linked.md'));
    symlinkSync(outside, join(source, 'shared'));
    // Neither is a memory anywhere in engram: not worth a line.
    writeFileSync(join(source, 'notes.txt'), 'scratch\n');
    writeFileSync(join(source, '.DS_Store'), 'x');
    const io = testIo({ cwd: root, homedir: root });
    const run = await runCaptured(
      ['import', 'claude-code', '--cwd', project, '--from', 'auto memory', '--json'],
      io,
    );
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.from).toBe(source);
    expect(result.imported.sort()).toEqual(TOPICS);
    expect(result.skipped.map((s: { file: string }) => s.file)).toEqual([
      'archive/',
      'linked.md',
      'shared',
    ]);
    const [folder, link, linkedFolder] = result.skipped.map((s: { reason: string }) => s.reason);
    expect(folder).toMatch(/^a folder: only the topic files at the top/);
    expect(link).toMatch(/^a symbolic link: never followed/);
    expect(linkedFolder).toMatch(/^a linked folder: never followed/);
    const text = await runCaptured(
      ['import', 'claude-code', '--cwd', project, '--from', 'auto memory'],
      io,
    );
    expect(text.stdout).toMatch(/ {2}- archive\/: a folder/);
    expect(text.stdout).toMatch(/ {2}- linked\.md: a symbolic link/);
  });

  it('says where it looked when there is nothing to import (exit 3)', async () => {
    const io = testIo({ cwd: project, homedir: root });
    const run = await runCaptured(['import', 'claude-code'], io);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(join(root, '.claude', 'projects'));
  });
});
