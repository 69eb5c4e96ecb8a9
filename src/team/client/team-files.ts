import { constants, type Dirent } from 'node:fs';
import { lstat, mkdir, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfinementError, createConfinement } from '../../confine/index.js';
import { errnoCode } from '../../util/errors.js';
import { checkTeamKey } from '../keys.js';

/** The team layer of a memory directory. */
export const TEAM_DIR_NAME = 'team';

export function teamDirOf(memoryDir: string): string {
  return join(memoryDir, TEAM_DIR_NAME);
}

/** A memory file (relative to the memory directory) that belongs to the team layer. */
export function isTeamMemoryFile(file: string): boolean {
  return file.startsWith(`${TEAM_DIR_NAME}/`);
}

export interface LocalTeamFiles {
  contents: Map<string, string>;
  /** Files that are not pushed, and why (`invalid_key`, `too_large`, `symlink`, `hard_link`). */
  skipped: Array<{ key: string; reason: string }>;
}

/**
 * The team folder must be a plain folder. It is found by name inside the memory directory, and a
 * link there would carry every push's reads (to the server) and every pull's writes to wherever
 * it points; the memory scan never follows a linked folder either. Throws a ConfinementError.
 */
export async function assertPlainTeamFolder(teamDir: string): Promise<void> {
  const info = await lstat(teamDir).catch((error: unknown) => {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  });
  if (info?.isSymbolicLink())
    throw new ConfinementError(
      teamDir,
      'the team folder is a symbolic link and engram never follows a linked folder; make it a plain folder',
    );
}

/**
 * Read the team folder for a push: regular `.md` files only. Symlinks are never followed (a link
 * could pull a file from anywhere on the machine into the team), nor hard links (a second name
 * for a file that may live anywhere on the disk); dot entries are engram's own.
 */
export async function readLocalTeamFiles(
  teamDir: string,
  maxEntryBytes: number,
): Promise<LocalTeamFiles> {
  await assertPlainTeamFolder(teamDir);
  const out: LocalTeamFiles = { contents: new Map(), skipped: [] };
  await walk(teamDir, '', out, maxEntryBytes);
  return out;
}

async function walk(root: string, rel: string, out: LocalTeamFiles, cap: number): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(join(root, rel), { withFileTypes: true });
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return;
    throw error;
  }
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const key = rel === '' ? entry.name : `${rel}/${entry.name}`;
    if (entry.isSymbolicLink()) {
      if (entry.name.endsWith('.md')) out.skipped.push({ key, reason: 'symlink' });
      continue;
    }
    if (entry.isDirectory()) {
      await walk(root, key, out, cap);
      continue;
    }
    if (!entry.isFile() || !entry.name.endsWith('.md')) continue;
    if (!checkTeamKey(key).ok) {
      out.skipped.push({ key, reason: 'invalid_key' });
      continue;
    }
    const text = await readBounded(join(root, key), cap);
    if (typeof text === 'string') out.contents.set(key, text);
    else if (text !== null) out.skipped.push({ key, reason: text.skip });
  }
}

/** The text; a reason to skip (over `cap` bytes, a hard link); `null` when it vanished or is no file. */
async function readBounded(
  path: string,
  cap: number,
): Promise<string | { skip: 'too_large' | 'hard_link' } | null> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    // O_NOFOLLOW: a name swapped for a link after the listing is not followed; O_NONBLOCK: a FIFO
    // swapped in does not hold the open (it is then no regular file).
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null;
    if (errnoCode(error) === 'ELOOP') return null;
    throw error;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return null;
    if (info.nlink > 1) return { skip: 'hard_link' };
    if (info.size > cap) return { skip: 'too_large' };
    const buf = Buffer.alloc(info.size + 1);
    const { bytesRead } = await handle.read(buf, 0, info.size + 1, 0);
    if (bytesRead > cap) return { skip: 'too_large' };
    return buf.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

export type SafeWrite = { ok: true; path: string } | { ok: false; reason: string };

/**
 * Write one key below the team folder, or refuse. The key is validated again here (it may come
 * from a server); no folder on the way and not the file itself may be a symlink (a link would
 * carry the write elsewhere, and even one pointing inside is not followed); the write itself goes
 * through the one confinement, which walks the path physically and writes atomically.
 */
export async function writeTeamFile(
  teamDir: string,
  key: string,
  content: string,
): Promise<SafeWrite> {
  const check = checkTeamKey(key);
  if (!check.ok) return { ok: false, reason: check.reason };
  await assertPlainTeamFolder(teamDir);
  await mkdir(teamDir, { recursive: true });
  const segments = key.split('/');
  let path = teamDir;
  for (const [i, segment] of segments.entries()) {
    path = join(path, segment);
    const kind = await kindOf(path);
    if (kind === 'missing') break;
    const last = i === segments.length - 1;
    if (kind === 'symlink') {
      return { ok: false, reason: last ? 'target is a symlink' : 'path goes through a symlink' };
    }
    if (!last && kind !== 'dir') return { ok: false, reason: 'path goes through a file' };
    if (last && kind !== 'file') return { ok: false, reason: 'target is not a file' };
  }
  try {
    await createConfinement({ roots: [{ path: teamDir, write: true }] }).writeText(key, content);
  } catch (error) {
    if (error instanceof ConfinementError) return { ok: false, reason: error.reason };
    throw error;
  }
  return { ok: true, path: join(teamDir, ...segments) };
}

/**
 * The local copy of a key deleted on the server, through the one confinement: a folder on the way
 * that is a link out of the team folder is refused (`engram team rm linked/x.md` must not delete
 * the outside `x.md`), a missing file is nothing to do. `check: true` only asks whether the removal
 * may happen, so a refusal comes before the server is asked to delete anything.
 */
export async function removeTeamFile(
  teamDir: string,
  key: string,
  options: { check?: boolean } = {},
): Promise<void> {
  const check = checkTeamKey(key);
  if (!check.ok) throw new ConfinementError(key, check.reason);
  await assertPlainTeamFolder(teamDir);
  const team = createConfinement({ roots: [{ path: teamDir, write: true }] });
  try {
    if (options.check) await team.check(key, 'write');
    else await team.remove(key);
  } catch (error) {
    if (['ENOENT', 'ENOTDIR'].includes(errnoCode(error) ?? '')) return;
    throw error;
  }
}

async function kindOf(path: string): Promise<'missing' | 'symlink' | 'dir' | 'file' | 'other'> {
  try {
    const info = await lstat(path);
    if (info.isSymbolicLink()) return 'symlink';
    if (info.isDirectory()) return 'dir';
    return info.isFile() ? 'file' : 'other';
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return 'missing';
    throw error;
  }
}
