import { describe, expect, it } from 'vitest';
import { emptyRecallShape, type RecallShape } from './metrics.js';
import { summarizeRecallMetrics } from './stats.js';

function shape(over: Partial<RecallShape>): RecallShape {
  const start = { nowMs: Date.parse('2026-11-29T12:00:00Z'), sessionBytes: 0 };
  const empty = emptyRecallShape({ ...start, sessionBudgetBytes: 61_440, staleAfterDays: 30 });
  return { ...empty, total: 10, candidates: 10, durationMs: 1, timeSpentMs: 1, ...over };
}

describe('summarizeRecallMetrics', () => {
  it('counts the selection distribution, stale hits, exhaustion and fallbacks', () => {
    const stats = summarizeRecallMetrics([
      shape({ selected: 2, staleSelected: 1, durationMs: 3 }),
      shape({ selected: 0, durationMs: 1 }),
      shape({ selected: 5, budgetExhausted: true, fallback: true, durationMs: 2 }),
      shape({ skipped: 'single_word' }),
    ]);
    expect(stats).toMatchObject({
      recalls: 4,
      ran: 3,
      skipped: { single_word: 1 },
      selectionCounts: [1, 0, 1, 0, 0, 1],
      selectedTotal: 7,
      staleSelected: 1,
      budgetExhausted: 1,
      fallbacks: 1,
      medianDurationMs: 2,
    });
    expect(stats.staleHitRatio).toBeCloseTo(1 / 7);
    expect(stats.alarms.join('\n')).toMatch(/budget ran out 1 time/);
  });

  it('raises an alarm when recall always selects nothing, or always five', () => {
    const zeros = summarizeRecallMetrics(Array.from({ length: 12 }, () => shape({ selected: 0 })));
    expect(zeros.alarms.join('\n')).toMatch(/selected nothing in all 12 runs/);
    const fives = summarizeRecallMetrics(Array.from({ length: 12 }, () => shape({ selected: 5 })));
    expect(fives.alarms.join('\n')).toMatch(/padding/);
    const mixed = summarizeRecallMetrics(
      Array.from({ length: 12 }, (_, i) => shape({ selected: i % 3 })),
    );
    expect(mixed.alarms).toEqual([]);
  });

  it('needs three recalls before a constant count is an alarm', () => {
    const runs = (n: number) => Array.from({ length: n }, () => shape({ selected: 0 }));
    expect(summarizeRecallMetrics(runs(2)).alarms).toEqual([]);
    expect(summarizeRecallMetrics(runs(3)).alarms.join('\n')).toMatch(/nothing in all 3 runs/);
  });

  it('has no ratio and no alarms for an empty log', () => {
    const stats = summarizeRecallMetrics([]);
    expect(stats).toMatchObject({
      recalls: 0,
      staleHitRatio: null,
      medianDurationMs: null,
      alarms: [],
    });
  });
});
