/**
 * The offline ranker of a directory, built from the header cache: each memory's analysis is kept
 * with its cache entry (in memory, and in the cache file for one-shot processes), and the whole
 * index is kept in memory while the directory's generation is unchanged. Built step by step with
 * returns to the event loop, and cut short (what is ready is ranked) when time runs out.
 */
import { SLICE_MS, yieldToLoop } from '../memdir/cached-scan.js';
import type { DirectoryCache } from '../memdir/header-cache.js';
import type { MemoryHeader } from '../memdir/types.js';
import {
  analyzeForRanking,
  buildOfflineRanker,
  type OfflineRanker,
  RANKER_ANALYSIS_VERSION,
  RANKER_TUNING,
  type RankerDocument,
} from './offline-ranker.js';

let analysisKey: string | undefined;

/**
 * Names the analysis kept in cache entries. It changes with the analyzer: its version constant,
 * the tuning, and what it makes of a probe text (so a changed stemmer or tokenizer never reuses an
 * old analysis even if nobody bumped the version).
 */
function rankerAnalysisKey(): string {
  if (analysisKey !== undefined) return analysisKey;
  const probe = analyzeForRanking({
    file: 'probe.md',
    type: 'feedback',
    name: 'Running migrations: staging databases, retries and timeouts',
    description:
      'Children’s bookings were cancelled; we re-ran 3 jobs at 10:30 — 用pnpm安装 façade',
    mtimeMs: 0,
  });
  const text = JSON.stringify([RANKER_ANALYSIS_VERSION, RANKER_TUNING, probe]);
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  analysisKey = `ranker-${(hash >>> 0).toString(16)}`;
  return analysisKey;
}

const live = new WeakMap<DirectoryCache, { generation: string; ranker: OfflineRanker }>();

export interface CachedRanker {
  ranker: OfflineRanker;
  /** False when time ran out: memories not analyzed in time are missing from this ranker. */
  complete: boolean;
}

/**
 * The ranker over `memories` (the recallable headers of a scan of `cache`'s directory). Reused
 * as is when the scan was complete and nothing changed since it was built.
 */
export async function cachedRankerFor(
  cache: DirectoryCache,
  memories: readonly MemoryHeader[],
  options: { scanComplete: boolean; expired: () => boolean },
): Promise<CachedRanker> {
  const hit = live.get(cache);
  if (options.scanComplete && hit?.generation === cache.generation) {
    return { ranker: hit.ranker, complete: true };
  }
  const key = rankerAnalysisKey();
  let complete = options.scanComplete;
  const analysis = (memory: MemoryHeader): RankerDocument | undefined => {
    const entry = cache.entries.get(memory.file);
    const own = entry?.header === memory ? entry : undefined;
    const kept = own?.derived[key] as RankerDocument | undefined;
    if (kept !== undefined) return kept;
    if (options.expired()) {
      complete = false;
      return undefined;
    }
    const doc = analyzeForRanking(memory);
    if (own) {
      own.derived = { [key]: doc }; // drops analyses of other analyzer versions
      cache.dirty = true;
    }
    return doc;
  };
  const generation = cache.generation;
  const steps = buildOfflineRanker(memories, analysis);
  let sliceStart = performance.now();
  let ranker: OfflineRanker;
  for (;;) {
    const step = steps.next();
    if (step.done) {
      ranker = step.value;
      break;
    }
    if (performance.now() - sliceStart > SLICE_MS) {
      await yieldToLoop();
      sliceStart = performance.now();
    }
  }
  // Another recall may have changed the cache while this one paused: keep only a current index.
  if (complete && cache.generation === generation) live.set(cache, { generation, ranker });
  return { ranker, complete };
}
