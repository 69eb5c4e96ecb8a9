import {
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { projectKey, sanitizeProjectPath } from '../config/git-root.js';
import { errnoCode } from '../util/errors.js';

/** The marker in a project folder naming the path that owns it. */
export const PROJECT_MARKER = '.engram-project.json';

/** Folders read while looking for other owners of an old key; past this the answer is "unsure". */
const MAX_DIRS_READ = 2_000;

export type ProjectMigration =
  | { kind: 'none' }
  | { kind: 'migrated'; from: string; to: string }
  | { kind: 'ambiguous'; from: string; to: string; others: string[] };

/**
 * Every existing folder whose sanitized path is `key` (the old, unhashed project key), found by
 * walking from `/` only into entries whose sanitized name continues the key. Stops after `limit`
 * owners; `complete` is false when a folder could not be read or the walk grew too large, in which
 * case another owner may exist.
 */
export function pathsWithSanitizedKey(
  key: string,
  limit = 3,
): { paths: string[]; complete: boolean } {
  const paths: string[] = [];
  let reads = 0;
  let complete = true;
  const walk = (dir: string, rest: string): void => {
    if (paths.length >= limit || !complete) return;
    if (rest === '') {
      paths.push(dir);
      return;
    }
    if (++reads > MAX_DIRS_READ) {
      complete = false;
      return;
    }
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch (error) {
      const code = errnoCode(error);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') complete = false;
      return;
    }
    for (const name of names) {
      const part = `-${sanitizeProjectPath(name)}`;
      if (!rest.startsWith(part) || (rest.length > part.length && rest[part.length] !== '-'))
        continue;
      const child = join(dir, name);
      try {
        if (!statSync(child).isDirectory()) continue;
      } catch {
        continue; // a dangling link owns nothing
      }
      walk(child, rest.slice(part.length));
    }
  };
  if (key.startsWith('-')) walk('/', key);
  return { paths, complete };
}

/** The owner a project folder's marker names, if it has a readable one. */
export function projectFolderOwner(folder: string): string | undefined {
  try {
    const data = JSON.parse(readFileSync(join(folder, PROJECT_MARKER), 'utf8')) as {
      root?: unknown;
    };
    return typeof data.root === 'string' ? data.root : undefined;
  } catch {
    return undefined;
  }
}

function writeMarker(folder: string, root: string): void {
  try {
    writeFileSync(join(folder, PROJECT_MARKER), `${JSON.stringify({ root })}\n`, { mode: 0o600 });
  } catch {
    // best effort: the hashed key already names this root
  }
}

/**
 * Move a project folder made under the old unhashed key (`projects/<sanitized root>`) to the
 * hashed key, once, by `rename` (atomic, nothing copied, nothing lost). Only when the old folder
 * belongs to `root`: its marker names `root`, or, without a marker, `root` is the only existing
 * folder whose path sanitizes to that key. Otherwise nothing moves and the caller is told why.
 */
export function migrateProjectFolder(projectsDir: string, root: string): ProjectMigration {
  const to = join(projectsDir, projectKey(root));
  const from = join(projectsDir, sanitizeProjectPath(root));
  if (existsSync(join(to, 'memory')) || !existsSync(join(from, 'memory'))) return { kind: 'none' };
  const owner = projectFolderOwner(from);
  if (owner !== undefined && owner !== root) return { kind: 'none' }; // another path's folder
  if (owner === undefined) {
    const found = pathsWithSanitizedKey(sanitizeProjectPath(root));
    const others = found.paths.filter((p) => p !== root);
    if (!found.complete || others.length > 0 || !found.paths.includes(root))
      return { kind: 'ambiguous', from, to, others };
  }
  try {
    // The whole folder when the new one does not exist yet; else just its memory folder.
    if (!existsSync(to)) renameSync(from, to);
    else renameSync(join(from, 'memory'), join(to, 'memory'));
  } catch (error) {
    const code = errnoCode(error);
    // Another process moved it first, or made the new memory folder: nothing is lost either way.
    if (code === 'ENOENT' || code === 'ENOTEMPTY' || code === 'EEXIST') return { kind: 'none' };
    throw error;
  }
  writeMarker(to, root);
  return { kind: 'migrated', from, to };
}
