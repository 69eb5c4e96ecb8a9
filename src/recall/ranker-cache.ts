import {
  createOfflineRanker,
  type OfflineRanker,
  type RankableMemory,
  type RankedMemory,
  type RankOptions,
} from './offline-ranker.js';

/** Directories a host recalls from at once (a project and a team directory, say). */
export const RANKER_CACHE_SIZE = 4;

const cache = new Map<string, OfflineRanker>();

/** Everything the ranker reads from a header; equal signatures mean an equal index. */
function signature(memories: readonly RankableMemory[]): string {
  let key = '';
  for (const m of memories) {
    key += `${m.file}\u0000${m.mtimeMs}\u0000${m.type}\u0000${m.name ?? ''}\u0000${m.description ?? ''}\u0000${m.body ?? ''}\n`;
  }
  return key;
}

/**
 * The offline ranker for these memories, built once and reused while they are unchanged. Building
 * the index is nearly all of ranking's cost and a host recalls every turn over the same directory,
 * so a warm turn pays only for the query. A cache of a pure function: results are identical with
 * or without it.
 */
export function offlineRankerFor(memories: readonly RankableMemory[]): OfflineRanker {
  const key = signature(memories);
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key); // refresh its place: least recently used goes first
    cache.set(key, hit);
    return hit;
  }
  const ranker = createOfflineRanker(memories);
  cache.set(key, ranker);
  while (cache.size > RANKER_CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return ranker;
}

/** Forget every cached index (tests, or a host that wants the memory back). */
export function clearOfflineRankerCache(): void {
  cache.clear();
}

/**
 * Rank `memories` for `query` in one call. The index comes from the cache above, so a caller that
 * ranks many queries over the same memories pays for the index once (ranking 300 memories then
 * takes well under a millisecond) without holding a ranker itself. Same result as
 * `createOfflineRanker(memories).rank(query, options)`.
 */
export function rankOffline(
  query: string,
  memories: readonly RankableMemory[],
  options: RankOptions,
): RankedMemory[] {
  return offlineRankerFor(memories).rank(query, options);
}
