/**
 * Engram's own files inside a folder it already holds (the index, its lock): read without
 * following a link at the name and only when it is a plain single-named file, so a `MEMORY.md`
 * swapped for a link to `/etc/passwd` never reaches a prompt.
 */
import { constants } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { errnoCode } from '../util/errors.js';
import { ConfinementError } from './locate.js';

const FD_PATHS = process.platform === 'linux';

export async function readOwnFile(dir: string, name: string): Promise<string | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    // O_NONBLOCK: a FIFO under the name must not block the open (see confinement.ts).
    handle = await open(
      join(dir, name),
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new ConfinementError(name, 'it is a symbolic link');
    throw error;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new ConfinementError(name, 'not a regular file');
    if (info.nlink > 1) throw new ConfinementError(name, 'it is a hard link to a file elsewhere');
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * Run `fn` with a path that reaches engram's own folder `rel` (`/`-separated, e.g.
 * `.engram/backups`) inside a folder it already holds, each component created (0700) when missing
 * and opened O_NOFOLLOW from its parent's descriptor: a component that is a link (`.engram`
 * pointed at a folder outside) is refused with a ConfinementError, never entered. On Linux the
 * path handed to `fn` goes through the held descriptor (see locate.ts).
 */
export async function withOwnFolder<T>(
  dir: string,
  rel: string,
  fn: (held: string) => Promise<T>,
): Promise<T> {
  let handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  let shown = dir;
  try {
    for (const name of rel.split('/').filter(Boolean)) {
      const here = join(FD_PATHS ? `/proc/self/fd/${handle.fd}` : shown, name);
      shown = join(shown, name);
      await mkdir(here, { mode: 0o700 }).catch((error: unknown) => {
        if (errnoCode(error) !== 'EEXIST') throw error;
      });
      let next: Awaited<ReturnType<typeof open>>;
      try {
        next = await open(here, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
      } catch (error) {
        if (['ELOOP', 'ENOTDIR'].includes(errnoCode(error) ?? ''))
          throw new ConfinementError(
            shown,
            'it is a symbolic link or not a folder; engram keeps its own files only in a plain folder inside the memory directory (remove it, engram recreates it)',
          );
        throw error;
      }
      await handle.close();
      handle = next;
    }
    return await fn(FD_PATHS ? `/proc/self/fd/${handle.fd}` : shown);
  } finally {
    await handle.close();
  }
}
