import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sortedSteps } from './sorted-steps.js';

function drain<T>(steps: Generator<void, T>): { value: T; steps: number } {
  let count = 0;
  for (;;) {
    const step = steps.next();
    if (step.done) return { value: step.value, steps: count };
    count++;
  }
}

describe('sortedSteps', () => {
  it('gives the same order as Array.prototype.sort, whatever the strings and the step size', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'binary' }), { maxLength: 300 }),
        fc.integer({ min: 1, max: 64 }),
        (strings, perStep) => {
          expect(drain(sortedSteps(strings, perStep)).value).toEqual([...strings].sort());
        },
      ),
    );
  });

  it('pauses between pieces of work and leaves its input as it was', () => {
    const strings = Array.from({ length: 10_000 }, (_, i) => `t${(i * 7919) % 10_007}`);
    const before = [...strings];
    const { value, steps } = drain(sortedSteps(strings, 1_000));
    expect(value).toEqual([...strings].sort());
    expect(strings).toEqual(before);
    // 10 sorted runs, then about 4 merge passes of 10 steps each.
    expect(steps).toBeGreaterThanOrEqual(40);
  });
});
