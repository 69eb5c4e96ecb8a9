import { MAX_SCANNED_FILES } from '../memdir/constants.js';
import type { MemoryHeader } from '../memdir/types.js';
import { scanHeaders } from './header-scan.js';
import { rankOffline } from './offline-ranker.js';

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
  /** True when the directory held more than `cap` and the offline ranker chose the `cap` best. */
  prefiltered: boolean;
  surfacedExcluded: number;
}

/** Revoked memories are never recalled; one without a description cannot be judged. Pure. */
export function isRecallable(m: MemoryHeader): boolean {
  return m.status !== 'revoked' && m.description !== undefined;
}

/**
 * The memories recall may choose from. Up to `cap` files this is the newest-first scan. Beyond
 * it, instead of silently dropping the oldest, the whole directory is scanned and the offline
 * ranker keeps the `cap` most related to the query, and the result says so. Already surfaced
 * memories are removed first, so they never crowd out fresh ones.
 */
export async function loadCandidates(
  dir: string,
  options: CandidateOptions,
): Promise<CandidateSet> {
  const cap = options.cap ?? MAX_SCANNED_FILES;
  // Read every header: up to the cap this is the newest-first scan; past it the prefilter needs
  // them all anyway, and one pass beats scanning the newest and then everything again.
  const scan = await scanHeaders(dir);
  const prefiltered = scan.total > cap;
  let surfacedExcluded = 0;
  const eligible = scan.memories.filter((m) => {
    if (!isRecallable(m)) return false;
    if (options.isSurfaced(m)) {
      surfacedExcluded++;
      return false;
    }
    return true;
  });
  if (!prefiltered || eligible.length <= cap) {
    return { candidates: eligible, total: scan.total, prefiltered, surfacedExcluded };
  }
  const best = rankOffline(options.query, eligible, {
    nowMs: options.nowMs,
    limit: cap,
    requireOverlap: false,
  });
  const byFile = new Map(eligible.map((m) => [m.file, m]));
  return {
    candidates: best.map((r) => byFile.get(r.file)!),
    total: scan.total,
    prefiltered,
    surfacedExcluded,
  };
}
