/**
 * The offline ranker of a directory, built from the header cache: each memory's analysis is kept
 * with its cache entry (in memory, and in the cache file for one-shot processes), and the whole
 * index is kept in memory while the directory's generation is unchanged. Built step by step with
 * returns to the event loop, and cut short (what is ready is ranked) when time runs out.
 */
import type { DirectoryCache } from '../memdir/header-cache.js';
import type { MemoryHeader } from '../memdir/types.js';
import { SLICE_MS, yieldToLoop } from '../util/yield-to-loop.js';
import {
  analyzeForRanking,
  analyzeForStorage,
  buildOfflineRanker,
  type OfflineRanker,
  type OfflineRankerSnapshot,
  RANKER_ANALYSIS_VERSION,
  RANKER_TUNING,
  type RankerDocument,
  rankerDocumentFrom,
  restoreOfflineRanker,
  type StoredRankerDocument,
  snapshotOfflineRankerSteps,
} from './offline-ranker.js';

let analysisKey: string | undefined;

/**
 * Names the analysis kept in cache entries. It changes with the analyzer: its version constant,
 * the tuning, and what it makes of a probe text (so a changed stemmer or tokenizer never reuses an
 * old analysis even if nobody bumped the version).
 */
function rankerAnalysisKey(): string {
  if (analysisKey !== undefined) return analysisKey;
  const probe = analyzeForStorage({
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
  // Two recalls at once over an unchanged directory (a warm-up and the first call) share one build.
  const pending = inFlight.get(cache);
  if (options.scanComplete && pending?.generation === cache.generation) return pending.build;
  const build = buildRanker(cache, memories, options);
  if (options.scanComplete) {
    const entry = { generation: cache.generation, build };
    inFlight.set(cache, entry);
    void build.finally(() => {
      if (inFlight.get(cache) === entry) inFlight.delete(cache);
    });
  }
  return build;
}

const inFlight = new WeakMap<
  DirectoryCache,
  { generation: string; build: Promise<CachedRanker> }
>();

/** Run `steps` to the end, returning to the event loop whenever a slice of time is spent. */
async function inSlices<T>(steps: Generator<void, T>): Promise<T> {
  let sliceStart = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - sliceStart > SLICE_MS) {
      await yieldToLoop();
      sliceStart = performance.now();
    }
  }
}

async function buildRanker(
  cache: DirectoryCache,
  memories: readonly MemoryHeader[],
  options: { scanComplete: boolean; expired: () => boolean },
): Promise<CachedRanker> {
  const key = rankerAnalysisKey();
  let complete = options.scanComplete;
  const analysis = (memory: MemoryHeader): RankerDocument | undefined => {
    const entry = cache.entries.get(memory.file);
    const own = entry?.header === memory ? entry : undefined;
    const kept = own?.derived[key] as StoredRankerDocument | undefined;
    if (Array.isArray(kept)) return rankerDocumentFrom(kept);
    if (options.expired()) {
      complete = false;
      return undefined;
    }
    const stored = analyzeForStorage(memory);
    if (own) {
      own.derived = { [key]: stored }; // drops analyses of other analyzer versions
      cache.dirty = true;
    }
    return rankerDocumentFrom(stored);
  };
  const generation = cache.generation;
  // A one-shot process: the index saved with this very generation of the directory, if any.
  const saved = options.scanComplete ? cache.artifacts.get(`index-${key}`) : undefined;
  if (saved?.generation === generation) {
    const restored = restoreOfflineRanker(
      saved.value as OfflineRankerSnapshot,
      memories,
      (m) => analysis(m) ?? analyzeForRanking(m),
    );
    if (restored) {
      live.set(cache, { generation, ranker: restored });
      return { ranker: restored, complete: true };
    }
  }
  const ranker = await inSlices(buildOfflineRanker(memories, analysis));
  // Another recall may have changed the cache while this one paused: keep only a current index.
  if (complete && cache.generation === generation) {
    live.set(cache, { generation, ranker });
    const snapshot = await inSlices(snapshotOfflineRankerSteps(ranker));
    // The snapshot paused too: it is saved only for the generation it was made from.
    if (snapshot && cache.generation === generation) {
      for (const [name, artifact] of cache.artifacts) {
        if (artifact.generation !== generation) cache.artifacts.delete(name);
      }
      cache.artifacts.set(`index-${key}`, { generation, value: snapshot });
      cache.dirty = true;
    }
  }
  return { ranker, complete };
}
