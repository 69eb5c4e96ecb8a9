import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  auditMemoryDir,
  INDEX_FILE,
  parseFrontmatter,
  parseIndexEntries,
} from '../src/memdir/index.js';

const LOOP = join(import.meta.dirname, 'fixtures', 'save-loop.mjs');

beforeAll(() => {
  if (!existsSync(join(import.meta.dirname, '..', 'dist', 'memdir', 'index.js'))) {
    throw new Error(
      'These tests drive the built library in child processes: run `npm run build` first.',
    );
  }
});

function run(args: string[]): ChildProcess {
  return spawn(process.execPath, [LOOP, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('memory directory under real processes', () => {
  it('two processes saving 200 memories each end with 400 files and 400 index lines', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-concurrent-'));
    const a = run([dir, 'alpha', '200']);
    const b = run([dir, 'beta', '200']);
    const [codeA, codeB] = await Promise.all([exited(a), exited(b)]);
    expect([codeA, codeB]).toEqual([0, 0]);
    const files = readdirSync(dir).filter((f) => f.endsWith('.md') && f !== INDEX_FILE);
    expect(files).toHaveLength(400);
    const entries = parseIndexEntries(readFileSync(join(dir, INDEX_FILE), 'utf8'));
    expect(entries).toHaveLength(400);
    expect(new Set(entries.map((e) => e.file))).toEqual(new Set(files));
    // 400 lines is over the index caps, which the audit rightly reports; nothing else may be wrong.
    const kinds = new Set((await auditMemoryDir(dir)).problems.map((p) => p.kind));
    expect(kinds).toEqual(new Set(['index_over_lines', 'index_over_bytes']));
  }, 60_000);

  it('a writer killed with SIGKILL again and again leaves only complete files, and audit names every orphan', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-crash-'));
    for (let round = 0; round < 12; round++) {
      const child = run([dir, `r${round}`, 'forever']);
      await new Promise<void>((resolve) => child.stdout?.once('data', () => resolve()));
      await sleep(5 + ((round * 37) % 60));
      child.kill('SIGKILL');
      await exited(child);
    }
    const files = readdirSync(dir).filter(
      (f) => f.endsWith('.md') && f !== INDEX_FILE && !f.startsWith('.'),
    );
    expect(files.length).toBeGreaterThan(12);
    for (const file of files) {
      const fm = parseFrontmatter(readFileSync(join(dir, file), 'utf8'));
      expect(fm.found, file).toBe(true);
      expect(fm.data.description, file).toMatch(/^fact number \d+ written by r\d+$/);
      expect(readFileSync(join(dir, file), 'utf8').endsWith('\n')).toBe(true);
    }
    const indexText = readFileSync(join(dir, INDEX_FILE), 'utf8');
    expect(indexText === '' || indexText.endsWith('\n')).toBe(true);
    const indexed = new Set(parseIndexEntries(indexText).map((e) => e.file));
    // Every index line points at a complete file: the file is written before its pointer.
    for (const file of indexed) expect(files).toContain(file);
    const expectedOrphans = files.filter((f) => !indexed.has(f)).sort();
    const report = await auditMemoryDir(dir);
    const orphans = report.problems
      .filter((p) => p.kind === 'orphan')
      .map((p) => p.file)
      .sort();
    expect(orphans).toEqual(expectedOrphans);
    // A writer killed while it held the index lock leaves that lock behind: the audit names it
    // (and `audit --fix` clears it), which is a finding this crash is expected to cause.
    const allowed = [
      'orphan',
      'leftover_temp',
      'index_over_lines',
      'index_over_bytes',
      'dead_lock_holder',
      'stale_lock_file',
    ];
    const unexpected = report.problems.filter((p) => !allowed.includes(p.kind));
    expect(unexpected).toEqual([]);
    // What the crashes left (temp files, the dead writer's lock) is what --fix clears.
    await auditMemoryDir(dir, { fix: true });
    const leftovers = ['leftover_temp', 'dead_lock_holder', 'stale_lock_file'];
    const after = (await auditMemoryDir(dir)).problems.filter((p) => leftovers.includes(p.kind));
    expect(after).toEqual([]);
  }, 120_000);
});
