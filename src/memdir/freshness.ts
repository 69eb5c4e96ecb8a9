const DAY_MS = 86_400_000;

/** Whole days between a file's mtime and now (never negative: clocks skew). Pure given `nowMs`. */
export function memoryAgeDays(mtimeMs: number, nowMs: number): number {
  return Math.max(0, Math.floor((nowMs - mtimeMs) / DAY_MS));
}

/** "today", "yesterday", "N days ago". Models reason badly about raw timestamps, well about this. */
export function memoryAgeText(days: number): string {
  if (days <= 0) return 'today';
  if (days === 1) return 'yesterday';
  return `${days} days ago`;
}

/**
 * The warning shown with a memory older than a day: a stale memory with a precise file:line reads
 * as verified fact, so the reader is told to check before relying on it. Empty when fresh.
 */
export function stalenessWarning(days: number): string {
  if (days <= 1) return '';
  return (
    `This memory is ${days} days old. It records what was true when it was written; ` +
    'code, files and decisions may have changed since. Check what it says against the current ' +
    'project before acting on it or recommending it.'
  );
}

/** "today", "yesterday" or "N days ago" for a file's mtime: what a header shows. */
export function memoryAge(mtimeMs: number, nowMs: number): string {
  return memoryAgeText(memoryAgeDays(mtimeMs, nowMs));
}

/** The staleness warning for a file's mtime ('' when it is at most a day old). */
export function memoryFreshnessText(mtimeMs: number, nowMs: number): string {
  return stalenessWarning(memoryAgeDays(mtimeMs, nowMs));
}
