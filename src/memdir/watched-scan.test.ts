import {
  chmodSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  stat as statFs,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scanMemoriesCached } from './cached-scan.js';
import {
  clearHeaderCaches,
  HEADER_CACHE_FILE,
  persistDirectoryCache,
  TIMESTAMP_GRANULARITY_MS,
} from './header-cache.js';
import { scanMemories } from './scan.js';
import { closeTreeWatches, watchableFilesystem } from './tree-watch.js';

const HOUR = 3_600_000;
/** Scans run "later" than the files were written, so entries are trusted (as on a real warm turn). */
const later = { now: () => Date.now() + 10 * TIMESTAMP_GRANULARITY_MS, sleep: async () => {} };

function memory(description: string, body = 'Body.'): string {
  return `---\nname: note\ndescription: ${description}\ntype: feedback\n---\n${body}\n`;
}

function write(dir: string, file: string, text: string, mtimeMs = Date.now() - HOUR): void {
  writeFileSync(join(dir, file), text);
  utimesSync(join(dir, file), mtimeMs / 1000, mtimeMs / 1000);
}

/** A turn of a long-running host: the scan, then the cache file written as recall writes it. */
async function turn(dir: string) {
  const scan = await scanMemoriesCached(dir, { clock: later });
  await persistDirectoryCache(scan.cache);
  return scan;
}

/** What the directory holds, read without any cache. */
async function reference(dir: string) {
  return (await scanMemories(dir, { cap: Number.POSITIVE_INFINITY })).memories;
}

let dir: string;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'engram-watched-'));
  mkdirSync(join(dir, 'team'));
  write(dir, 'a.md', memory('alpha deploys go through the canary'));
  write(dir, 'b.md', memory('bravo queue retries three times'));
  write(dir, 'team/c.md', memory('charlie owns the billing service'));
  // First turn: never the watch. Second: a full scan that arms it. Third: quiet.
  expect((await turn(dir)).checked).toBe(3);
  expect((await turn(dir)).checked).toBe(3);
});

afterEach(() => {
  closeTreeWatches();
  clearHeaderCaches();
});

const edits: Array<[string, (dir: string) => void]> = [
  ['an edit in place', (d) => writeFileSync(join(d, 'a.md'), memory('alpha deploys now skip it'))],
  [
    'a same-size edit that keeps the mtime',
    (d) => {
      const before = statSync(join(d, 'a.md'));
      writeFileSync(join(d, 'a.md'), memory('alpha deploys go through the CANARY'));
      utimesSync(join(d, 'a.md'), before.atime, before.mtime);
    },
  ],
  [
    'a rename over the file',
    (d) => {
      writeFileSync(join(d, 'next.tmp'), memory('bravo queue retries five times'));
      renameSync(join(d, 'next.tmp'), join(d, 'b.md'));
    },
  ],
  ['a delete', (d) => rmSync(join(d, 'b.md'))],
  ['a new file', (d) => write(d, 'd.md', memory('delta is the new dashboard'))],
  [
    'an edit in a subfolder',
    (d) => writeFileSync(join(d, 'team/c.md'), memory('charlie moved to payments')),
  ],
  [
    'a new subfolder with a memory',
    (d) => {
      mkdirSync(join(d, 'new'));
      write(d, 'new/e.md', memory('echo lives in a new folder'));
    },
  ],
  ['a subfolder renamed', (d) => renameSync(join(d, 'team'), join(d, 'crew'))],
  ['a subfolder removed', (d) => rmSync(join(d, 'team'), { recursive: true })],
  ['a dot folder made visible', (d) => renameSync(join(d, 'team'), join(d, '.team'))],
  ['a file made unreadable', (d) => chmodSync(join(d, 'a.md'), 0o000)],
  ['a second name (hard link) for a file', (d) => linkSync(join(d, 'a.md'), join(d, 'z.md'))],
];

describe.skipIf(!watchableFilesystem(tmpdir()))('a watched memory directory', () => {
  it('costs a quiet turn no look at any file, and engram writing its own dot files keeps it quiet', async () => {
    const quiet = await turn(dir);
    expect(quiet.checked).toBe(0);
    expect(quiet.watchEpoch).toBeDefined();
    expect(quiet.memories).toEqual(await reference(dir));
    writeFileSync(join(dir, HEADER_CACHE_FILE), '{}');
    mkdirSync(join(dir, '.engram'), { recursive: true });
    writeFileSync(join(dir, '.engram', 'recall-metrics.jsonl'), '{}\n');
    expect((await turn(dir)).checked).toBe(0);
  });

  for (const [kind, edit] of edits) {
    it(`sees ${kind} at the very next turn, then is quiet again`, async () => {
      const before = await turn(dir);
      expect(before.checked).toBe(0);
      edit(dir);
      const next = await turn(dir);
      expect(next.checked).toBeGreaterThan(0);
      expect(next.memories).toEqual(await reference(dir));
      expect(next.watchEpoch).not.toBe(before.watchEpoch);
      // The turn after that is quiet again, with what the directory now holds (a file too fresh
      // to trust by stat keeps the turns full until it is not).
      const after = await turn(dir);
      expect(after.memories).toEqual(await reference(dir));
    });
  }

  it('sees an edit made just before a turn that starts inside an I/O callback (the poll phase)', async () => {
    for (let i = 0; i < 5; i++) {
      expect((await turn(dir)).checked).toBe(0);
      const next = await new Promise<Awaited<ReturnType<typeof turn>>>((resolve, reject) => {
        statFs(dir, () => {
          writeFileSync(join(dir, 'a.md'), memory(`alpha deploys, take ${i}`));
          turn(dir).then(resolve, reject);
        });
      });
      expect(next.memories.find((m) => m.file === 'a.md')!.description).toBe(
        `alpha deploys, take ${i}`,
      );
      utimesSync(join(dir, 'a.md'), (Date.now() - HOUR) / 1000, (Date.now() - HOUR) / 1000);
      await turn(dir); // the touch above is an event too: take it in
    }
  });

  it('sees the directory itself replaced by another folder at the same path', async () => {
    expect((await turn(dir)).checked).toBe(0);
    renameSync(dir, `${dir}-old`);
    mkdirSync(dir);
    write(dir, 'x.md', memory('x-ray in the new folder'));
    const next = await turn(dir);
    expect(next.checked).toBe(1);
    expect(next.memories.map((m) => m.file)).toEqual(['x.md']);
  });

  it('sees a parent folder swapped (no event reaches the watched folders)', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'engram-watched-parent-'));
    const memories = join(parent, 'p', 'memory');
    mkdirSync(memories, { recursive: true });
    write(memories, 'a.md', memory('alpha in the first tree'));
    await turn(memories);
    await turn(memories);
    expect((await turn(memories)).checked).toBe(0);
    renameSync(join(parent, 'p'), join(parent, 'p-old'));
    mkdirSync(memories, { recursive: true });
    write(memories, 'a.md', memory('alpha in the second tree'));
    const next = await turn(memories);
    expect(next.checked).toBe(1);
    expect(next.memories[0]!.description).toBe('alpha in the second tree');
    // Watched again where the path now leads: an edit in the new tree is seen too.
    await turn(memories);
    writeFileSync(join(memories, 'a.md'), memory('alpha edited in the second tree'));
    expect((await turn(memories)).memories[0]!.description).toBe('alpha edited in the second tree');
  });

  it('watches a folder put where a watched one was (a folder moved away keeps its old watch)', async () => {
    // Between two turns: the watched folder moves away and a new one takes its path.
    renameSync(join(dir, 'team'), join(dir, 'crew'));
    mkdirSync(join(dir, 'team'));
    write(dir, 'team/f.md', memory('foxtrot in the new team folder'));
    await turn(dir);
    expect((await turn(dir)).checked).toBe(0);
    writeFileSync(join(dir, 'team/f.md'), memory('foxtrot edited in the new folder'));
    const next = await turn(dir);
    expect(next.memories.find((m) => m.file === 'team/f.md')!.description).toBe(
      'foxtrot edited in the new folder',
    );
    expect(next.memories).toEqual(await reference(dir));
  });

  it('two scans at once: the one that began last decides, and no change is lost', async () => {
    expect((await turn(dir)).checked).toBe(0);
    writeFileSync(join(dir, 'a.md'), memory('alpha changed before both scans'));
    const [first, second] = await Promise.all([turn(dir), turn(dir)]);
    expect(first.memories).toEqual(await reference(dir));
    expect(second.memories).toEqual(await reference(dir));
    writeFileSync(join(dir, 'b.md'), memory('bravo changed after both'));
    expect((await turn(dir)).memories).toEqual(await reference(dir));
  });

  it('is not used when watching is turned off: every turn revalidates by stat', async () => {
    expect((await turn(dir)).checked).toBe(0);
    closeTreeWatches();
    const scan = () => scanMemoriesCached(dir, { clock: later, watch: false });
    expect((await scan()).checked).toBe(3);
    expect((await scan()).checked).toBe(3);
  });
});

describe('a scan that cannot be watched', () => {
  it('revalidates by stat every turn and still sees every edit', async () => {
    const previous = process.env.ENGRAM_NO_WATCH;
    process.env.ENGRAM_NO_WATCH = '1';
    try {
      expect((await turn(dir)).checked).toBe(3);
      writeFileSync(join(dir, 'a.md'), memory('alpha deploys now skip it'));
      const next = await turn(dir);
      expect(next.checked).toBe(3);
      expect(next.memories).toEqual(await reference(dir));
    } finally {
      if (previous === undefined) delete process.env.ENGRAM_NO_WATCH;
      else process.env.ENGRAM_NO_WATCH = previous;
    }
  });
});
