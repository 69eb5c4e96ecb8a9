import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planInjectionBudget } from './budget.js';
import { MAX_MEMORIES_PER_TURN, MAX_SESSION_BYTES } from './constants.js';

const limits = { maxPerTurn: MAX_MEMORIES_PER_TURN, maxSessionBytes: MAX_SESSION_BYTES };

describe('planInjectionBudget', () => {
  it('never goes over the per-turn count or the session bytes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 30_000 }), { maxLength: 12 }),
        fc.integer({ min: 0, max: 80_000 }),
        fc.integer({ min: 0, max: 8 }),
        fc.integer({ min: 1, max: 100_000 }),
        (sizes, session, maxPerTurn, maxSessionBytes) => {
          const plan = planInjectionBudget(sizes, session, { maxPerTurn, maxSessionBytes });
          expect(plan.take).toBeLessThanOrEqual(Math.min(maxPerTurn, sizes.length));
          const added = sizes.slice(0, plan.take).reduce((a, b) => a + b, 0);
          expect(plan.sessionBytesAfter).toBe(session + added);
          if (plan.take > 0) expect(plan.sessionBytesAfter).toBeLessThanOrEqual(maxSessionBytes);
          if (session >= maxSessionBytes) expect(plan).toMatchObject({ take: 0, exhausted: true });
          // Stopping early for bytes always means the session is over.
          if (plan.take < Math.min(maxPerTurn, sizes.length)) expect(plan.exhausted).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('stops at the first memory that does not fit, even if a later one would', () => {
    const plan = planInjectionBudget([4000, 9000, 100], MAX_SESSION_BYTES - 5000, limits);
    expect(plan).toEqual({ take: 1, exhausted: true, sessionBytesAfter: MAX_SESSION_BYTES - 1000 });
  });

  it('takes at most five per turn without calling that exhaustion', () => {
    const plan = planInjectionBudget([10, 10, 10, 10, 10, 10], 0, limits);
    expect(plan).toEqual({ take: 5, exhausted: false, sessionBytesAfter: 50 });
  });
});
