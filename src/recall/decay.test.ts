import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DECAY, decayWeight } from './decay.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 1);
const types = fc.constantFrom(
  'user',
  'feedback',
  'project',
  'reference',
  'unknown',
) as fc.Arbitrary<'user' | 'feedback' | 'project' | 'reference' | 'unknown'>;
const days = fc.double({ min: 0, max: 5000, noNaN: true });

describe('per-type decay', () => {
  it('is a weight in (0, 1], exactly 1 for a memory written now', () => {
    fc.assert(
      fc.property(types, days, (type, age) => {
        const w = decayWeight({ type, mtimeMs: NOW - age * DAY, nowMs: NOW });
        expect(w).toBeGreaterThan(0);
        expect(w).toBeLessThanOrEqual(1);
        expect(decayWeight({ type, mtimeMs: NOW, nowMs: NOW })).toBe(1);
      }),
    );
  });

  it('never grows with age', () => {
    fc.assert(
      fc.property(types, days, days, (type, a, b) => {
        const [young, old] = a <= b ? [a, b] : [b, a];
        expect(decayWeight({ type, mtimeMs: NOW - old * DAY, nowMs: NOW })).toBeLessThanOrEqual(
          decayWeight({ type, mtimeMs: NOW - young * DAY, nowMs: NOW }),
        );
      }),
    );
  });

  it('lets user facts decay least, then feedback, then project', () => {
    fc.assert(
      fc.property(days, (age) => {
        const w = (type: 'user' | 'feedback' | 'project') =>
          decayWeight({ type, mtimeMs: NOW - age * DAY, nowMs: NOW });
        expect(w('user')).toBeGreaterThanOrEqual(w('feedback'));
        expect(w('feedback')).toBeGreaterThanOrEqual(w('project'));
      }),
    );
    expect(decayWeight({ type: 'user', mtimeMs: NOW - 365 * DAY, nowMs: NOW })).toBeCloseTo(0.5);
  });

  it('keeps a reference at full weight while it is recalled, and lowers it after 30 idle days', () => {
    const mtimeMs = NOW - 400 * DAY;
    expect(
      decayWeight({ type: 'reference', mtimeMs, lastRecalledMs: NOW - 5 * DAY, nowMs: NOW }),
    ).toBe(1);
    expect(decayWeight({ type: 'reference', mtimeMs: NOW - 29 * DAY, nowMs: NOW })).toBe(1);
    expect(decayWeight({ type: 'reference', mtimeMs: NOW - 60 * DAY, nowMs: NOW })).toBeCloseTo(
      0.5,
    );
    fc.assert(
      fc.property(days, days, (age, idle) => {
        const recalled = NOW - Math.min(age, idle) * DAY;
        const base = { type: 'reference' as const, mtimeMs: NOW - age * DAY, nowMs: NOW };
        expect(decayWeight({ ...base, lastRecalledMs: recalled })).toBeGreaterThanOrEqual(
          decayWeight(base),
        );
      }),
    );
  });

  it('takes its constants as plain data', () => {
    const slow = { ...DEFAULT_DECAY, halfLifeDays: { ...DEFAULT_DECAY.halfLifeDays, project: 70 } };
    const age = { type: 'project' as const, mtimeMs: NOW - 70 * DAY, nowMs: NOW };
    expect(decayWeight(age, slow)).toBeCloseTo(0.5);
    expect(decayWeight(age)).toBeCloseTo(1 / 11);
  });
});
