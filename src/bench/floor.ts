import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** What a header needs at most from the start of a file (the scan's first read is this size too). */
export const FLOOR_HEAD_BYTES = 4096;

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).filter((n) => n.endsWith('.md'));
}

/**
 * The least any file-based recall must do, done the cheapest way Node offers: one synchronous
 * readdir, then a stat and a 4 KB head read of every file, one after another (no thread-pool round
 * trips, no promises). Returns the bytes read, so the work cannot be optimised away.
 */
export function filesystemFloor(dir: string): number {
  const buffer = Buffer.allocUnsafe(FLOOR_HEAD_BYTES);
  let bytes = 0;
  for (const name of markdownFiles(dir)) {
    const path = join(dir, name);
    statSync(path);
    const fd = openSync(path, 'r');
    try {
      bytes += readSync(fd, buffer, 0, FLOOR_HEAD_BYTES, 0);
    } finally {
      closeSync(fd);
    }
  }
  return bytes;
}

/** readdir + stat of every file and nothing else: what revalidating a cache by stat costs. */
export function statFloor(dir: string): number {
  let newest = 0;
  for (const name of markdownFiles(dir))
    newest = Math.max(newest, statSync(join(dir, name)).mtimeMs);
  return newest;
}
