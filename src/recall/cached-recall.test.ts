import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  clearHeaderCaches,
  readCacheFile,
  TIMESTAMP_GRANULARITY_MS,
} from '../memdir/header-cache.js';
import {
  analyzeForRanking,
  createOfflineRanker,
  restoreOfflineRanker,
  snapshotOfflineRanker,
} from './offline-ranker.js';
import { recall } from './recall.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');
const DAY = 86_400_000;
const TOPICS = [
  'deploy canary rollback staging',
  'kubelet eviction pods memory pressure',
  'oauth session cookie login',
  'queue worker retry timeout',
  'vitest snapshot flaky fixture',
  'terraform module region bucket',
];
const QUERIES = [
  'why does the kubelet keep evicting pods',
  'how do we roll back a canary deploy',
  'the queue worker keeps retrying after a timeout',
  'what is the capital of France',
];

function writeMemories(dir: string, count: number, from = 0): void {
  for (let i = from; i < from + count; i++) {
    const topic = TOPICS[i % TOPICS.length]!;
    const type = ['user', 'feedback', 'project', 'reference'][i % 4];
    const path = join(dir, `m-${String(i).padStart(4, '0')}.md`);
    writeFileSync(
      path,
      `---\nname: note ${i}\ndescription: ${topic} note ${i}\ntype: ${type}\n---\nRule ${i} about ${topic}.\n**Why:** reasons.\n**How to apply:** always.\n`,
    );
    const mtime = (NOW - (i % 90) * DAY) / 1000;
    utimesSync(path, mtime, mtime);
  }
}

/** Recall with no cache anywhere: the reference every cached path must equal byte for byte. */
async function uncached(dir: string, query: string, alreadySurfaced: string[] = []) {
  clearHeaderCaches();
  const result = await recall({ dir, query, now: NOW, alreadySurfaced, persistedCache: false });
  clearHeaderCaches();
  return result.text;
}

describe('recall through the header cache', () => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'engram-cached-recall-'));
    writeMemories(dir, 260);
    // Let the files age past the timestamp granularity, so cache entries are trusted and reused.
    await sleep(TIMESTAMP_GRANULARITY_MS + 200);
  });

  it('injects exactly the bytes recall gives without a cache: first, warm and next-process turns', async () => {
    for (const query of QUERIES) {
      for (const surfaced of [[], ['m-0001.md', 'm-0007.md']]) {
        const expected = await uncached(dir, query, surfaced);
        const run = () => recall({ dir, query, now: NOW, alreadySurfaced: surfaced });
        const first = await run(); // writes the cache file
        const warm = await run(); // this process's memory
        clearHeaderCaches();
        const nextProcess = await run(); // the cache file only
        for (const r of [first, warm, nextProcess]) {
          expect(r.text).toBe(expected);
          expect(r.complete).toBe(true);
        }
      }
    }
    expect((await uncached(dir, QUERIES[0]!)).length).toBeGreaterThan(0);
    // The next-process turns above ranked with the index saved in the cache file.
    const saved = readCacheFile(dir)!;
    expect([...saved.artifacts.keys()].some((k) => k.startsWith('index-'))).toBe(true);
  });

  it('ranks with a saved index exactly as with the index it was saved from', () => {
    const memories = TOPICS.flatMap((topic, t) =>
      Array.from({ length: 40 }, (_, i) => ({
        file: `t${t}-${i}.md`,
        type: (['user', 'feedback', 'project', 'reference'] as const)[i % 4]!,
        name: `${topic} ${i}`,
        description: `${topic} detail ${i % 7} café 用pnpm安装`,
        mtimeMs: NOW - i * DAY,
      })),
    );
    const built = createOfflineRanker(memories);
    const snapshot = structuredClone(snapshotOfflineRanker(built)!);
    const restored = restoreOfflineRanker(snapshot, memories, analyzeForRanking);
    expect(restored).toBeDefined();
    for (const query of [...QUERIES, 'pnpm 安装', 'cafe detail 3']) {
      for (const options of [{ nowMs: NOW }, { nowMs: NOW, limit: 500, requireOverlap: false }]) {
        expect(restored!.rank(query, options)).toEqual(built.rank(query, options));
      }
    }
    // Over other memories than it was saved from, a snapshot is refused, never misused.
    expect(restoreOfflineRanker(snapshot, memories.slice(1), analyzeForRanking)).toBeUndefined();
    const broken = [
      { docs: new Int32Array([1, 2]) }, // postings of another length than the weights
      { docs: snapshot.word.docs.map(() => memories.length) }, // a document past the last
      { offsets: snapshot.word.offsets.map((o, i) => (i === 1 ? -1 : o)) }, // out of order
      { terms: snapshot.word.terms.replaceAll('\n', ' ') }, // terms not where they start
      { lengths: snapshot.word.lengths.subarray(1) },
      { table: snapshot.word.table.map(() => 0) }, // no free slot: a probe for a missing term never ends
      { table: snapshot.word.table.subarray(1) }, // not a power of two
      { table: snapshot.word.table.map((t) => (t === -1 ? -1 : t + 1e6)) }, // no such term
    ];
    for (const change of broken) {
      const word = { ...snapshot.word, ...change };
      expect(
        restoreOfflineRanker({ ...snapshot, word }, memories, analyzeForRanking),
      ).toBeUndefined();
    }
  });

  it('sees an edited memory at the next turn, with the same bytes as without a cache', async () => {
    const query = 'which terraform region holds the backup bucket';
    await recall({ dir, query, now: NOW });
    writeFileSync(
      join(dir, 'm-0005.md'),
      '---\nname: backups\ndescription: terraform backup bucket lives in region eu-west-3\ntype: project\n---\nThe backup bucket is in eu-west-3.\n**Why:** law.\n**How to apply:** check it.\n',
    );
    const warm = await recall({ dir, query, now: NOW });
    expect(warm.selected[0]?.file).toBe('m-0005.md');
    expect(warm.text).toBe(await uncached(dir, query));
    clearHeaderCaches();
    expect((await recall({ dir, query, now: NOW })).text).toBe(await uncached(dir, query));
  });

  it('stops scanning and ranking when the budget runs out and uses what was ready', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'engram-budget-'));
    writeMemories(fresh, 400);
    clearHeaderCaches();
    // A clock that advances one "millisecond" per look: the budget ends after a fixed amount of work.
    let t = 0;
    const clock = () => t++;
    const partial = await recall({
      dir: fresh,
      query: QUERIES[0]!,
      now: NOW,
      budgetMs: 60,
      budgetClock: clock,
      persistedCache: false,
    });
    expect(partial.complete).toBe(false);
    expect(partial.notes.join('\n')).toMatch(/60 ms budget ran out/);
    expect(partial.shape.total).toBe(400);
    // Nothing is thrown away: what was scanned in time is ranked and injected.
    expect(partial.selected.length).toBeGreaterThan(0);

    t = 0;
    const none = await recall({
      dir: fresh,
      query: QUERIES[0]!,
      now: NOW,
      budgetMs: 0,
      budgetClock: clock,
    });
    expect(none.complete).toBe(false);
    expect(none.text).toBe('');

    const full = await recall({ dir: fresh, query: QUERIES[0]!, now: NOW, budgetMs: 60_000 });
    expect(full.complete).toBe(true);
    expect(full.text).toBe(await uncached(fresh, QUERIES[0]!));
  });
});
