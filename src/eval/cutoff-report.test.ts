import { describe, expect, it } from 'vitest';
import { cutoffReport } from './cutoff-report.js';
import type { LocomoConversation } from './locomo.js';

const conversation: LocomoConversation = {
  sample: '1',
  observations: [
    {
      index: 0,
      session: 1,
      speaker: 'A',
      text: 'Mel adopted a puppy named Biscuit',
      diaIds: ['D1:1'],
    },
    {
      index: 1,
      session: 1,
      speaker: 'A',
      text: 'Mel runs a pottery class on Fridays',
      diaIds: ['D1:2'],
    },
    { index: 2, session: 1, speaker: 'B', text: 'Jon moved to Lisbon for work', diaIds: ['D1:3'] },
  ],
  questions: [
    { question: 'What is the name of the puppy Mel adopted?', category: 4, evidence: ['D1:1'] },
    { question: 'Where did Jon move?', category: 4, evidence: ['D1:3'] },
    { question: 'What is the boiling point of mercury?', category: 5, evidence: ['D1:2'] },
    { question: 'Where did Mel adopt the puppy Biscuit?', category: 4, evidence: [] },
  ],
};

describe('the LoCoMo report with the cut-off on', () => {
  it('counts evidence among what was selected and questions answered with nothing, per category', () => {
    const r = cutoffReport([conversation]);
    expect(r.maxSelected).toBe(5);
    expect(r.categories['4']).toMatchObject({ questions: 3, scored: 2, evidence: 2, nothing: 0 });
    expect(r.categories['4']!.evidenceShare).toBe((100 * 2) / r.categories['4']!.selected);
    expect(r.categories['5']).toMatchObject({
      questions: 1,
      selected: 0,
      nothing: 1,
      nothingShare: 100,
    });
    expect(r.all).toMatchObject({ questions: 4, scored: 3 });
  });

  it('leaves a question whose evidence names no dialog id out of the shares, as R@k does', () => {
    const r = cutoffReport([conversation]);
    // Biscuit's observation would be selected for it; counted, it would lower the evidence share.
    expect(r.categories['4']!.evidenceShare).toBe(100);
    expect(r.categories['4']!.selected).toBe(r.categories['4']!.evidence);
  });
});
