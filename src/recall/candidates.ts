import { scanMemoriesCached } from '../memdir/cached-scan.js';
import { MAX_SCANNED_FILES } from '../memdir/constants.js';
import { persistDirectoryCache } from '../memdir/header-cache.js';
import type { MemoryHeader } from '../memdir/types.js';
import { cachedRankerFor } from './cached-ranker.js';
import type { OfflineRanker } from './offline-ranker.js';

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
}

/** Revoked memories are never recalled; one without a description cannot be judged. Pure. */
export function isRecallable(m: MemoryHeader): boolean {
  // A file with NUL bytes or non-UTF-8 bytes is never injected (the audit names it).
  return m.status !== 'revoked' && m.description !== undefined && m.uninjectable === undefined;
}

/**
 * The memories recall may choose from. Up to `cap` files this is the newest-first scan. Beyond
 * it, instead of silently dropping the oldest, the offline ranker keeps the `cap` most related
 * to the query, and the result says so. Already surfaced memories are removed first, so they
 * never crowd out fresh ones.
 */
export async function loadCandidates(
  dir: string,
  options: CandidateOptions,
): Promise<CandidateSet> {
  const cap = options.cap ?? MAX_SCANNED_FILES;
  const expired = options.expired ?? (() => false);
  // Every header: up to the cap this is the newest-first scan; past it the prefilter needs them
  // all anyway. Unchanged files come from the header cache, checked by stat.
  const scan = await scanMemoriesCached(dir, {
    expired: options.scanExpired ?? expired,
    ...(options.persistedCache === false ? { persisted: false } : {}),
  });
  const recallable = scan.memories.filter(isRecallable);
  const { ranker, complete } = await cachedRankerFor(scan.cache, recallable, {
    scanComplete: scan.complete,
    expired,
  });
  if (options.persistedCache !== false) await persistDirectoryCache(scan.cache);
  let surfacedExcluded = 0;
  const eligible = recallable.filter((m) => {
    if (!options.isSurfaced(m)) return true;
    surfacedExcluded++;
    return false;
  });
  // Only when more remain than a selector may see; otherwise every eligible memory is a candidate.
  const prefiltered = eligible.length > cap;
  const base = {
    total: scan.total,
    prefiltered,
    surfacedExcluded,
    ranker,
    complete,
    read: scan.read,
  };
  if (!prefiltered) return { candidates: eligible, ...base };
  const byFile = new Map(eligible.map((m) => [m.file, m]));
  const best: MemoryHeader[] = [];
  // Surfaced memories are ranked too (the index covers them) but never kept: rank just enough.
  const all = ranker.rank(options.query, {
    nowMs: options.nowMs,
    limit: cap + surfacedExcluded,
    requireOverlap: false,
  });
  for (const r of all) {
    const m = byFile.get(r.file);
    if (m) best.push(m);
    if (best.length === cap) break;
  }
  return { candidates: best, ...base };
}

/**
 * Read a directory's headers and build its ranker into the header cache ahead of the first recall,
 * so a long-running host (the MCP server) answers its first call warm. Never throws.
 */
export async function warmCandidates(dir: string): Promise<void> {
  await loadCandidates(dir, { query: '', nowMs: Date.now(), isSurfaced: () => false }).catch(
    () => undefined,
  );
}
