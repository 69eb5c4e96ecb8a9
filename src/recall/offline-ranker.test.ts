import { describe, expect, it } from 'vitest';
import { MAX_RECALLED, type RankableMemory, rankOffline, TYPE_WEIGHTS } from './offline-ranker.js';

const NOW = Date.UTC(2026, 10, 1);
const DAY = 86_400_000;

function mem(
  file: string,
  description: string,
  extra: Partial<RankableMemory> = {},
): RankableMemory {
  return { file, type: 'project', description, mtimeMs: NOW, ...extra };
}

describe('rankOffline', () => {
  it('returns nothing when no memory shares a token with the query', () => {
    const memories = [mem('a.md', 'Release process needs a signed tag'), mem('b.md', 'Use pnpm')];
    expect(rankOffline('what is the weather in Paris', memories, { nowMs: NOW })).toEqual([]);
  });

  it('matches a CJK query against a CJK description', () => {
    const memories = [
      mem('blog.md', '写博客文章时不要加表情符号'),
      mem('x.md', 'deploy on friday'),
    ];
    const ranked = rankOffline('记得不要在文章里加表情', memories, { nowMs: NOW });
    expect(ranked.map((r) => r.file)).toEqual(['blog.md']);
  });

  it('never returns more than MAX_RECALLED by default', () => {
    const memories = Array.from({ length: 12 }, (_, i) => mem(`m${i}.md`, `testing rule ${i}`));
    expect(rankOffline('testing', memories, { nowMs: NOW })).toHaveLength(MAX_RECALLED);
  });

  it('applies type weights and recency as multipliers on equal relevance', () => {
    expect(TYPE_WEIGHTS.user).toBeGreaterThan(TYPE_WEIGHTS.feedback);
    const memories = [
      mem('ref.md', 'database migrations', { type: 'reference' }),
      mem('user.md', 'database migrations', { type: 'user' }),
      mem('old.md', 'database migrations', { type: 'feedback', mtimeMs: NOW - 60 * DAY }),
      mem('new.md', 'database migrations', { type: 'feedback' }),
    ];
    const ranked = rankOffline('database migrations', memories, { nowMs: NOW });
    expect(ranked.map((r) => r.file)).toEqual(['user.md', 'new.md', 'old.md', 'ref.md']);
  });

  it('is deterministic and breaks ties by file name', () => {
    const memories = [mem('b.md', 'lint config'), mem('a.md', 'lint config'), mem('c.md', 'lint')];
    const first = rankOffline('lint config', memories, { nowMs: NOW });
    const second = rankOffline('lint config', [...memories].reverse(), { nowMs: NOW });
    expect(first).toEqual(second);
    expect(first.map((r) => r.file)).toEqual(['a.md', 'b.md', 'c.md']);
  });
});
