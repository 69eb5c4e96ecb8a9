/**
 * When each memory was last recalled, from the recall log: the input of the reference decay rule
 * ("a reference not recalled in 30 days loses weight"). Recall runs every turn, so it reads only the
 * log's tail: the newest lines are the ones that matter, and the log may be long.
 */
import { open } from 'node:fs/promises';
import { errnoCode } from '../util/errors.js';

/** Enough for thousands of recent recalls; older ones only matter past the 30-day window. */
export const LAST_RECALLED_TAIL_BYTES = 256 * 1024;

/** file → newest time it was injected, from log lines `{ at, files }`. Pure. */
export function lastRecalledFrom(
  lines: ReadonlyArray<{ at?: unknown; files?: unknown }>,
): Map<string, number> {
  const last = new Map<string, number>();
  for (const line of lines) {
    const at = typeof line.at === 'string' ? Date.parse(line.at) : Number.NaN;
    if (Number.isNaN(at) || !Array.isArray(line.files)) continue;
    for (const file of line.files) {
      if (typeof file === 'string' && at > (last.get(file) ?? Number.NEGATIVE_INFINITY)) {
        last.set(file, at);
      }
    }
  }
  return last;
}

/** The last-recalled map from the tail of a recall log; a missing log is an empty map. */
export async function readLastRecalled(
  logPath: string,
  maxBytes: number = LAST_RECALLED_TAIL_BYTES,
): Promise<Map<string, number>> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(logPath, 'r');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return new Map();
    throw error;
  }
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - maxBytes);
    const buf = Buffer.alloc(size - start);
    await handle.read(buf, 0, buf.length, start);
    const lines = buf.toString('utf8').split('\n');
    if (start > 0) lines.shift(); // the first line may be cut
    const parsed: Array<{ at?: unknown; files?: unknown }> = [];
    for (const line of lines) {
      try {
        if (line.trim() !== '') parsed.push(JSON.parse(line));
      } catch {
        // a torn or foreign line says nothing about recall
      }
    }
    return lastRecalledFrom(parsed);
  } finally {
    await handle.close();
  }
}
