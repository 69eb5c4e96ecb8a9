/**
 * Engram's own files inside a folder it already holds (the index, its lock): read without
 * following a link at the name and only when it is a plain single-named file, so a `MEMORY.md`
 * swapped for a link to `/etc/passwd` never reaches a prompt.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  writeSync,
} from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { errnoCode } from '../util/errors.js';
import { ConfinementError } from './locate.js';

const FD_PATHS = process.platform === 'linux';
const NOT_PLAIN_FOLDER =
  'it is a symbolic link or not a folder; engram keeps its own files only in a plain folder (remove it, engram recreates it)';

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
          throw new ConfinementError(shown, NOT_PLAIN_FOLDER);
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

/**
 * Make sure `folder` (engram's own, such as `<memory dir>/.engram`) is a plain folder: created
 * (0700, parents too) when missing, refused with a ConfinementError when it is a symbolic link or
 * not a folder, so the caches and logs written into it never land where a link points. Sync and
 * one lstat, for the per-turn writers.
 */
export function ensureOwnFolderSync(folder: string): void {
  let info = lstatSync(folder, { throwIfNoEntry: false });
  if (info === undefined) {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    info = lstatSync(folder);
  }
  if (!info.isDirectory()) throw new ConfinementError(folder, NOT_PLAIN_FOLDER);
}

/**
 * Append `text` to engram's own file (a log) in a plain folder: the file is created 0600 when
 * missing and opened O_NOFOLLOW (a link at its name is refused, not followed) and O_NONBLOCK (a
 * FIFO there fails instead of waiting); a hard link, a second name for a file elsewhere, is refused.
 */
export function appendOwnFileSync(path: string, text: string): void {
  ensureOwnFolderSync(dirname(path));
  let fd: number;
  try {
    fd = openSync(
      path,
      constants.O_WRONLY |
        constants.O_APPEND |
        constants.O_CREAT |
        constants.O_NOFOLLOW |
        constants.O_NONBLOCK,
      0o600,
    );
  } catch (error) {
    if (errnoCode(error) === 'ELOOP') throw new ConfinementError(path, 'it is a symbolic link');
    throw error;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new ConfinementError(path, 'not a regular file');
    if (info.nlink > 1) throw new ConfinementError(path, 'it is a hard link to a file elsewhere');
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}
