/**
 * Long synchronous work (a scan, an index build, serializing a cache) runs in slices of this many
 * milliseconds with a return to the event loop between them, so a long-running host's loop never
 * waits for longer than one slice.
 */
export const SLICE_MS = 4;

/** Let timers and I/O callbacks run; resolves on the next turn of the event loop. */
export function yieldToLoop(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}
