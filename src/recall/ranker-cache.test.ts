import { describe, expect, it } from 'vitest';
import type { RankableMemory } from './offline-ranker.js';
import { createOfflineRanker } from './offline-ranker.js';
import { clearOfflineRankerCache, offlineRankerFor, RANKER_CACHE_SIZE } from './ranker-cache.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');
const memories = (tag: string): RankableMemory[] =>
  ['deploy staging', 'deploy production', 'kubelet eviction', 'release notes'].map((d, i) => ({
    file: `${tag}-${i}.md`,
    type: 'project',
    description: `${d} for ${tag}`,
    mtimeMs: NOW - i * 86_400_000,
  }));

describe('offlineRankerFor', () => {
  it('ranks exactly like a freshly built ranker', () => {
    clearOfflineRankerCache();
    const m = memories('a');
    for (const q of [
      'deploy to staging',
      'why is the kubelet evicting pods',
      'nothing matches here',
    ]) {
      expect(offlineRankerFor(m).rank(q, { nowMs: NOW })).toEqual(
        createOfflineRanker(m).rank(q, { nowMs: NOW }),
      );
    }
  });

  it('reuses the index while the memories are unchanged, and rebuilds when one changes', () => {
    clearOfflineRankerCache();
    const m = memories('b');
    const first = offlineRankerFor(m);
    expect(offlineRankerFor(memories('b'))).toBe(first);
    const edited = memories('b').map((x, i) => (i === 0 ? { ...x, mtimeMs: x.mtimeMs + 1 } : x));
    expect(offlineRankerFor(edited)).not.toBe(first);
  });

  it('keeps only the most recently used indexes', () => {
    clearOfflineRankerCache();
    const first = offlineRankerFor(memories('dir0'));
    for (let i = 1; i <= RANKER_CACHE_SIZE; i++) offlineRankerFor(memories(`dir${i}`));
    expect(offlineRankerFor(memories('dir0'))).not.toBe(first);
  });
});
