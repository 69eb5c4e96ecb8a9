/**
 * The offline ranker of a directory, built from the header cache: each memory's analysis is kept
 * with its cache entry (in memory, and in the cache file for one-shot processes), and the whole
 * index is kept in memory while the directory's generation is unchanged. Built step by step with
 * returns to the event loop, and cut short (what is ready is ranked) when time runs out.
 */
import { type CacheEntry, type DirectoryCache, isHandedOver } from '../memdir/header-cache.js';
import type { MemoryHeader } from '../memdir/types.js';
import { shortHash } from '../util/short-hash.js';
import { runStepsInSlices } from '../util/steps.js';
import { yieldToLoop } from '../util/yield-to-loop.js';
import {
  analyzeForIndex,
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
  analysisKey = `ranker-${shortHash(JSON.stringify([RANKER_ANALYSIS_VERSION, RANKER_TUNING, probe]))}`;
  return analysisKey;
}

/**
 * Per cache, per index name: one directory's index and a chain's are kept side by side (the MCP
 * server warms the directory's, a recall over the chain uses the chain's; one slot made each evict
 * the other).
 */
function slotsOf<T>(slots: WeakMap<DirectoryCache, Map<string, T>>, cache: DirectoryCache) {
  let named = slots.get(cache);
  if (named === undefined) {
    named = new Map();
    slots.set(cache, named);
  }
  return named;
}

const live = new WeakMap<
  DirectoryCache,
  Map<string, { generation: string; ranker: OfflineRanker }>
>();

export interface CachedRanker {
  ranker: OfflineRanker;
  /** False when time ran out: memories not analyzed in time are missing from this ranker. */
  complete: boolean;
}

/** What one index covers: where it is kept, what it is valid for, where each analysis lives. */
interface IndexPlan {
  /** The cache whose artifacts hold the saved index (and whose memo keeps the live one). */
  store: DirectoryCache;
  /** The artifact's name prefix: one directory's index, or a chain's. */
  name: string;
  /** The generation the index is valid for, read now (it changes with any covered directory). */
  generation: () => string;
  /** The cache entry holding this memory's kept analysis, when the entry is that memory's own. */
  entryOf: (memory: MemoryHeader) => { cache: DirectoryCache; entry: CacheEntry } | undefined;
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
  return rankerFor(
    {
      store: cache,
      name: 'index',
      generation: () => cache.generation,
      entryOf: (memory) => {
        const entry = cache.entries.get(memory.file);
        return entry?.header === memory ? { cache, entry } : undefined;
      },
    },
    memories,
    options,
  );
}

/**
 * The ranker over a chain of layers (project, then user, ...): `memories` are the recallable
 * headers of every layer, `originOf` gives each one's scanned header and its layer's cache. The
 * same machinery as one directory's: analyses kept with their own entries, the index saved in the
 * closest layer's cache for the next process, built in slices, cut short when time runs out.
 */
export async function cachedChainRankerFor(
  caches: readonly DirectoryCache[],
  memories: readonly MemoryHeader[],
  originOf: (memory: MemoryHeader) => { header: MemoryHeader; cache: DirectoryCache } | undefined,
  options: { scanComplete: boolean; expired: () => boolean },
): Promise<CachedRanker> {
  return rankerFor(
    {
      store: caches[0]!,
      name: 'chain-index',
      generation: () => caches.map((c) => c.generation).join('|'),
      entryOf: (memory) => {
        const origin = originOf(memory);
        const entry = origin?.cache.entries.get(origin.header.file);
        return origin && entry?.header === origin.header
          ? { cache: origin.cache, entry }
          : undefined;
      },
    },
    memories,
    options,
  );
}

async function rankerFor(
  plan: IndexPlan,
  memories: readonly MemoryHeader[],
  options: { scanComplete: boolean; expired: () => boolean },
): Promise<CachedRanker> {
  const generation = plan.generation();
  const hit = slotsOf(live, plan.store).get(plan.name);
  if (options.scanComplete && hit?.generation === generation) {
    return { ranker: hit.ranker, complete: true };
  }
  // Two recalls at once over an unchanged directory (a warm-up and the first call) share one build.
  const building = slotsOf(inFlight, plan.store);
  const pending = building.get(plan.name);
  if (options.scanComplete && pending?.generation === generation) return pending.build;
  const build = buildRanker(plan, memories, options);
  if (options.scanComplete) {
    const entry = { generation, build };
    building.set(plan.name, entry);
    void build.finally(() => {
      if (building.get(plan.name) === entry) building.delete(plan.name);
    });
  }
  return build;
}

const inFlight = new WeakMap<
  DirectoryCache,
  Map<string, { generation: string; build: Promise<CachedRanker> }>
>();

async function buildRanker(
  plan: IndexPlan,
  memories: readonly MemoryHeader[],
  options: { scanComplete: boolean; expired: () => boolean },
): Promise<CachedRanker> {
  // The first analysis in a thread compiles the analyzer: not in the same slice as the scan's end.
  if (analysisKey === undefined) await yieldToLoop();
  const key = rankerAnalysisKey();
  const cache = plan.store;
  const artifact = `${plan.name}-${key}`;
  let complete = options.scanComplete;
  const analysis = (memory: MemoryHeader): RankerDocument | undefined => {
    const own = plan.entryOf(memory);
    const kept = own?.entry.derived[key] as StoredRankerDocument | undefined;
    if (Array.isArray(kept)) return rankerDocumentFrom(kept);
    if (options.expired()) {
      complete = false;
      return undefined;
    }
    const { stored, document } = analyzeForIndex(memory);
    if (own) {
      own.entry.derived = { [key]: stored }; // drops analyses of other analyzer versions
      own.cache.dirty = true;
    }
    return document;
  };
  const generation = plan.generation();
  // A one-shot process: the index saved with this very generation of the directory, if any.
  const saved = options.scanComplete ? cache.artifacts.get(artifact) : undefined;
  if (saved?.generation === generation) {
    // Slices of their own: the scan just before, the analysis key (whose first computation in a
    // thread compiles the analyzer) and the restore (a host's first turn after a worker's build).
    await yieldToLoop();
    // Only while the directory's generation still is the one the index was saved with.
    const restored =
      plan.generation() === generation
        ? restoreOfflineRanker(
            saved.value as OfflineRankerSnapshot,
            memories,
            (m) => analysis(m) ?? analyzeForRanking(m),
            {},
            // A worker's snapshot (a host's first build) was made by this very code: no file to
            // distrust.
            { checked: isHandedOver(saved.value) },
          )
        : undefined;
    if (restored) {
      slotsOf(live, cache).set(plan.name, { generation, ranker: restored });
      await yieldToLoop();
      return { ranker: restored, complete: true };
    }
  }
  // A fresh slice for the build: its first step (sorting every memory) is not added to the scan
  // and filtering that ran just before without a pause.
  await yieldToLoop();
  const ranker = await runStepsInSlices(buildOfflineRanker(memories, analysis));
  // Another recall may have changed the cache while this one paused: keep only a current index.
  if (complete && plan.generation() === generation) {
    slotsOf(live, cache).set(plan.name, { generation, ranker });
    const snapshot = await runStepsInSlices(snapshotOfflineRankerSteps(ranker));
    // The snapshot paused too: it is saved only for the generation it was made from.
    if (snapshot && plan.generation() === generation) {
      // Stale: this index's older saves, and saves by another analyzer. The other index kept here
      // (a directory's beside a chain's) stays; it is checked against its own generation on use.
      for (const [name, kept] of cache.artifacts) {
        if (kept.generation !== generation && (name === artifact || !name.endsWith(key)))
          cache.artifacts.delete(name);
      }
      cache.artifacts.set(artifact, { generation, value: snapshot });
      cache.dirty = true;
    }
  }
  return { ranker, complete };
}
