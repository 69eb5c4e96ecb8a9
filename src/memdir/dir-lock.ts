import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type FileLockOptions, withFileLock } from '../util/file-lock.js';
import { INDEX_FILE } from './constants.js';

/** The one write lock of a memory directory (a directory; see util/file-lock.ts). */
export const MEMORY_LOCK = `.${INDEX_FILE}.lock`;

export function memoryLockPath(dir: string): string {
  return join(dir, MEMORY_LOCK);
}

/**
 * Run `fn` holding the memory directory's write lock. Every write of MEMORY.md and of a memory
 * file, from every door, runs inside it, so a memory file and its index line change together.
 * Re-entrant: `updateIndex` inside a held lock does not wait for itself.
 */
export async function withMemoryLock<T>(
  dir: string,
  fn: () => Promise<T>,
  options?: FileLockOptions,
): Promise<T> {
  // The first save into a new directory creates it (as the confined writes would).
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return withFileLock(memoryLockPath(dir), fn, options);
}
