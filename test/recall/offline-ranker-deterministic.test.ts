import { createOfflineRanker, rankOffline } from 'engram/recall';
import { describe, expect, it } from 'vitest';

describe('the offline ranker stays fast, deterministic and allowed to say nothing', () => {
  const topics = ['kayak', 'violin', 'sourdough', 'chess', 'orchid', 'glacier', 'tango', 'falcon'];
  const memories = Array.from({ length: 300 }, (_, i) => ({
    file: `fact-${String(i).padStart(3, '0')}.md`,
    type: 'user' as const,
    description: `Fact ${i}: the ${topics[i % 8]} club met near the ${topics[(i * 3) % 8]} shop in week ${i % 52}`,
    body: `Notes on the ${topics[(i * 5) % 8]} outing number ${i}.`,
    mtimeMs: Date.UTC(2030, 0, 1),
  }));
  const nowMs = Date.UTC(2030, 0, 2);

  // How fast it ranks is measured by `npm run bench`, against the filesystem floor in the same run.
  it('ranks 300 memories the same way on every call, from a cached index or a fresh one', () => {
    const queries = topics.map((t) => `when did the ${t} club meet near the shop`);
    const first = queries.map((q) => rankOffline(q, memories, { nowMs }));
    for (let i = 0; i < 50; i++) {
      const q = i % queries.length;
      expect(rankOffline(queries[q]!, memories, { nowMs })).toEqual(first[q]);
    }
    const ranker = createOfflineRanker(memories);
    expect(rankOffline('violin club week 7', memories, { nowMs })).toEqual(
      ranker.rank('violin club week 7', { nowMs }),
    );
  });

  it('keeps zero answers for unrelated questions and at most five for real recall', () => {
    expect(rankOffline('what is the boiling point of mercury', memories, { nowMs })).toEqual([]);
    expect(rankOffline('kayak club', memories, { nowMs })).toHaveLength(5);
    const all = rankOffline('kayak club', memories, {
      nowMs,
      limit: Number.POSITIVE_INFINITY,
      requireOverlap: false,
    });
    expect(all).toHaveLength(300);
  });
});
