import { MAX_SCANNED_FILES } from '../memdir/constants.js';
import { scanMemories } from '../memdir/scan.js';
import type { MemoryHeader } from '../memdir/types.js';
import type { OfflineRanker } from './offline-ranker.js';
import { offlineRankerFor } from './ranker-cache.js';

export interface CandidateOptions {
  query: string;
  nowMs: number;
  /** Returns true for memories already in the conversation: they never take a slot. */
  isSurfaced: (m: MemoryHeader) => boolean;
  /** Candidates handed to a selector (default 200, the scan cap). */
  cap?: number;
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
}

/** Revoked memories are never recalled; one without a description cannot be judged. Pure. */
export function isRecallable(m: MemoryHeader): boolean {
  return m.status !== 'revoked' && m.description !== undefined;
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
  // Every header in one pass: up to the cap this is the newest-first scan; past it the prefilter
  // needs them all anyway.
  const scan = await scanMemories(dir, { cap: Number.POSITIVE_INFINITY });
  const recallable = scan.memories.filter(isRecallable);
  const ranker = offlineRankerFor(recallable);
  let surfacedExcluded = 0;
  const eligible = recallable.filter((m) => {
    if (!options.isSurfaced(m)) return true;
    surfacedExcluded++;
    return false;
  });
  // Only when more remain than a selector may see; otherwise every eligible memory is a candidate.
  const prefiltered = eligible.length > cap;
  const base = { total: scan.total, prefiltered, surfacedExcluded, ranker };
  if (!prefiltered) return { candidates: eligible, ...base };
  const byFile = new Map(eligible.map((m) => [m.file, m]));
  const best: MemoryHeader[] = [];
  const all = ranker.rank(options.query, {
    nowMs: options.nowMs,
    limit: Number.POSITIVE_INFINITY,
    requireOverlap: false,
  });
  for (const r of all) {
    const m = byFile.get(r.file);
    if (m) best.push(m);
    if (best.length === cap) break;
  }
  return { candidates: best, ...base };
}
