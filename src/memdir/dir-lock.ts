import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isInsideOrSame } from '../confine/index.js';
import { type FileLockOptions, withFileLock } from '../util/file-lock.js';
import { realpathOrSelf } from '../util/realpath-or-self.js';
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

/**
 * The write lock for a tool that may write into several memory directories (a forked agent with
 * the project and the user layer): the lock of the directory holding `path` (the innermost one,
 * compared by its spelling and by its real path), else the first directory's.
 */
export function withLockOfDirHolding<T>(
  dirs: readonly string[],
  path: string,
  fn: () => Promise<T>,
): Promise<T> {
  const target = resolve(path);
  const holding = dirs
    .filter((dir) => [resolve(dir), realpathOrSelf(dir)].some((d) => isInsideOrSame(target, d)))
    .sort((a, b) => b.length - a.length)[0];
  const dir = holding ?? dirs[0];
  return dir === undefined ? fn() : withMemoryLock(dir, fn);
}

/**
 * The `writeLock` of a forked agent's file tools: each write takes the lock of the layer it lands
 * in (the memory directory, or the user layer when the agent may write there).
 */
export function layerWriteLock(
  memoryDir: string,
  userDir?: string,
): <T>(fn: () => Promise<T>, path: string) => Promise<T> {
  const dirs = userDir === undefined ? [memoryDir] : [memoryDir, userDir];
  return (fn, path) => withLockOfDirHolding(dirs, path, fn);
}
