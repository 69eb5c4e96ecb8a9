import {
  link,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendRecallMetrics, emptyRecallShape, readRecallMetrics } from './metrics.js';

const shape = (selected: number) => ({
  ...emptyRecallShape({
    nowMs: Date.parse('2026-11-29T12:00:00Z'),
    sessionBytes: 0,
    sessionBudgetBytes: 61_440,
    staleAfterDays: 30,
  }),
  selected,
});

describe('appendRecallMetrics', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'engram-metrics-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('has the line on disk once its promise settles, in order, making the missing folder', async () => {
    const log = join(root, '.engram', 'recall-metrics.jsonl');
    await appendRecallMetrics(log, shape(1));
    await appendRecallMetrics(log, shape(2));
    const { shapes, badLines } = await readRecallMetrics(log);
    expect(badLines).toBe(0);
    expect(shapes.map((s) => s.selected)).toEqual([1, 2]);
    expect((await stat(log)).mode & 0o777).toBe(0o600);
    expect((await readFile(log, 'utf8')).endsWith('\n')).toBe(true);
  });

  it('rejects (so recall can report it) when the log cannot be written', async () => {
    const blocker = join(root, 'not-a-folder');
    await writeFile(blocker, 'x');
    await expect(
      appendRecallMetrics(join(blocker, 'recall-metrics.jsonl'), shape(1)),
    ).rejects.toThrow(/not a folder/);
  });

  it('never appends through a linked .engram folder, a linked log or a hard link', async () => {
    const outside = join(root, 'outside');
    await mkdir(outside);
    const victim = join(outside, 'victim.txt');
    await writeFile(victim, 'outside sentinel\n');
    const viaFolder = join(root, 'a');
    await mkdir(viaFolder);
    await symlink(outside, join(viaFolder, '.engram'));
    await expect(
      appendRecallMetrics(join(viaFolder, '.engram', 'victim.txt'), shape(1)),
    ).rejects.toThrow(/symbolic link/);
    const viaFile = join(root, 'b', '.engram');
    await mkdir(viaFile, { recursive: true });
    await symlink(victim, join(viaFile, 'recall-metrics.jsonl'));
    await expect(
      appendRecallMetrics(join(viaFile, 'recall-metrics.jsonl'), shape(1)),
    ).rejects.toThrow(/symbolic link/);
    const viaHardLink = join(root, 'c', '.engram');
    await mkdir(viaHardLink, { recursive: true });
    await link(victim, join(viaHardLink, 'recall-metrics.jsonl'));
    await expect(
      appendRecallMetrics(join(viaHardLink, 'recall-metrics.jsonl'), shape(1)),
    ).rejects.toThrow(/hard link/);
    expect(await readFile(victim, 'utf8')).toBe('outside sentinel\n');
    expect(await readdir(outside)).toEqual(['victim.txt']);
  });
});
