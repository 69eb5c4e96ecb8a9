import { describe, expect, it } from 'vitest';
import type { Summary } from './metric.js';
import { type LocomoReport, missedLocomoTargets } from './report.js';

function reportWith(recall: Record<string, number>): LocomoReport {
  const summary: Summary = {
    questions: 10,
    scored: 10,
    recall,
    hitAny: recall,
    ceiling: { recall: 80, hitAny: 80 },
  };
  const breakdown = { overall: summary, answerable: summary, categories: {} };
  return {
    data: 'x',
    conversations: 10,
    questions: 10,
    observations: 10,
    k: Object.keys(recall).map(Number),
    splits: { dev: [], heldout: [] },
    rankers: {
      engram: {
        msPerQuery: 0,
        dev: breakdown,
        heldout: breakdown,
        all: breakdown,
        conversations: {},
      },
    },
  };
}

describe('the LoCoMo targets', () => {
  it('are met at R@5 57 and R@10 63 over all conversations', () => {
    expect(missedLocomoTargets(reportWith({ '5': 57, '10': 63, '25': 1 }))).toEqual([]);
  });

  it('name each cut-off that falls short, with its value', () => {
    expect(missedLocomoTargets(reportWith({ '5': 56.99, '10': 70 }))).toEqual(['R@5 56.99 < 57']);
    expect(missedLocomoTargets(reportWith({ '5': 60, '10': 62.5 }))).toEqual(['R@10 62.50 < 63']);
  });

  it('count a cut-off the run did not measure as missed', () => {
    expect(missedLocomoTargets(reportWith({ '5': 60 }))).toEqual([
      'R@10 not measured (add 10 to --k)',
    ]);
  });
});
