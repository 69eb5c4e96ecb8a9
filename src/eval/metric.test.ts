import { describe, expect, it } from 'vitest';
import { FIXTURE_CONVERSATION } from './__fixtures__/locomo.js';
import { normalizeDiaIds } from './dia-ids.js';
import { parseConversation } from './locomo.js';
import { breakdown, evidenceRecall } from './metric.js';
import { runRanker } from './runner.js';

describe('normalizeDiaIds', () => {
  it('extracts canonical ids from the messy forms of the release', () => {
    expect(normalizeDiaIds('D30:05')).toEqual(['D30:5']);
    expect(normalizeDiaIds('D8:6; D9:17')).toEqual(['D8:6', 'D9:17']);
    expect(normalizeDiaIds('D26:14, D26:34, D26:42')).toEqual(['D26:14', 'D26:34', 'D26:42']);
    expect(normalizeDiaIds('D9:1 D4:4 D4:6')).toEqual(['D9:1', 'D4:4', 'D4:6']);
    expect(normalizeDiaIds(['D:11:26', 'D11:26'])).toEqual(['D11:26']);
    expect(normalizeDiaIds(['D', '', 7, null])).toEqual([]);
  });
});

describe('the LoCoMo metric on a hand-checked fixture', () => {
  const conversation = parseConversation(FIXTURE_CONVERSATION, '26');
  // A fixed ranking for every question: observations in reverse order of appearance.
  const reverse = () => () => [4, 3, 2, 1, 0];

  it('parses observations with every dialog id they were drawn from', () => {
    expect(conversation.observations.map((o) => o.diaIds)).toEqual([
      ['D1:1'],
      ['D1:3'],
      ['D1:2'],
      ['D2:1', 'D2:3'],
      ['D2:2', 'D2:4'],
    ]);
    expect(conversation.questions.map((q) => q.evidence)).toEqual([
      ['D1:3'],
      ['D30:5'],
      ['D1:1', 'D2:2'],
      ['D2:3', 'D2:1'],
      [],
      ['D1:2'],
      ['D1:3', 'D9:9'],
    ]);
  });

  it("covers a fraction of each question's evidence by the top-k ids", () => {
    const ranked = [['D2:2', 'D2:4'], ['D2:1', 'D2:3'], ['D1:2']];
    expect(evidenceRecall(['D1:1', 'D2:2'], ranked, 1)).toBe(0.5);
    expect(evidenceRecall(['D2:3', 'D2:1'], ranked, 2)).toBe(1);
    expect(evidenceRecall(['D2:3', 'D2:1'], ranked, 1)).toBe(0);
  });

  it('averages over questions with evidence, per category, with hit-any and the ceiling', () => {
    const run = runRanker([conversation], reverse, [1, 2, 4]);
    const all = run.splits.all;
    // Hand-computed: per-question recall at k=1,2,4 for q1..q7 (q5 has no evidence):
    // q1 0,0,1  q2 0,0,0  q3 .5,.5,.5  q4 0,1,1  q6 0,0,1  q7 0,0,.5
    expect(all.overall.questions).toBe(7);
    expect(all.overall.scored).toBe(6);
    expect(all.overall.recall).toEqual({ '1': 8.33, '2': 25, '4': 66.67 });
    expect(all.overall.hitAny).toEqual({ '1': 16.67, '2': 33.33, '4': 83.33 });
    expect(all.overall.ceiling).toEqual({ recall: 75, hitAny: 83.33 });
    expect(all.answerable.scored).toBe(5);
    expect(all.answerable.recall).toEqual({ '1': 10, '2': 30, '4': 60 });
    expect(all.categories['1']!.recall).toEqual({ '1': 25, '2': 75, '4': 75 });
    expect(all.categories['2']!.recall['4']).toBe(25);
    expect(all.categories['3']!.scored).toBe(0);
    expect(all.categories['5']!.recall).toEqual({ '1': 0, '2': 0, '4': 100 });
    expect(run.splits.dev.overall.recall).toEqual(all.overall.recall);
    expect(run.splits.heldout.overall.questions).toBe(0);
  });

  it('dumps the dialog ids of the top observations, one entry per observation', () => {
    const run = runRanker([conversation], reverse, [1, 2, 4]);
    expect(run.rankings[0]).toEqual({
      sample: '26',
      question: 'What pet does Ana have?',
      category: 4,
      evidence: ['D1:3'],
      ranked: ['D2:2,D2:4', 'D2:1,D2:3', 'D1:2', 'D1:3'],
    });
  });

  it('agrees with a recomputation from the dump alone', () => {
    const run = runRanker([conversation], reverse, [2]);
    const fromDump = breakdown(
      run.rankings.map((r) => ({
        category: r.category,
        evidence: r.evidence,
        ranked: r.ranked.map((entry) => entry.split(',')),
        coverable: new Set(conversation.observations.flatMap((o) => o.diaIds)),
      })),
      [2],
    );
    expect(fromDump.overall.recall).toEqual(run.splits.all.overall.recall);
  });
});
