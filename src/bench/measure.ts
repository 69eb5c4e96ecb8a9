import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { scanMemories } from '../memdir/scan.js';
import { isRecallable } from '../recall/candidates.js';
import { createOfflineRanker } from '../recall/offline-ranker.js';
import { offlineRankerFor } from '../recall/ranker-cache.js';
import { recall } from '../recall/recall.js';

const FLOOR_HEAD_BYTES = 4096;

/**
 * The least any file-based recall must do: list the directory, stat every file (for its mtime)
 * and read the first 4 KB of each (for its frontmatter). Same concurrency as the scan.
 */
export async function filesystemFloor(dir: string): Promise<number> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.md'));
  let bytes = 0;
  await Promise.all(
    names.map(async (name) => {
      const path = join(dir, name);
      await stat(path);
      const handle = await open(path, 'r');
      try {
        const buf = Buffer.allocUnsafe(FLOOR_HEAD_BYTES);
        const { bytesRead } = await handle.read(buf, 0, FLOOR_HEAD_BYTES, 0);
        bytes += bytesRead; // after the await: `bytes += await …` would lose concurrent updates
      } finally {
        await handle.close();
      }
    }),
  );
  return bytes;
}

/** engram's recall scan alone: every header, no cap (what recall reads each turn). */
export async function scanOnly(dir: string): Promise<number> {
  return (await scanAll(dir)).memories.length;
}

/** Scan, then rank with an index built from scratch: a one-shot process (the CLI). */
export async function scanAndRankCold(dir: string, query: string, nowMs: number): Promise<number> {
  const scan = await scanAll(dir);
  return createOfflineRanker(scan.memories.filter(isRecallable)).rank(query, { nowMs }).length;
}

/** Scan, then rank with the index a long-lived host kept from its previous turn. */
export async function scanAndRankWarm(dir: string, query: string, nowMs: number): Promise<number> {
  const scan = await scanAll(dir);
  return offlineRankerFor(scan.memories.filter(isRecallable)).rank(query, { nowMs }).length;
}

/** The whole offline read path in a host (warm index): candidates, ranking, reading, rendering. */
export async function offlineRecall(dir: string, query: string, nowMs: number): Promise<number> {
  return (await recall({ dir, query, now: nowMs })).selected.length;
}

// A full collection before each sample, so no contender pays for the garbage of the one before it
// (the cold ranker allocates a whole index; its collection used to land in the next sample).
v8.setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

export async function timeIt(fn: () => Promise<unknown>): Promise<number> {
  collectGarbage();
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function scanAll(dir: string) {
  return scanMemories(dir, { cap: Number.POSITIVE_INFINITY });
}
