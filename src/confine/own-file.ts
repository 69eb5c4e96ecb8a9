/**
 * Engram's own files inside a folder it already holds (the index, its lock): read without
 * following a link at the name and only when it is a plain single-named file, so a `MEMORY.md`
 * swapped for a link to `/etc/passwd` never reaches a prompt.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { errnoCode } from '../util/errors.js';
import { ConfinementError } from './locate.js';

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
