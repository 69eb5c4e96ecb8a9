import { describe, expect, it } from 'vitest';
import {
  createOfflineRanker,
  MAX_RECALLED,
  type RankableMemory,
  TYPE_WEIGHTS,
} from './offline-ranker.js';
import { rankOffline } from './ranker-cache.js';

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
  it('never selects a memory whose only shared words are everyday ones (need, know, keep)', () => {
    const memories = [
      mem('tomato.md', 'Tomato seedlings need hardening off for a week'),
      mem('ci.md', 'CI runs on two cores so keep the test suite fast'),
    ];
    expect(
      rankOffline('I need to know what you think about this', memories, { nowMs: NOW }),
    ).toEqual([]);
    expect(rankOffline('ok keep going with the next step', memories, { nowMs: NOW })).toEqual([]);
    expect(
      rankOffline('what do the tomato seedlings need', memories, { nowMs: NOW })[0]!.file,
    ).toBe('tomato.md');
    // The evaluation still ranks everything.
    const all = rankOffline('I need to know', memories, {
      nowMs: NOW,
      limit: Number.POSITIVE_INFINITY,
      requireOverlap: false,
    });
    expect(all.map((r) => r.file)).toEqual(['tomato.md', 'ci.md']);
  });

  it('does not match CJK sentences on shared function words alone', () => {
    const memories = [
      mem('dentist.md', '我的牙医诊所在市中心，每周三休息'),
      mem('car.md', '我的车明年需要年检'),
      mem('cook.md', '做红烧肉的时候可以多放一点冰糖'),
      mem('rent.md', '房租每月五号之前支付给房东'),
    ];
    const top = (q: string) => rankOffline(q, memories, { nowMs: NOW }).map((r) => r.file);
    expect(top('我的牙医在哪里')).toEqual(['dentist.md']);
    expect(top('我什么时候要付房租？')).toEqual(['rent.md']);
    expect(top('我需要知道什么时候的事情')).toEqual([]);
  });

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
    const ranked = rankOffline('database migrations', memories, {
      nowMs: NOW,
      requireOverlap: false,
    });
    expect(ranked.map((r) => r.file)).toEqual(['user.md', 'new.md', 'old.md', 'ref.md']);
    // Real recall: copies that add nothing stay only while they rank near the best (new.md at
    // 1.2 × 1.5 next to 1.4 × 1.5), not the aged or the reference one.
    expect(rankOffline('database migrations', memories, { nowMs: NOW }).map((r) => r.file)).toEqual(
      ['user.md', 'new.md'],
    );
  });

  it('ranks a few files asked for by name exactly as it ranks them among all', () => {
    const topics = [
      'kafka consumer lag',
      'grafana latency dashboard',
      'postgres vacuum',
      'helm chart values',
    ];
    const memories = Array.from({ length: 60 }, (_, i) =>
      mem(`m-${String(i).padStart(2, '0')}.md`, `${topics[i % 4]} note ${i % 7}`, {
        type: (['user', 'feedback', 'project', 'reference'] as const)[i % 4]!,
        mtimeMs: NOW - i * DAY,
      }),
    );
    const ranker = createOfflineRanker(memories);
    const all = { nowMs: NOW, limit: Number.POSITIVE_INFINITY, requireOverlap: false };
    for (const query of ['kafka consumer lag alert', 'vacuum the postgres tables', 'helm']) {
      const everyone = ranker.rank(query, all);
      // Subsets small enough to be visited by name (under a quarter) and one large one.
      for (const size of [1, 5, 14, 40]) {
        const only = new Set(
          memories
            .filter((_, i) => (i * 7 + size) % 3 === 0)
            .slice(0, size)
            .map((m) => m.file),
        );
        only.add('not-in-the-index.md');
        expect(ranker.rank(query, { ...all, only })).toEqual(
          everyone.filter((r) => only.has(r.file)),
        );
      }
    }
  });

  it('is deterministic and breaks ties by file name', () => {
    const memories = [mem('b.md', 'lint config'), mem('a.md', 'lint config'), mem('c.md', 'lint')];
    const first = rankOffline('lint config', memories, { nowMs: NOW });
    const second = rankOffline('lint config', [...memories].reverse(), { nowMs: NOW });
    expect(first).toEqual(second);
    // c.md shares only "lint", which all three hold: no evidence of its own, so it is not padded in.
    expect(first.map((r) => r.file)).toEqual(['a.md', 'b.md']);
  });
});

describe('offline ranker quality rules', () => {
  it('matches inflections, irregular forms, and related concepts', () => {
    const memories = [
      mem('tests.md', 'Run the integration tests before pushing'),
      mem('trip.md', 'The user went to Lisbon on holiday last spring'),
      mem('kids.md', 'The user has two children, both at school'),
      mem('noise.md', 'Prefer tabs over spaces in Makefiles'),
    ];
    const top = (q: string) => rankOffline(q, memories, { nowMs: NOW })[0]?.file;
    expect(top('testing policy')).toBe('tests.md');
    expect(top('where did they go for vacation?')).toBe('trip.md');
    expect(top('how many kids does the user have')).toBe('kids.md');
  });

  it('keeps unrelated queries at zero results, even with pairs, concepts and feedback on', () => {
    const memories = [
      mem('a.md', 'Database migrations run with the migrate script'),
      mem('b.md', 'The user prefers concise answers', { type: 'user' }),
      mem('c.md', '写博客文章时不要加表情符号'),
    ];
    for (const q of ['what time is it in Tokyo', 'the and of it is', '', '天气怎么样']) {
      expect(rankOffline(q, memories, { nowMs: NOW })).toEqual([]);
    }
  });

  it('ranks everything for evaluation only when asked, still deterministically', () => {
    const memories = Array.from({ length: 9 }, (_, i) => mem(`m${i}.md`, `note ${i} on caching`));
    const all = rankOffline('unrelated words', memories, {
      nowMs: NOW,
      limit: Number.POSITIVE_INFINITY,
      requireOverlap: false,
    });
    expect(all.map((r) => r.file)).toEqual(memories.map((m) => m.file));
    expect(all.every((r) => r.overlap === 0 && r.score === 0)).toBe(true);
  });

  it('prefers the description over the body and rarer words over common ones', () => {
    const memories = [
      mem('body.md', 'Release checklist', { body: 'Remember to bump the changelog version' }),
      mem('desc.md', 'Changelog entries go under Unreleased', { body: 'Release notes' }),
      mem('common1.md', 'release process for the api'),
      mem('common2.md', 'release process for the cli'),
      mem('rare.md', 'process for rotating signing keys'),
    ];
    const ranked = rankOffline('changelog', memories, { nowMs: NOW, requireOverlap: false });
    expect(ranked.map((r) => r.file).slice(0, 2)).toEqual(['desc.md', 'body.md']);
    // Real recall keeps the description's match only: the body's adds nothing to it.
    expect(rankOffline('changelog', memories, { nowMs: NOW }).map((r) => r.file)).toEqual([
      'desc.md',
    ]);
    expect(rankOffline('signing release', memories, { nowMs: NOW })[0]!.file).toBe('rare.md');
  });

  it('gives the same ranking whatever order the memories come in', () => {
    const memories = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'].map((w, i) =>
      mem(`${w}.md`, `${w} deployment note ${i % 2 === 0 ? 'staging' : 'production'}`),
    );
    const q = 'staging deployment';
    const forward = rankOffline(q, memories, { nowMs: NOW, limit: 10 });
    const backward = createOfflineRanker([...memories].reverse()).rank(q, {
      nowMs: NOW,
      limit: 10,
    });
    expect(backward).toEqual(forward);
  });

  // Its speed is measured by `npm run bench`, against the filesystem floor in the same run.
  it('one index answers 300 memories the same way on every query, warm or fresh', () => {
    const words = 'cache deploy lint test schema token budget retry queue index shard merge'.split(
      ' ',
    );
    const memories = Array.from({ length: 300 }, (_, i) =>
      mem(
        `m${String(i).padStart(3, '0')}.md`,
        `${words[i % 12]} ${words[(i * 7) % 12]} rule ${i}`,
        {
          body: `Why: ${words[(i * 5) % 12]} broke twice. How to apply: check ${words[(i * 3) % 12]} first.`,
        },
      ),
    );
    const ranker = createOfflineRanker(memories);
    const queries = words.map((w, i) => `how should I ${w} the ${words[(i + 5) % 12]} today?`);
    const first = queries.map((q) => ranker.rank(q, { nowMs: NOW }));
    for (let r = 0; r < 5; r++) {
      expect(queries.map((q) => ranker.rank(q, { nowMs: NOW }))).toEqual(first);
    }
    expect(queries.map((q) => rankOffline(q, memories, { nowMs: NOW }))).toEqual(first);
    expect(first.some((r) => r.length > 0)).toBe(true);
  });
});

describe('comparison phrasing', () => {
  it('does not take the "vs" of a comparison for VS Code, and still finds VS Code by name', () => {
    const memories = [
      mem('editor.md', 'User works in Emacs; suggest LSP settings, not VS Code extensions', {
        type: 'user',
      }),
      mem('joins.md', 'Reports join orders to refunds on the ledger id'),
    ];
    const pick = (q: string) => rankOffline(q, memories, { nowMs: NOW }).map((r) => r.file);
    expect(pick('INNER JOIN vs LEFT JOIN')).toEqual([]);
    expect(pick('staticmethod vs classmethod')).toEqual([]);
    expect(pick('which VS Code extension formats Go')).toEqual(['editor.md']);
  });
});

describe('code identifiers and examples as evidence', () => {
  const memories = [
    mem('argo.md', 'Argo CD sync is manual for production; never click sync on a red diff'),
    mem('freeze.md', 'No deploys during the peak freeze from November 20 to December 31'),
    mem('commits.md', 'User writes Conventional Commits, e.g. "fix(routing): drop stops"', {
      type: 'user',
    }),
    mem('osrm.md', 'Routing runs OSRM on the OpenStreetMap extract, rebuilt every Sunday'),
    mem('pgx.md', 'Query Postgres with pgx and hand-written SQL, no ORM'),
  ];
  const pick = (q: string, ms = memories) => rankOffline(q, ms, { nowMs: NOW }).map((r) => r.file);

  it('does not take a part of an identifier for the word alone ("sync" of sync.Once)', () => {
    expect(pick('how does sync.Once work')).toEqual([]);
    expect(pick('when does argo sync run')).toEqual(['argo.md']);
  });

  it('counts the parts in full for a memory that writes the identifier as code', () => {
    const withOnce = [...memories, mem('once.md', 'Lazy clients are built in a sync.Once')];
    expect(pick('how does sync.Once work', withOnce)).toEqual(['once.md']);
  });

  it('gives a word a memory writes only in an example half the weight', () => {
    // "routing" is in the commit note's example only; the routing note is about it.
    expect(pick('the routing engine ignores a new road')).toEqual(['osrm.md']);
    const onlyCommits = memories.filter((m) => m.file !== 'osrm.md');
    expect(pick('the routing engine ignores a new road', onlyCommits)).toEqual([]);
    // Outside the example the note's words count as before.
    expect(pick('write the conventional commits message')).toEqual(['commits.md']);
  });
});
