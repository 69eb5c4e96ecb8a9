import { isOneShotProcess } from './process-kind.js';

/**
 * Long synchronous work (a scan, an index build, serializing a cache) runs in slices of this many
 * milliseconds with a return to the event loop between them, so a long-running host's loop never
 * waits for longer than one slice.
 */
export const SLICE_MS = 4;

const NOW = Promise.resolve();

/**
 * Let timers and I/O callbacks run; resolves on the next turn of the event loop. In a one-shot
 * process (util/process-kind.ts) there is no loop to keep turning, so it resolves at once: a turn
 * would only be one more poll of the kernel. (Code that needs the loop to deliver an event, as the
 * tree watch does, asks for its turns itself.)
 */
export function yieldToLoop(): Promise<void> {
  if (isOneShotProcess()) return NOW;
  return new Promise<void>((resolve) => setImmediate(resolve));
}
