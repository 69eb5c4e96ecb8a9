import { describe, expect, it } from 'vitest';
import { generateMemories } from '../bench/generate.js';
import { createOfflineRanker, prepareRankSteps, type RankableMemory } from './offline-ranker.js';

const NOW = Date.UTC(2026, 10, 1);

function memories(): RankableMemory[] {
  return generateMemories(120, NOW).map((m) => ({
    file: m.file,
    type: m.type,
    name: m.file,
    description: m.description,
    body: m.body,
    mtimeMs: m.mtimeMs,
  }));
}

const QUERIES = ['why does the kubelet keep evicting pods', 'roll back a canary deploy', 'a'];

describe('prepareRankSteps', () => {
  it('computes a query match in several steps, after which ranking gives what it gives without', () => {
    const fresh = createOfflineRanker(memories());
    const prepared = createOfflineRanker(memories());
    for (const query of QUERIES) {
      let steps = 0;
      for (const _ of prepareRankSteps(prepared, query)) steps++;
      if (query.length > 1) expect(steps).toBeGreaterThan(2);
      for (const options of [{ nowMs: NOW }, { nowMs: NOW, limit: 50, requireOverlap: false }]) {
        expect(prepared.rank(query, options)).toEqual(fresh.rank(query, options));
      }
    }
  });

  it('leaves the next query unaffected when prepared for another', () => {
    const fresh = createOfflineRanker(memories());
    const prepared = createOfflineRanker(memories());
    for (const _ of prepareRankSteps(prepared, QUERIES[0]!));
    expect(prepared.rank(QUERIES[1]!, { nowMs: NOW })).toEqual(
      fresh.rank(QUERIES[1]!, { nowMs: NOW }),
    );
  });
});
