/**
 * Offline recall ranker: picks the memories most related to a query without any model call.
 * Deterministic (same query + same memories → same order), so injected recall stays byte-stable
 * across turns and does not break the prompt cache.
 */
import type { MemoryTypeOrUnknown } from '../memdir/types.js';
import { tokenize } from './tokenize.js';

/** Real recall injects at most this many memories per turn. */
export const MAX_RECALLED = 5;

/** Explicit and explainable: who the user is outranks how-to notes about external references. */
export const TYPE_WEIGHTS: Record<MemoryTypeOrUnknown, number> = {
  user: 1.4,
  feedback: 1.2,
  project: 1.0,
  reference: 0.7,
  // A memory without a valid type is the least trusted: same weight as the lowest known type.
  unknown: 0.7,
};

export interface RankableMemory {
  file: string;
  type: MemoryTypeOrUnknown;
  description?: string;
  name?: string;
  body?: string;
  mtimeMs: number;
}

export interface RankOptions {
  nowMs: number;
  /** Default MAX_RECALLED; pass Infinity for evaluation only. */
  limit?: number;
  /** Default true: a memory sharing no token with the query is never selected. */
  requireOverlap?: boolean;
}

export interface RankedMemory {
  file: string;
  score: number;
  /** Distinct query tokens found in the memory. */
  overlap: number;
}

const DAY_MS = 86_400_000;

/** Smooth one-week decay: no memory jumps in or out of recall at a hard age boundary. */
export function recencyOf(mtimeMs: number, nowMs: number): number {
  const ageDays = Math.max(0, nowMs - mtimeMs) / DAY_MS;
  return 1 / (1 + ageDays / 7);
}

export interface OfflineRanker {
  rank(query: string, options: RankOptions): RankedMemory[];
}

/** Tokenizes the memories once, so each query only pays for scoring. */
export function createOfflineRanker(memories: readonly RankableMemory[]): OfflineRanker {
  const indexed = memories.map((memory) => ({
    memory,
    tokens: new Set(
      tokenize([memory.name, memory.description, memory.body].filter(Boolean).join('\n')),
    ),
  }));
  return {
    rank(query, options) {
      const limit = options.limit ?? MAX_RECALLED;
      const requireOverlap = options.requireOverlap ?? true;
      const queryTokens = new Set(tokenize(query));
      const ranked: RankedMemory[] = [];
      for (const { memory, tokens } of indexed) {
        let overlap = 0;
        for (const token of queryTokens) if (tokens.has(token)) overlap++;
        if (requireOverlap && overlap === 0) continue;
        const recency = recencyOf(memory.mtimeMs, options.nowMs);
        const score = (overlap + 0.5 * recency) * TYPE_WEIGHTS[memory.type];
        ranked.push({ file: memory.file, score, overlap });
      }
      ranked.sort((a, b) => b.score - a.score || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
      return ranked.slice(0, Math.max(0, limit));
    },
  };
}

export function rankOffline(
  query: string,
  memories: readonly RankableMemory[],
  options: RankOptions,
): RankedMemory[] {
  return createOfflineRanker(memories).rank(query, options);
}
