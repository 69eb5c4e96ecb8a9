import { statSync } from 'node:fs';

/**
 * True when nothing is at `path`, asked without an exception: a thrown ENOENT captures a stack,
 * which cost more than the read itself for files read on every prompt that are usually missing.
 * Any other answer (the file is there, ENOTDIR, EACCES) is false, and the read that follows says
 * what it means.
 */
export function isMissingPath(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) === undefined;
  } catch {
    return false;
  }
}
