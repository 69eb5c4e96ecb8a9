/**
 * The audit's checks of what files hold and what they are: a memory whose bytes cannot be
 * injected (NUL bytes, not UTF-8; anywhere in the file, not only the head the scan reads), and
 * `.md` entries that are symbolic links, which engram never follows.
 */
import { readFile, realpath } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { FILE_CONCURRENCY, mapPool } from '../util/pool.js';
import { describeUninjectable, type Uninjectable, uninjectableBytes } from './injectable.js';
import type { MemoryHeader } from './types.js';

/** Files bigger than this are not read whole by the audit (recall never injects that much). */
const AUDIT_READ_MAX_BYTES = 10 * 1024 * 1024;

export interface ContentProblem {
  kind: 'uninjectable' | 'symlink';
  file: string;
  message: string;
}

export async function contentProblems(
  dir: string,
  memories: readonly MemoryHeader[],
  symlinks: readonly string[],
): Promise<ContentProblem[]> {
  const checked = await mapPool(memories, FILE_CONCURRENCY, async (m) => {
    if (m.unreadable !== undefined) return undefined;
    let reason: Uninjectable | undefined = m.uninjectable;
    if (reason === undefined) {
      const bytes = await readFile(join(dir, m.file)).catch(() => undefined);
      if (bytes && bytes.length <= AUDIT_READ_MAX_BYTES) reason = uninjectableBytes(bytes);
    }
    return reason === undefined
      ? undefined
      : {
          kind: 'uninjectable' as const,
          file: m.file,
          message: `${m.file} is skipped from recall: ${describeUninjectable(reason)}, so it cannot be injected into a model's context. Rewrite it as UTF-8 text or remove it.`,
        };
  });
  const links = await Promise.all(
    symlinks.map(async (file) => {
      const where = await linkDestination(dir, file);
      const folder = file.endsWith('/');
      return {
        kind: 'symlink' as const,
        file,
        message: folder
          ? `${file} is a symbolic link to a folder ${where}; engram never follows links, so no memory in it is recalled. Move the folder here instead of linking it.`
          : `${file} is a symbolic link ${where}; engram never follows links, so it is not recalled. Replace it with the file itself.`,
      };
    }),
  );
  return [...checked.filter((p) => p !== undefined), ...links];
}

async function linkDestination(dir: string, file: string): Promise<string> {
  try {
    const [root, target] = await Promise.all([realpath(dir), realpath(join(dir, file))]);
    const rel = relative(root, target);
    const outside = rel === '..' || rel.startsWith(`..${sep}`) || rel.startsWith(sep);
    return outside ? 'that leads out of the memory directory' : `to ${rel} inside the directory`;
  } catch {
    return 'to nothing (dangling)';
  }
}
