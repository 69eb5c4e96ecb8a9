import { describe, expect, it } from 'vitest';
import type { RankableMemory } from './offline-ranker.js';
import { rankOffline } from './ranker-cache.js';
import { RELEVANCE_CUTOFF, selectRelevant } from './relevance-cutoff.js';

const NOW = Date.UTC(2026, 10, 1);
const mem = (file: string, description: string): RankableMemory => ({
  file,
  type: 'project',
  description,
  mtimeMs: NOW,
});

describe('relevance cut-off of the offline ranker', () => {
  it('recalls only the deploy memory among eight "service number N" memories', () => {
    const memories = [
      ...Array.from({ length: 8 }, (_, i) =>
        mem(
          `service-${i + 1}.md`,
          `The service number ${i + 1} uses port 80${i + 1} for its database connection`,
        ),
      ),
      mem('deploy.md', 'Deploy the service only on Tuesdays, after the morning standup'),
    ];
    const selected = rankOffline('when can I deploy the service', memories, { nowMs: NOW });
    expect(selected.map((r) => r.file)).toEqual(['deploy.md']);
  });

  it('picks the one widget memory out of 300 instead of padding with faint matches', () => {
    const memories = Array.from({ length: 300 }, (_, i) =>
      mem(
        `topic-${i}.md`,
        `Widget configuration notes for topic ${i}: ${i % 3 === 0 ? 'cache' : 'queue'} settings`,
      ),
    );
    const selected = rankOffline('widget configuration for topic 42', memories, { nowMs: NOW });
    expect(selected.map((r) => r.file)).toEqual(['topic-42.md']);
  });

  it('still returns several memories when each has evidence of its own', () => {
    const memories = [
      mem('pnpm.md', 'Install packages with pnpm, never npm'),
      mem('lockfile.md', 'Commit the pnpm lockfile with every dependency change'),
      mem('colors.md', 'Use design tokens for colours'),
    ];
    const selected = rankOffline('pnpm lockfile conflicts', memories, { nowMs: NOW });
    expect(selected.map((r) => r.file)).toContain('lockfile.md');
    expect(selected.map((r) => r.file)).not.toContain('colors.md');
  });

  it('answers with nothing when the only shared words are generic coding verbs', () => {
    const memories = [
      mem('a.md', 'Add a changelog entry to every release'),
      mem('b.md', 'Fix lint warnings before review'),
    ];
    expect(rankOffline('add a fix for this file', memories, { nowMs: NOW })).toEqual([]);
  });

  it('is a pure function of the ranked list: common-only, sub-floor and lower-level candidates go', () => {
    const c = (score: number, distinctive: number, overlap = distinctive) => ({
      score,
      relevance: score,
      overlap,
      distinctive,
    });
    expect(selectRelevant([c(5, 2), c(4, 2), c(4.5, 1), c(1, 2)], RELEVANCE_CUTOFF)).toEqual([
      c(5, 2),
      c(4, 2),
    ]);
    expect(selectRelevant([c(3, 0, 1), c(2.5, 0, 1)], RELEVANCE_CUTOFF)).toEqual([
      c(3, 0, 1),
      c(2.5, 0, 1),
    ]);
    expect(selectRelevant([c(3, 0, 0)], RELEVANCE_CUTOFF)).toEqual([]);
    expect(selectRelevant([], RELEVANCE_CUTOFF)).toEqual([]);
  });
});
