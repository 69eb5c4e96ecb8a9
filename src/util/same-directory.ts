import { statSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * Whether two paths name the same directory: the same path once resolved, or, both existing, the
 * same device and inode (a symlink, a `..` through a link, a bind mount). A path that does not exist
 * yet compares as written. Two `stat`s without a thrown ENOENT: this runs every time a memory chain
 * is resolved, every prompt.
 */
export function sameDirectory(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  const sa = statSync(a, { throwIfNoEntry: false });
  if (sa === undefined) return false;
  const sb = statSync(b, { throwIfNoEntry: false });
  return sb !== undefined && sa.dev === sb.dev && sa.ino === sb.ino;
}
