import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scanMemoriesCached } from './cached-scan.js';
import {
  clearHeaderCaches,
  HEADER_CACHE_FILE,
  isTrusted,
  persistDirectoryCache,
  readCacheFile,
  TIMESTAMP_GRANULARITY_MS,
} from './header-cache.js';
import { scanMemories } from './scan.js';

const HOUR = 3_600_000;
/** Scans run "later" than the files were written, so entries are trusted (as on a real warm turn). */
/** A clock reading `now` (tests move it by hand). */
const clockAt = (now: () => number) => ({ now, sleep: async () => {} });
const later = () => Date.now() + 10 * TIMESTAMP_GRANULARITY_MS;

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'engram-header-cache-'));
}

function memory(description: string, type = 'feedback'): string {
  return `---\nname: note\ndescription: ${description}\ntype: ${type}\n---\nBody.\n`;
}

function write(dir: string, file: string, text: string, mtimeMs = Date.now() - HOUR): void {
  writeFileSync(join(dir, file), text);
  utimesSync(join(dir, file), mtimeMs / 1000, mtimeMs / 1000);
}

/** What the cache-free reference scan says, for comparison. */
async function reference(dir: string) {
  return (await scanMemories(dir, { cap: Number.POSITIVE_INFINITY })).memories;
}

/** A scan as the next turn of a one-shot process sees it: nothing in memory, the file on disk. */
async function nextProcessScan(dir: string) {
  clearHeaderCaches();
  return scanMemoriesCached(dir, { clock: clockAt(later) });
}

async function warmScan(dir: string) {
  const scan = await scanMemoriesCached(dir, { clock: clockAt(later) });
  await persistDirectoryCache(scan.cache);
  return scan;
}

afterEach(() => clearHeaderCaches());

describe('the header cache', () => {
  it('gives the same headers as the reference scan, and reads nothing on a warm turn', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'team'));
    for (let i = 0; i < 30; i++) write(dir, `m${i}.md`, memory(`fact number ${i}`));
    write(dir, 'team/shared.md', memory('a shared fact'));
    write(dir, 'odd.md', '---\ndescription: "quoted: value"\ntags: [a, b]\n---\nx\n');
    const first = await warmScan(dir);
    expect(first.read).toBe(32);
    expect(first.memories).toEqual(await reference(dir));
    const second = await scanMemoriesCached(dir, { clock: clockAt(later) });
    expect(second.read).toBe(0);
    expect(second.memories).toEqual(await reference(dir));
    const fromFile = await nextProcessScan(dir);
    expect(fromFile.read).toBe(0);
    expect(fromFile.memories).toEqual(await reference(dir));
  });

  it('names each memory by join(dir, file), however the directory is spelled', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'team'));
    write(dir, 'a.md', memory('a fact'));
    write(dir, 'team/b.md', memory('a shared fact'));
    const scan = await scanMemoriesCached(`${dir}/team/..//`, { clock: clockAt(later) });
    expect(scan.memories.map((m) => m.path).sort()).toEqual([
      join(dir, 'a.md'),
      join(dir, 'team', 'b.md'),
    ]);
  });

  it('sees an in-place edit, a rename over, a delete and a new file at the next turn', async () => {
    const dir = tempDir();
    for (const f of ['a.md', 'b.md', 'c.md', 'd.md']) write(dir, f, memory(`about ${f}`));
    await warmScan(dir);
    write(dir, 'a.md', memory('edited in place, now a longer description'));
    write(dir, 'incoming.tmp', memory('replaced by rename'));
    renameSync(join(dir, 'incoming.tmp'), join(dir, 'b.md'));
    rmSync(join(dir, 'c.md'));
    write(dir, 'e.md', memory('a brand new memory'));
    for (const scan of [
      await scanMemoriesCached(dir, { clock: clockAt(later) }),
      await nextProcessScan(dir),
    ]) {
      expect(scan.memories).toEqual(await reference(dir));
      const byFile = new Map(scan.memories.map((m) => [m.file, m.description]));
      expect(byFile.get('a.md')).toBe('edited in place, now a longer description');
      expect(byFile.get('b.md')).toBe('replaced by rename');
      expect(byFile.has('c.md')).toBe(false);
      expect(byFile.get('e.md')).toBe('a brand new memory');
      await persistDirectoryCache(scan.cache);
    }
  });

  it('sees a same-size edit that puts the old mtime back', async () => {
    const dir = tempDir();
    const mtime = Math.floor((Date.now() - HOUR) / 1000) * 1000; // whole seconds, as coarse filesystems keep
    write(dir, 'a.md', memory('alpha'), mtime);
    const before = statSync(join(dir, 'a.md'));
    await warmScan(dir);
    write(dir, 'a.md', memory('omega'), mtime); // same length, same mtime: only ctime moved
    const after = statSync(join(dir, 'a.md'));
    expect([after.size, after.mtimeMs, after.ino]).toEqual([
      before.size,
      before.mtimeMs,
      before.ino,
    ]);
    const scan = await nextProcessScan(dir);
    expect(scan.memories[0]?.description).toBe('omega');
  });

  it('never trusts an entry read within the timestamp granularity of the last change', async () => {
    const dir = tempDir();
    write(dir, 'a.md', memory('alpha'));
    const changed = statSync(join(dir, 'a.md')).ctimeMs;
    // Read "just after" the change: the same second could still hold a same-size edit.
    const soon = () => changed + TIMESTAMP_GRANULARITY_MS / 4;
    expect((await scanMemoriesCached(dir, { clock: clockAt(soon) })).read).toBe(1);
    expect((await scanMemoriesCached(dir, { clock: clockAt(soon) })).read).toBe(1);
    // Once the file has been still for longer than that, the entry stands for it.
    expect((await scanMemoriesCached(dir, { clock: clockAt(later) })).read).toBe(1);
    expect((await scanMemoriesCached(dir, { clock: clockAt(later) })).read).toBe(0);
    expect(isTrusted({ size: 1, mtimeMs: 0, ctimeMs: 0, ino: 1 }, 1)).toBe(false);
  });

  it('rebuilds silently from a corrupt, foreign-version or foreign-directory cache file', async () => {
    const dir = tempDir();
    for (let i = 0; i < 5; i++) write(dir, `m${i}.md`, memory(`fact ${i}`));
    await warmScan(dir);
    const path = join(dir, HEADER_CACHE_FILE);
    const good = readFileSync(path);
    const lie = (bytes: Uint8Array | string) => {
      writeFileSync(path, bytes);
      return nextProcessScan(dir);
    };
    // The file's JSON part edited: every description poisoned, and the format or directory changed.
    const metaLength = good.readUInt32LE(12);
    const blobs = good.subarray((16 + metaLength + 7) & ~7);
    const edited = (edit: (meta: Record<string, unknown>) => void, format = 2) => {
      const meta = JSON.parse(good.toString('utf8', 16, 16 + metaLength));
      for (const h of meta.headers) h.description = 'poisoned';
      edit(meta);
      const json = Buffer.from(JSON.stringify(meta));
      const head = Buffer.from(good.subarray(0, 16));
      head.writeUInt32LE(format, 8);
      head.writeUInt32LE(json.length, 12);
      const pad = Buffer.alloc(((16 + json.length + 7) & ~7) - (16 + json.length));
      return Buffer.concat([head, json, pad, blobs]);
    };
    expect(readCacheFile(dir)?.entries.size).toBe(5);
    expect((await lie(edited(() => undefined))).memories[0]?.description).toBe('poisoned');
    for (const bytes of [
      good.subarray(0, good.length >> 1), // torn
      good.subarray(0, 20),
      Buffer.from('\u0000\u0001binary'),
      '',
      '{"format": 1, "dir": ',
      edited(() => undefined, 999), // another format
      edited((meta) => {
        meta.dir = '/somewhere/else'; // another directory's
      }),
      edited((meta) => {
        meta.ids = { $blob: ['Float64Array', 0, 1e9] }; // pointing past the end
      }),
    ]) {
      const scan = await lie(bytes);
      expect(scan.memories).toEqual(await reference(dir));
      expect(scan.read).toBe(5);
      await persistDirectoryCache(scan.cache);
      expect(readCacheFile(dir)?.entries.size).toBe(5);
    }
  });

  it("reads an entry's derived data only when asked, and keeps it byte for byte otherwise", async () => {
    const dir = tempDir();
    for (let i = 0; i < 3; i++) write(dir, `m${i}.md`, memory(`fact ${i}`));
    const scan = await scanMemoriesCached(dir, { clock: clockAt(later) });
    for (const [file, entry] of scan.cache.entries) entry.derived = { reader: [file, 'é', 1.5] };
    scan.cache.dirty = true;
    await persistDirectoryCache(scan.cache);
    const saved = readCacheFile(dir)!;
    // An untouched entry is written back as it was; a touched one with what it holds now.
    saved.entries.get('m1.md')!.derived = { reader: 'changed' };
    saved.dirty = true;
    await persistDirectoryCache(saved);
    const again = readCacheFile(dir)!;
    expect(again.entries.get('m0.md')!.derived).toEqual({ reader: ['m0.md', 'é', 1.5] });
    expect(again.entries.get('m1.md')!.derived).toEqual({ reader: 'changed' });
    expect(again.entries.get('m2.md')!.derived).toEqual({ reader: ['m2.md', 'é', 1.5] });
  });

  it('is never listed as a memory and leaves no temp or lock file behind', async () => {
    const dir = tempDir();
    write(dir, 'a.md', memory('alpha'));
    await warmScan(dir);
    expect((await reference(dir)).map((m) => m.file)).toEqual(['a.md']);
    expect((await import('node:fs')).readdirSync(dir).filter((n) => n !== 'a.md')).toEqual([
      HEADER_CACHE_FILE,
    ]);
  });

  it('merges with the file another process wrote meanwhile instead of overwriting it', async () => {
    const dir = tempDir();
    write(dir, 'a.md', memory('alpha'));
    const mine = await scanMemoriesCached(dir, { clock: clockAt(later) });
    // Another process, with its own memory, sees a file this one has not seen yet.
    clearHeaderCaches();
    write(dir, 'b.md', memory('beta'));
    const theirs = await scanMemoriesCached(dir, { clock: clockAt(later) });
    await Promise.all([persistDirectoryCache(theirs.cache), persistDirectoryCache(mine.cache)]);
    expect([...readCacheFile(dir)!.entries.keys()].sort()).toEqual(['a.md', 'b.md']);
    expect((await nextProcessScan(dir)).read).toBe(0);
  });
});
