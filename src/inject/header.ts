import { memoryAgeDays, memoryAgeText, stalenessWarning } from '../memdir/freshness.js';

/**
 * The line(s) above a memory's text, computed ONCE when the memory is selected and stored with the
 * injection: "saved today" must not turn into "saved yesterday" on a later render, or every byte
 * of the conversation after it misses the provider's prompt cache. Fresh memories
 * get a relative age; older ones a staleness warning (sparse on purpose: warnings on everything
 * are ignored). Pure.
 */
export function memoryHeader(path: string, mtimeMs: number, nowMs: number, note = ''): string {
  const days = memoryAgeDays(mtimeMs, nowMs);
  const warning = stalenessWarning(days);
  const header = warning
    ? `${warning}\n\nMemory: ${path}:`
    : `Memory (saved ${memoryAgeText(days)}): ${path}:`;
  // What claim verification found goes first and is frozen with the rest (seed 000 §8.3).
  return note ? `${note}\n\n${header}` : header;
}
