import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanMemoriesCached } from '../src/memdir/cached-scan.js';
import { clearHeaderCaches, HEADER_CACHE_FILE, readCacheFile } from '../src/memdir/header-cache.js';
import { scanMemories } from '../src/memdir/scan.js';

const ROOT = resolve(import.meta.dirname, '..');
const DIST = join(ROOT, 'dist');
const LOOP = join(ROOT, 'test/fixtures/recall-loop.mjs');

function memoryDir(count: number): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'engram-cache-procs-')), 'memory');
  mkdirSync(dir);
  for (let i = 0; i < count; i++) {
    writeFileSync(
      join(dir, `base-${i}.md`),
      `---\nname: base ${i}\ndescription: base fact ${i} about deploys\ntype: feedback\n---\nBody.\n`,
    );
  }
  return dir;
}

function runLoop(dir: string, tag: string, count: number): Promise<number | null> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [LOOP, DIST, dir, tag, String(count)], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.once('error', fail);
    child.once('exit', done);
  });
}

describe('the header cache file across processes', () => {
  it('two processes recalling at once leave a whole, correct cache file naming every memory', {
    timeout: 120_000,
  }, async () => {
    const dir = memoryDir(40);
    const codes = await Promise.all([runLoop(dir, 'a', 15), runLoop(dir, 'b', 15)]);
    expect(codes).toEqual([0, 0]);
    const saved = { entries: Object.fromEntries(readCacheFile(dir)!.entries) };
    const files = readdirSync(dir).filter((f) => f.endsWith('.md'));
    expect(files).toHaveLength(70);
    expect(Object.keys(saved.entries).sort()).toEqual(files.sort());
    // And what it holds is right: a process starting from it sees what the reference scan sees.
    clearHeaderCaches();
    const fromCache = await scanMemoriesCached(dir);
    expect(fromCache.memories).toEqual(
      (await scanMemories(dir, { cap: Number.POSITIVE_INFINITY })).memories,
    );
    // No temp file or lock left behind.
    expect(readdirSync(dir).filter((f) => f.startsWith('.'))).toEqual([HEADER_CACHE_FILE]);
  });

  it('recalls from a directory larger than the open-file limit (no EMFILE)', () => {
    const dir = memoryDir(600);
    const result = spawnSync(
      'bash',
      [
        '-c',
        `ulimit -n 200 && exec "${process.execPath}" "${join(DIST, 'cli/main.js')}" recall --dir "${dir}" --model offline --no-log --json "what do we know about deploys"`,
      ],
      { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: dirname(dir) } },
    );
    expect(result.stderr).not.toMatch(/EMFILE/);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout).selected.length).toBeGreaterThan(0);
  });
});
