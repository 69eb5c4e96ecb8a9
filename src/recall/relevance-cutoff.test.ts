import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RankableMemory } from './offline-ranker.js';
import { rankOffline } from './ranker-cache.js';
import { evidenceOf, RELEVANCE_CUTOFF, selectRelevant } from './relevance-cutoff.js';

const NOW = Date.UTC(2026, 10, 1);
const mem = (file: string, description: string): RankableMemory => ({
  file,
  type: 'project',
  description,
  mtimeMs: NOW,
});

/** A candidate sharing `words`, all specific, with its score as its relevance. */
const c = (score: number, words: string[]) => ({
  score,
  relevance: score,
  overlap: words.length,
  distinctive: words.length,
  specificWords: words,
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

  it('answers with nothing when an everyday word is shared beside words no memory knows', () => {
    const memories = [
      mem('kafka.md', 'Kafka topic names follow domain.entity.event, e.g. orders.invoice.created'),
      mem('versioning.md', 'Breaking API changes go into a new /v2 route'),
      mem('hints.md', 'Every new Python function needs type hints'),
    ];
    expect(rankOffline('suggest a name for my new puppy', memories, { nowMs: NOW })).toEqual([]);
    // The same word next to the directory's own vocabulary is evidence again.
    const named = rankOffline('name the kafka topic for refunds', memories, { nowMs: NOW });
    expect(named.map((r) => r.file)).toEqual(['kafka.md']);
  });

  it('does not count a match reached only through a weak word', () => {
    const memories = [
      mem('tokyo.md', 'User works from Tokyo; the rest of the team is in San Francisco'),
      mem('rates.md', 'The public API allows 100 requests per minute per key'),
    ];
    // "job" reaches "work" through the concept table, and "work" is a weak word.
    expect(rankOffline('tips for a job interview', memories, { nowMs: NOW })).toEqual([]);
  });

  it('counts a shared two-word phrase as evidence even when each word is everyday', () => {
    const memories = [
      mem('tokens.md', 'Never hard-code colours in components; use the design tokens'),
      mem('errors.md', 'Let errors propagate to the request boundary'),
      mem('sentry.md', 'Frontend errors are reported to Sentry'),
    ];
    const selected = rankOffline('hard code #ff0000 for the error banner', memories, {
      nowMs: NOW,
    });
    expect(selected.map((r) => r.file)[0]).toBe('tokens.md');
    expect(selected[0]!.phrases).toBe(1);
  });

  it('is a pure function of the ranked list: common-only, sub-floor and lower-level candidates go', () => {
    const c = (score: number, distinctive: number, overlap = distinctive, words?: string[]) => ({
      score,
      relevance: score,
      overlap,
      distinctive,
      specificWords: words ?? Array.from({ length: distinctive }, (_, i) => `w${i}`),
    });
    const other = ['v0', 'v1'];
    expect(
      selectRelevant([c(5, 2), c(4, 2, 2, other), c(4.5, 1), c(1, 2, 2, other)], RELEVANCE_CUTOFF),
    ).toEqual([c(5, 2), c(4, 2, 2, other)]);
    expect(selectRelevant([c(3, 0, 1), c(2.8, 0, 1)], RELEVANCE_CUTOFF)).toEqual([
      c(3, 0, 1),
      c(2.8, 0, 1),
    ]);
    expect(selectRelevant([c(3, 0, 0)], RELEVANCE_CUTOFF)).toEqual([]);
    expect(selectRelevant([], RELEVANCE_CUTOFF)).toEqual([]);
  });

  it('needs two everyday words where one specific word is enough', () => {
    const c = (score: number, distinctive: number, words: string[]) => ({
      score,
      relevance: score,
      overlap: distinctive,
      distinctive,
      specificWords: words,
    });
    // "name" alone (everyday): nothing; "name" and "order" together corroborate each other.
    expect(selectRelevant([c(2, 1, [])], RELEVANCE_CUTOFF)).toEqual([]);
    expect(selectRelevant([c(2, 2, [])], RELEVANCE_CUTOFF)).toEqual([c(2, 2, [])]);
    expect(selectRelevant([c(2, 1, ['kafka'])], RELEVANCE_CUTOFF)).toEqual([c(2, 1, ['kafka'])]);
    // A better-scored everyday-only match does not push out the specific one.
    expect(selectRelevant([c(9, 1, []), c(2, 1, ['kafka'])], RELEVANCE_CUTOFF)).toEqual([
      c(2, 1, ['kafka']),
    ]);
  });

  it('drops a memory that adds nothing to the ones selected unless it is a near tie', () => {
    const c = (relevance: number, score: number, words: string[]) => ({
      score,
      relevance,
      overlap: words.length,
      distinctive: words.length,
      specificWords: words,
    });
    const best = c(2.4, 2.6, ['column', 'tabl']);
    // The same two words, clearly weaker: room in the context for nothing new.
    expect(selectRelevant([best, c(1.5, 2.5, ['column', 'tabl'])], RELEVANCE_CUTOFF)).toEqual([
      best,
    ]);
    // As good a match on the same words (a near tie): kept, the ranker cannot tell them apart.
    const tie = c(2.3, 2.2, ['column', 'tabl']);
    expect(selectRelevant([best, tie], RELEVANCE_CUTOFF)).toEqual([best, tie]);
    // A weaker memory with a word of its own still answers a part of the prompt.
    const own = c(1.9, 2.0, ['column', 'index']);
    expect(selectRelevant([best, own], RELEVANCE_CUTOFF)).toEqual([best, own]);
    // The near-tie floor is a constant of the cut-off.
    expect(
      selectRelevant([best, c(1.5, 2.5, ['column', 'tabl'])], {
        ...RELEVANCE_CUTOFF,
        redundantFloor: 0.6,
      }),
    ).toHaveLength(2);
  });

  it('does not select a memory on a shared bare number alone', () => {
    const memories = [
      mem('rate.md', 'The public API allows 100 requests per minute per key'),
      mem('flags.md', 'Remove a feature toggle within two sprints of full rollout'),
    ];
    const selected = rankOffline('the dark-mode toggle has been at 100% for a month', memories, {
      nowMs: NOW,
    });
    expect(selected.map((r) => r.file)).toEqual(['flags.md']);
  });

  it('keeps a memory below the coordination level only for a part of the prompt of its own', () => {
    const cron = c(6, ['cron', 'schedul']);
    // The Berlin note answers "Berlin"; the other one-word note repeats what cron.md answers.
    expect(selectRelevant([c(8, ['berlin']), cron, c(5, ['cron'])], RELEVANCE_CUTOFF)).toEqual([
      c(8, ['berlin']),
      cron,
    ]);
    // A word two of them hold is no part of its own: it tells neither apart.
    expect(selectRelevant([cron, c(5, ['berlin']), c(4.6, ['berlin'])], RELEVANCE_CUTOFF)).toEqual([
      cron,
    ]);
    // Its own part does not lift a memory that is a small fraction of the best.
    expect(selectRelevant([cron, c(2, ['berlin'])], RELEVANCE_CUTOFF)).toEqual([cron]);
  });

  const candidate = fc
    .record({
      score: fc.double({ min: 0, max: 20, noNaN: true }),
      relevance: fc.double({ min: 0, max: 20, noNaN: true }),
      overlap: fc.integer({ min: 0, max: 4 }),
      distinctive: fc.integer({ min: 0, max: 4 }),
      words: fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 4 }),
    })
    .map(({ score, relevance, overlap, distinctive, words }) => {
      const d = Math.min(distinctive, overlap);
      return { score, relevance, overlap, distinctive: d, specificWords: words.slice(0, d) };
    });
  const rankedList = fc
    .array(candidate, { maxLength: 8 })
    .map((xs) => [...xs].sort((a, b) => b.score - a.score));

  it('property: selects an ordered subset, never a one-everyday-word match, and never nothing when something has evidence', () => {
    fc.assert(
      fc.property(rankedList, (ranked) => {
        const selected = selectRelevant(ranked, RELEVANCE_CUTOFF);
        // An ordered subset of the ranked list, at most as long.
        let at = 0;
        for (const s of selected) {
          at = ranked.indexOf(s, at);
          expect(at).toBeGreaterThanOrEqual(0);
          at += 1;
        }
        const anyDistinctive = ranked.some((r) => r.distinctive > 0 && r.score > 0);
        for (const s of selected) {
          expect(s.score).toBeGreaterThan(0);
          if (anyDistinctive) expect(evidenceOf(s, RELEVANCE_CUTOFF)).toBeGreaterThanOrEqual(1);
          else expect(s.overlap).toBeGreaterThan(0);
        }
        const eligible = ranked.filter(
          (r) =>
            r.score > 0 && (anyDistinctive ? evidenceOf(r, RELEVANCE_CUTOFF) >= 1 : r.overlap > 0),
        );
        expect(selected.length === 0).toBe(eligible.length === 0);
      }),
    );
  });

  it('property: evidence is one per specific word, a fraction for each everyday one, one at least with a phrase', () => {
    fc.assert(
      fc.property(candidate, (c) => {
        const e = evidenceOf(c, RELEVANCE_CUTOFF);
        const specific = c.specificWords.length;
        expect(e).toBeCloseTo(
          specific + RELEVANCE_CUTOFF.everydayWeight! * (c.distinctive - specific),
          9,
        );
        expect(e).toBeLessThanOrEqual(c.distinctive);
        const more = {
          ...c,
          distinctive: c.distinctive + 1,
          specificWords: [...c.specificWords, 'z'],
        };
        expect(evidenceOf(more, RELEVANCE_CUTOFF)).toBeCloseTo(e + 1, 9);
        // A shared phrase makes it one word at least, and adds nothing above that.
        expect(evidenceOf({ ...c, phrases: 2 }, RELEVANCE_CUTOFF)).toBeCloseTo(Math.max(e, 1), 9);
      }),
    );
  });

  it('answers with nothing when the only shared word is generic software vocabulary', () => {
    const memories = [
      mem('commits.md', 'Commit messages are conventional commits scoped by platform'),
      mem('whole-files.md', 'When a change touches more than one function, send the whole file'),
      mem('keystore.md', 'The Android upload keystore is in the team vault'),
      mem('no-any.md', 'No any in TypeScript: use unknown and narrow it'),
    ];
    const top = (q: string) => rankOffline(q, memories, { nowMs: NOW }).map((r) => r.file);
    expect(top('how do I squash my last three commits')).toEqual([]);
    expect(top('write a function that checks whether a string is a palindrome')).toEqual([]);
    // The language a project is written in is in most of its questions.
    expect(top('what does the never type mean in TypeScript')).toEqual([]);
    // A specific word alone still selects, and a generic one beside it adds to it.
    expect(top('where is the keystore')).toEqual(['keystore.md']);
    expect(top('the commit scope for the platform')).toEqual(['commits.md']);
  });

  it('property: a prompt sharing one generic word with a memory, beside words none knows, selects nothing', () => {
    const generic = [
      'function',
      'string',
      'array',
      'commit',
      'release',
      'browser',
      'parse',
      'error',
    ];
    const unknown = ['palindrome', 'gpg', 'recursion', 'quicksort', 'webhook', 'lisbon'];
    fc.assert(
      fc.property(fc.constantFrom(...generic), fc.constantFrom(...unknown), (word, other) => {
        const memories = [
          mem('a.md', `Every ${word} in the billing module goes through review by Priya`),
          mem('b.md', 'Deploy the payments service only on Tuesdays'),
          mem('c.md', 'Screenshots are named by label, never by colour'),
        ];
        expect(rankOffline(`explain the ${other} ${word}`, memories, { nowMs: NOW })).toEqual([]);
      }),
    );
  });

  it('does not take a single letter ("C#", "C++") for evidence', () => {
    const memories = [mem('plugin.md', 'C++ のネイティブプラグインは CMake でビルドする')];
    expect(rankOffline('C# の async/await の仕組み', memories, { nowMs: NOW })).toEqual([]);
  });

  it('keeps a second memory on one word of evidence only when it is near the best', () => {
    const flags = c(5, ['screen', 'ship']);
    // "ship the new budget insights screen": the analytics note shares only "budget".
    expect(selectRelevant([flags, c(4, ['budget'])], RELEVANCE_CUTOFF)).toEqual([flags]);
    expect(selectRelevant([flags, c(4.8, ['budget'])], RELEVANCE_CUTOFF)).toEqual([
      flags,
      c(4.8, ['budget']),
    ]);
  });

  it('measures a memory against those covering at least as much of the prompt, not less', () => {
    const c = (relevance: number, words: string[], distinctive = words.length) => ({
      score: relevance,
      relevance,
      overlap: distinctive,
      distinctive,
      specificWords: words,
    });
    // "MySQL orders table changes, how do they reach Kafka": the DAG naming note scores higher on
    // "mysql" and the everyday "orders"; the CDC note holds both "mysql" and "kafka", and so does a
    // third note: "kafka" is no part of its own, yet the CDC note covers more of the prompt (the
    // third then adds nothing the two did not answer).
    const dag = c(3.2, ['mysql'], 2);
    const cdc = c(2.1, ['mysql', 'kafka']);
    const avro = c(1.8, ['mysql', 'kafka']);
    expect(selectRelevant([dag, cdc, avro], RELEVANCE_CUTOFF)).toEqual([dag, cdc]);
  });
});
