import { isOneShotProcess } from './process-kind.js';
import { SLICE_MS, yieldToLoop } from './yield-to-loop.js';

/**
 * Work written as a generator that yields between steps (an index build, a snapshot) runs either
 * at once or in slices of time with returns to the event loop between them; one place for both.
 */

/** Run `steps` to the end without pausing. */
export function runSteps<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * Run `steps` to the end, returning to the event loop whenever a slice of time is spent; in a
 * one-shot process, which has no loop to keep turning (util/process-kind.ts), without pausing.
 */
export async function runStepsInSlices<T>(steps: Generator<void, T>): Promise<T> {
  if (isOneShotProcess()) return runSteps(steps);
  let sliceStart = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - sliceStart > SLICE_MS) {
      await yieldToLoop();
      sliceStart = performance.now();
    }
  }
}
