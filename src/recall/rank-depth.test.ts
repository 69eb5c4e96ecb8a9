import { describe, expect, it } from 'vitest';
import { createOfflineRanker, type RankableMemory } from './offline-ranker.js';

const NOW = Date.UTC(2026, 10, 1);
const DAY = 86_400_000;
const WORDS =
  'kubelet evicts pods staging deploy canary rollback queue retry timeout oauth cookie session billing invoice cache redis migration schema'.split(
    ' ',
  );
const TYPES = ['user', 'feedback', 'project', 'reference'] as const;

/** Memories with many equal scores (repeated descriptions, equal ages), so ties must break alike. */
function memories(count: number): RankableMemory[] {
  let seed = 11;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  return Array.from({ length: count }, (_, i) => {
    const words = Array.from({ length: 3 + next(5) }, () => WORDS[next(WORDS.length)]!);
    return {
      file: `m${(count - i).toString().padStart(4, '0')}.md`,
      type: TYPES[next(TYPES.length)]!,
      description: i % 7 === 0 ? 'notes about the billing invoice' : words.join(' '),
      mtimeMs: NOW - next(4) * 30 * DAY,
    };
  });
}

describe('ranking only as deep as asked', () => {
  const all = memories(600);
  const queries = [
    'why does the kubelet keep evicting pods',
    'billing invoice',
    'the oauth session cookie on staging',
    'nothing shared here at all',
  ];

  it('gives the head of the full ranking, ties included, for every depth and query', () => {
    for (const query of queries) {
      const full = createOfflineRanker(all)
        .rank(query, { nowMs: NOW, limit: Number.POSITIVE_INFINITY, requireOverlap: false })
        .slice();
      for (const limit of [1, 5, 37, 200, 599, 600, 1000]) {
        const head = createOfflineRanker(all).rank(query, {
          nowMs: NOW,
          limit,
          requireOverlap: false,
        });
        expect(head).toEqual(full.slice(0, limit));
      }
    }
  });

  it('answers a query the same whatever the ranker was asked before (its kept match is per query)', () => {
    const fresh = (query: string, only?: ReadonlySet<string>) =>
      createOfflineRanker(all).rank(query, { nowMs: NOW, ...(only ? { only } : {}) });
    const reused = createOfflineRanker(all);
    const only = new Set(all.slice(0, 300).map((m) => m.file));
    for (const query of [...queries, ...queries.reverse()]) {
      reused.rank(query, { nowMs: NOW, limit: 200, requireOverlap: false });
      expect(reused.rank(query, { nowMs: NOW, only })).toEqual(fresh(query, only));
      expect(reused.rank(query, { nowMs: NOW })).toEqual(fresh(query));
      expect(
        reused.rank(query, {
          nowMs: NOW,
          cutoff: { commonShare: 0.1, commonMinDocs: 1, relativeFloor: 0.5 },
        }),
      ).toEqual(
        createOfflineRanker(all).rank(query, {
          nowMs: NOW,
          cutoff: { commonShare: 0.1, commonMinDocs: 1, relativeFloor: 0.5 },
        }),
      );
    }
  });
});
