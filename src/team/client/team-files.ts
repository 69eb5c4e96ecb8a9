import type { Dirent } from 'node:fs';
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
  /** Files that are not pushed, and why (`invalid_key`, `too_large`, `symlink`). */
  skipped: Array<{ key: string; reason: string }>;
}

/**
 * Read the team folder for a push: regular `.md` files only. Symlinks are never followed (a link
 * could pull a file from anywhere on the machine into the team), dot entries are engram's own.
 */
export async function readLocalTeamFiles(
  teamDir: string,
  maxEntryBytes: number,
): Promise<LocalTeamFiles> {
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
    if (text === undefined) out.skipped.push({ key, reason: 'too_large' });
    else if (text !== null) out.contents.set(key, text);
  }
}

/** `undefined` when over `cap` bytes, `null` when it vanished. */
async function readBounded(path: string, cap: number): Promise<string | undefined | null> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null;
    throw error;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > cap) return info.isFile() ? undefined : null;
    const buf = Buffer.alloc(info.size + 1);
    const { bytesRead } = await handle.read(buf, 0, info.size + 1, 0);
    if (bytesRead > cap) return undefined;
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
