import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { scanMemoriesCached } from '../src/memdir/cached-scan.js';
import {
  clearHeaderCaches,
  HEADER_CACHE_FILE,
  readCacheFile,
  TIMESTAMP_GRANULARITY_MS,
} from '../src/memdir/header-cache.js';
import { scanMemories } from '../src/memdir/scan.js';

const ROOT = resolve(import.meta.dirname, '..');
const DIST = join(ROOT, 'dist');
const LOOP = join(ROOT, 'test/fixtures/recall-loop.mjs');
const ONCE = join(ROOT, 'test/fixtures/recall-once.mjs');

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

type Kind = 'library' | 'one-shot';

function runLoop(
  dir: string,
  tag: string,
  count: number,
  kind: Kind = 'library',
): Promise<number | null> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [LOOP, DIST, dir, tag, String(count), kind], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.once('error', fail);
    child.once('exit', done);
  });
}

describe('the header cache file across processes', () => {
  // A one-shot process (the in-process hook, the CLI) makes its file calls synchronously: the same
  // lock, the same merge, the same atomic rename as a library caller's thread-pool calls.
  it.each<[Kind, Kind]>([
    ['library', 'library'],
    ['one-shot', 'one-shot'],
    ['one-shot', 'library'],
  ])(
    'two processes (%s, %s) recalling at once leave a whole, correct cache file naming every memory',
    {
      timeout: 120_000,
    },
    async (first, second) => {
      const dir = memoryDir(40);
      const codes = await Promise.all([
        runLoop(dir, 'a', 15, first),
        runLoop(dir, 'b', 15, second),
      ]);
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
    },
  );

  it('a one-shot process writes the cache file a library process reads: same entries, same bytes', async () => {
    const dir = memoryDir(30);
    // Files changed within the timestamp granularity are not trusted from a cache: let them age.
    await sleep(TIMESTAMP_GRANULARITY_MS + 100);
    const now = Date.now();
    const query = 'base fact 7 about deploys';
    const once = (kind: Kind) => {
      const run = spawnSync(process.execPath, [ONCE, DIST, dir, query, String(now), kind], {
        encoding: 'utf8',
      });
      expect(run.stderr).toBe('');
      return JSON.parse(run.stdout) as { text: string; kind: string };
    };
    const cacheFile = join(dir, HEADER_CACHE_FILE);
    const library = once('library');
    const libraryFile = readCacheFile(dir)!;
    rmSync(cacheFile);
    const oneShot = once('one-shot');
    expect([library.kind, oneShot.kind]).toEqual(['library', 'one-shot']);
    expect(oneShot.text).toBe(library.text);
    expect(library.text).toContain('base fact 7');
    // The same file, but for the generation stamp (each process's own): every entry, identity,
    // trust flag, header and derived analysis, and the saved index.
    const oneShotFile = readCacheFile(dir)!;
    const plain = (cache: NonNullable<ReturnType<typeof readCacheFile>>) => ({
      entries: [...cache.entries].map(([file, e]) => [file, e.id, e.trusted, e.header, e.derived]),
      artifacts: [...cache.artifacts].map(([name, a]) => [
        name,
        a.generation === cache.generation,
        JSON.stringify(a.value, (_k, v) => (ArrayBuffer.isView(v) ? [...(v as Uint8Array)] : v)),
      ]),
    });
    expect(plain(oneShotFile)).toEqual(plain(libraryFile));
    expect(oneShotFile.artifacts.size).toBeGreaterThan(0);
    expect(readdirSync(dir).filter((f) => f.startsWith('.'))).toEqual([HEADER_CACHE_FILE]);
    expect(oneShotFile.entries.size).toBe(30);
    expect([...oneShotFile.entries.values()].every((e) => e.trusted)).toBe(true);
    // And a process starting from it reads no memory file's header again.
    clearHeaderCaches();
    expect((await scanMemoriesCached(dir)).read).toBe(0);
    expect(once('library').text).toBe(library.text);
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
