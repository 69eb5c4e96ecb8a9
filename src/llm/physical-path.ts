import { lstat, readlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { EngramError, errnoCode } from '../util/errors.js';

const MAX_LINKS = 40;

async function walk(start: string, path: string, budget: { links: number }): Promise<string> {
  let current = isAbsolute(path) ? '/' : start;
  for (const part of path.split(/[\\/]+/)) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      // `current` is already physical, so its parent is the real parent, not a lexical guess.
      current = dirname(current);
      continue;
    }
    const next = join(current, part);
    let isLink = false;
    try {
      isLink = (await lstat(next)).isSymbolicLink();
    } catch (error) {
      if (!['ENOENT', 'ENOTDIR'].includes(errnoCode(error) ?? '')) throw error;
    }
    if (!isLink) {
      current = next;
      continue;
    }
    if (--budget.links < 0)
      throw new EngramError('invalid_path', `too many symbolic links in ${path}`);
    // Followed even when dangling: writing through a dangling link creates its target.
    current = await walk(current, await readlink(next), budget);
  }
  return current;
}

/**
 * Where a path really lands on disk: every symlink followed (dangling ones too) and `..` applied
 * to the physical parent, the way the kernel does it. Parts that do not exist yet are appended
 * as they are. Relative paths start at `base`.
 */
export function resolvePhysical(path: string, base: string): Promise<string> {
  const start = isAbsolute(base) ? base : `${process.cwd()}${sep}${base}`;
  return walk('/', isAbsolute(path) ? path : `${start}${sep}${path}`, { links: MAX_LINKS });
}

/** True when `target` is strictly inside `root` (both physical, absolute). */
export function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}
