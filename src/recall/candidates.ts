import type { MemoryLayer } from '../config/memory-chain.js';
import { scanMemoriesCached } from '../memdir/cached-scan.js';
import { MAX_SCANNED_FILES } from '../memdir/constants.js';
import type { DirectoryCache } from '../memdir/header-cache.js';
import { isCacheKept, persistDirectoryCache } from '../memdir/header-cache.js';
import type { MemoryHeader } from '../memdir/types.js';
import { markHostProcess } from '../util/process-kind.js';
import { runStepsInSlices } from '../util/steps.js';
import { yieldToLoop } from '../util/yield-to-loop.js';
import { cachedChainRankerFor, cachedRankerFor } from './cached-ranker.js';
import { type OfflineRanker, prepareRankSteps } from './offline-ranker.js';

export interface CandidateOptions {
  query: string;
  nowMs: number;
  /** Returns true for memories already in the conversation: they never take a slot. */
  isSurfaced: (m: MemoryHeader) => boolean;
  /** Candidates handed to a selector (default 200, the scan cap). */
  cap?: number;
  /** Returns true once the time for scanning and ranking is spent: go on with what is ready. */
  expired?: () => boolean;
  /** The same for the scan alone (default `expired`), so that some time is left to rank. */
  scanExpired?: () => boolean;
  /** Use the header cache file on disk (default true). */
  persistedCache?: boolean;
}

export interface CandidateSet {
  candidates: MemoryHeader[];
  /** Memory files in the directory. */
  total: number;
  /** True when more than `cap` memories were eligible and the offline ranker chose the `cap` best. */
  prefiltered: boolean;
  surfacedExcluded: number;
  /**
   * The offline ranker over every recallable memory, surfaced ones included: its statistics stay
   * the same from turn to turn (so does its cached index); callers filter its output.
   */
  ranker: OfflineRanker;
  /** False when time ran out: some memories were not looked at (or not ranked) this turn. */
  complete: boolean;
  /** Memory files whose header had to be read (the rest came from the header cache). */
  read: number;
  /**
   * Directories under a quiet watch (see tree-watch.ts): dir → the watch's epoch. What was read
   * from their files under the same epoch is still what they hold.
   */
  watchEpochs: ReadonlyMap<string, number>;
}

/** Revoked memories are never recalled; one without a description cannot be judged. Pure. */
export function isRecallable(m: MemoryHeader): boolean {
  // A file with NUL bytes or non-UTF-8 bytes is never injected (the audit names it).
  return m.status !== 'revoked' && m.description !== undefined && m.uninjectable === undefined;
}

let longRunningHost = false;

/**
 * This process is a long-running host (it prefetches recall, or serves it): from now on a
 * directory's first build is made in a worker thread (`first-build.ts`), so that its garbage
 * collection does not pause the host's event loop. One-shot processes never call this.
 */
export function markLongRunningHost(): void {
  longRunningHost = true;
  markHostProcess(); // and its file calls go through the thread pool (util/process-kind.ts)
}

/**
 * The memories recall may choose from. Up to `cap` files this is the newest-first scan. Beyond
 * it, instead of silently dropping the oldest, the offline ranker keeps the `cap` most related
 * to the query, and the result says so. Already surfaced memories are removed first, so they
 * never crowd out fresh ones.
 */
export async function loadCandidates(
  source: string | readonly MemoryLayer[],
  options: CandidateOptions,
): Promise<CandidateSet> {
  const cap = options.cap ?? MAX_SCANNED_FILES;
  const expired = options.expired ?? (() => false);
  const layers: readonly MemoryLayer[] =
    typeof source === 'string' ? [{ layer: 'project', dir: source, trusted: true }] : source;
  if (longRunningHost && layers.some((l) => !isCacheKept(l.dir))) {
    // What the worker built is adopted as these layers' kept caches: the scan below revalidates it
    // by stat and restores its index. When it could not, the scan builds here as before.
    const { buildFirstInWorker } = await import('./first-build.js');
    await buildFirstInWorker(layers, {
      persisted: options.persistedCache !== false,
      expired: options.scanExpired ?? expired,
    });
  }
  // Every header: up to the cap this is the newest-first scan; past it the prefilter needs them
  // all anyway. Unchanged files come from each layer's own header cache, checked by stat.
  const scans = await Promise.all(
    layers.map((l) =>
      scanMemoriesCached(l.dir, {
        expired: options.scanExpired ?? expired,
        ...(options.persistedCache === false ? { persisted: false } : {}),
      }),
    ),
  );
  const [first, ...rest] = scans;
  const scan = first!;
  let recallable = recallableOf(scan.memories);
  const more = chainedMemories(recallable, rest, layers.slice(1));
  let ranked: { ranker: OfflineRanker; complete: boolean };
  if (more.length === 0) {
    // Only the closest layer holds recallable memories: its cached ranker serves as it is.
    ranked = await cachedRankerFor(scan.cache, recallable, {
      scanComplete: scan.complete,
      expired,
    });
  } else {
    const closest = new Set(recallable);
    recallable = [...recallable, ...more];
    ranked = await cachedChainRankerFor(
      scans.map((s) => s.cache),
      recallable,
      (m) => chainOrigin.get(m) ?? (closest.has(m) ? { header: m, cache: scan.cache } : undefined),
      { scanComplete: scans.every((s) => s.complete), expired },
    );
  }
  const { ranker, complete } = ranked;
  if (options.persistedCache !== false) {
    for (const s of scans) await persistDirectoryCache(s.cache);
  }
  let surfacedExcluded = 0;
  const eligible = recallable.filter((m) => {
    if (!options.isSurfaced(m)) return true;
    surfacedExcluded++;
    return false;
  });
  // Only when more remain than a selector may see; otherwise every eligible memory is a candidate.
  const prefiltered = eligible.length > cap;
  const base = {
    total: scans.reduce((n, s) => n + s.total, 0),
    prefiltered,
    surfacedExcluded,
    ranker,
    complete,
    read: scans.reduce((n, s) => n + s.read, 0),
    watchEpochs: new Map(
      scans.flatMap((s, i) =>
        s.watchEpoch === undefined ? [] : [[layers[i]!.dir, s.watchEpoch] as const],
      ),
    ),
  };
  // The query's match in slices (a new query's is the most work of a warm turn): the ranking below,
  // and the caller's choice among the candidates, then only score it.
  await runStepsInSlices(prepareRankSteps(ranker, options.query));
  if (!prefiltered) return { candidates: eligible, ...base };
  const byFile = more.length === 0 ? byFileOf(recallable) : byFileOf(eligible);
  const best: MemoryHeader[] = [];
  // Ranking every memory is one piece of work: let the host's loop turn between the scan's last
  // slice (and the index's) and it, so the two never add up to one stall.
  await yieldToLoop();
  // Surfaced memories are ranked too (the index covers them) but never kept: rank just enough.
  const all = ranker.rank(options.query, {
    nowMs: options.nowMs,
    limit: cap + surfacedExcluded,
    requireOverlap: false,
  });
  for (const r of all) {
    const m = byFile.get(r.file);
    if (m && !options.isSurfaced(m)) best.push(m);
    if (best.length === cap) break;
  }
  return { candidates: best, ...base };
}

// A warm turn under a quiet watch gets the very same scan back: what follows from it is kept.
const recallableKept = new WeakMap<readonly MemoryHeader[], MemoryHeader[]>();
const byFileKept = new WeakMap<readonly MemoryHeader[], Map<string, MemoryHeader>>();

function recallableOf(memories: readonly MemoryHeader[]): MemoryHeader[] {
  const kept = recallableKept.get(memories) ?? memories.filter(isRecallable);
  recallableKept.set(memories, kept);
  return kept;
}

function byFileOf(memories: readonly MemoryHeader[]): ReadonlyMap<string, MemoryHeader> {
  const kept = byFileKept.get(memories) ?? new Map(memories.map((m) => [m.file, m]));
  byFileKept.set(memories, kept);
  return kept;
}

/** A further layer's memory (a copy tagged with its layer) → the header its scan read, and its cache. */
const chainOrigin = new WeakMap<MemoryHeader, { header: MemoryHeader; cache: DirectoryCache }>();

/**
 * The recallable memories of the further layers, tagged with their layer. On a name clash the
 * closer layer wins: a project memory overrides the user's memory of the same file name.
 */
function chainedMemories(
  closest: readonly MemoryHeader[],
  scans: ReadonlyArray<{ memories: MemoryHeader[]; cache: DirectoryCache }>,
  layers: readonly MemoryLayer[],
): MemoryHeader[] {
  // Most turns: no further layer holds a memory (a user layer nobody wrote to). Otherwise the
  // closest layer's names, kept with its scan (the same array on a quiet turn): a set of 10,000
  // names built per prompt was a fifth of a warm hook server's time at 10,000 memories.
  if (scans.every((scan) => scan.memories.length === 0)) return [];
  const closer = byFileOf(closest);
  const seen = new Set<string>();
  const out: MemoryHeader[] = [];
  scans.forEach((scan, i) => {
    for (const m of scan.memories) {
      if (!isRecallable(m) || closer.has(m.file) || seen.has(m.file)) continue;
      seen.add(m.file);
      const tagged = { ...m, layer: layers[i]!.layer };
      chainOrigin.set(tagged, { header: m, cache: scan.cache });
      out.push(tagged);
    }
  });
  return out;
}

/**
 * Read a directory's headers and build its ranker into the header cache ahead of the first recall,
 * so a long-running host (the MCP server) answers its first call warm. Never throws.
 */
export async function warmCandidates(dir: string): Promise<void> {
  markLongRunningHost();
  await loadCandidates(dir, { query: '', nowMs: Date.now(), isSurfaced: () => false }).catch(
    () => undefined,
  );
}
