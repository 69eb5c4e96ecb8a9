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

/** Run `steps` to the end, returning to the event loop whenever a slice of time is spent. */
export async function runStepsInSlices<T>(steps: Generator<void, T>): Promise<T> {
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
