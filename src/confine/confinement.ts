/**
 * One confinement for every door. A `Confinement` is a set of roots (read-only or writable), a
 * credential deny-list, and the operations that use exactly what the check located: reads,
 * atomic writes, exclusive creates, removes, renames and listings. Callers never join a path to a
 * root themselves; they hand the path over and get the file the check approved.
 */
import { constants, type Dirent } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { writeFileAtomic } from '../util/atomic-write.js';
import { errnoCode } from '../util/errors.js';
import { fsCalls, type OpenFile } from '../util/fs-calls.js';
import { realpathOrSelf } from '../util/realpath-or-self.js';
import {
  ConfinementError,
  type Located,
  type LocateOptions,
  locate,
  type Root,
  type RootSpec,
} from './locate.js';
import type { AccessKind, DenyContext } from './policy.js';

export interface ConfinementOptions {
  roots: readonly RootSpec[];
  /** Where relative paths start (default: the first root). */
  base?: string;
  deny?: DenyContext;
  /** Largest file `readText` returns (default 10 MiB). */
  maxReadBytes?: number;
}

export interface ReadResult {
  text: string;
  physical: string;
  rel: string;
  mtimeMs: number;
  size: number;
  /** Permission bits of the file read (a file nobody may read is skipped by some callers). */
  mode: number;
  /** Owner of the file read (instruction files above the project load only from trusted owners). */
  uid: number;
}

export interface WriteOptions {
  mode?: number;
  /** Fail with EEXIST when the file exists (the memory tool's create). */
  exclusive?: boolean;
}

export interface EntryInfo {
  name: string;
  kind: 'file' | 'dir' | 'other';
}

export interface Confinement {
  readonly roots: readonly Root[];
  readonly base: string;
  /** Throws ConfinementError when the operation may not happen; returns the physical target. */
  check(path: string, access: AccessKind): Promise<{ physical: string; rel: string }>;
  readText(path: string, options?: { maxBytes?: number }): Promise<ReadResult>;
  writeText(path: string, data: string, options?: WriteOptions): Promise<Located['rel']>;
  remove(path: string, options?: { recursive?: boolean }): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  list(path: string): Promise<EntryInfo[]>;
  /** lstat of the located target; undefined when it does not exist. */
  info(
    path: string,
  ): Promise<{ kind: 'file' | 'dir' | 'other'; size: number; mtimeMs: number } | undefined>;
  /** Run `fn` with a path that reaches the located folder itself (engram's own files in it). */
  withDir<T>(path: string, fn: (dir: string) => Promise<T>): Promise<T>;
}

const DEFAULT_MAX_READ = 10 * 1024 * 1024;
// O_NONBLOCK: opening a FIFO returns at once instead of holding a libuv thread until a writer
// comes (four such opens wedge every later file operation of the process); the descriptor is
// then refused as not a regular file.
const FILE_READ = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

function isDirError(path: string): NodeJS.ErrnoException {
  const error = new Error(`EISDIR: ${path} is a folder`) as NodeJS.ErrnoException;
  error.code = 'EISDIR';
  return error;
}

function kindOf(entry: { isFile(): boolean; isDirectory(): boolean }): EntryInfo['kind'] {
  return entry.isFile() ? 'file' : entry.isDirectory() ? 'dir' : 'other';
}

/**
 * The deny-list's context with its defaults filled in: home and `$ENGRAM_HOME` of this process,
 * the memory folders served (the writable roots unless named), every path real. One place, so a
 * caller that filters a listing by `readDenyReason` judges exactly as the confinement does.
 */
export function resolveDenyContext(
  given: DenyContext = {},
  writableRoots: readonly string[] = [],
): DenyContext {
  const home = given.homedir ?? homedir();
  return {
    homedir: realpathOrSelf(home),
    engramHome: realpathOrSelf(
      given.engramHome ??
        (process.env.ENGRAM_HOME?.trim()
          ? resolve(process.env.ENGRAM_HOME.trim())
          : join(home, '.engram')),
    ),
    ownMemoryDirs: (given.ownMemoryDirs ?? writableRoots).map(realpathOrSelf),
    ...(given.homeDotEntriesOpenBelow
      ? { homeDotEntriesOpenBelow: given.homeDotEntriesOpenBelow.map(realpathOrSelf) }
      : {}),
  };
}

export function createConfinement(options: ConfinementOptions): Confinement {
  const roots: Root[] = options.roots.map((r) => ({ ...r, lexical: resolve(r.path) }));
  const base = resolve(options.base ?? roots[0]?.lexical ?? process.cwd());
  // The deny-list is always on: home and ENGRAM_HOME default to this process's.
  const deny = resolveDenyContext(
    options.deny,
    roots.filter((r) => r.write).map((r) => r.lexical),
  );
  const maxRead = options.maxReadBytes ?? DEFAULT_MAX_READ;

  async function using<T>(
    path: string,
    how: LocateOptions,
    fn: (l: Located) => Promise<T>,
  ): Promise<T> {
    const located = await locate(path, base, roots, deny, how);
    try {
      return await fn(located);
    } finally {
      await located.release();
    }
  }
  const target = (l: Located) => (l.name === '' ? l.dir : join(l.dir, l.name));

  return {
    roots,
    base,
    check: (path, access) =>
      using(path, { access, followFinal: access === 'read' }, async (l) => ({
        physical: l.physical,
        rel: l.rel,
      })),

    readText: (path, readOptions = {}) =>
      using(path, { access: 'read', followFinal: true }, async (l) => {
        if (l.name === '') throw isDirError(path);
        const handle = await fsCalls().open(target(l), FILE_READ);
        try {
          const info = await handle.stat();
          if (info.isDirectory()) throw isDirError(path);
          if (!info.isFile()) throw new ConfinementError(path, 'not a regular file');
          // A hard link is a second name for a file that may live anywhere on the same disk.
          if (info.nlink > 1)
            throw new ConfinementError(path, 'it is a hard link to a file elsewhere');
          const max = readOptions.maxBytes ?? maxRead;
          if (info.size > max)
            throw new ConfinementError(path, `it is ${info.size} bytes, over ${max}`);
          const text = await handle.readFile('utf8');
          return {
            text,
            physical: l.physical,
            rel: l.rel,
            mtimeMs: info.mtimeMs,
            size: info.size,
            mode: info.mode,
            uid: info.uid,
          };
        } finally {
          await handle.close();
        }
      }),

    writeText: (path, data, writeOptions = {}) =>
      using(path, { access: 'write', createParents: true }, async (l) => {
        if (l.name === '') throw new ConfinementError(path, 'a folder cannot be written');
        const to = target(l);
        // Exclusive creates are atomic too (temp, fsync, link into place: EEXIST when there).
        await writeFileAtomic(to, data, {
          mode: writeOptions.mode ?? 0o600,
          ...(writeOptions.exclusive ? { exclusive: true } : {}),
        });
        return l.rel;
      }),

    remove: (path, removeOptions = {}) =>
      using(path, { access: 'write' }, async (l) => {
        if (l.name === '') throw new ConfinementError(path, 'the root itself cannot be removed');
        const found = await fsCalls().lstat(target(l));
        if (found.isDirectory() && removeOptions.recursive !== true)
          await fsCalls().rmdir(target(l));
        else
          await fsCalls().rm(target(l), {
            recursive: removeOptions.recursive === true,
            force: false,
          });
      }),

    rename: async (from, to) => {
      const a = await locate(from, base, roots, deny, { access: 'write' });
      try {
        if (a.name === '') throw new ConfinementError(from, 'the root itself cannot be moved');
        // A hard link is refused for reads; moving it would give the outside file a new name here.
        const source = await fsCalls().lstat(target(a));
        if (source.isFile() && source.nlink > 1)
          throw new ConfinementError(from, 'it is a hard link to a file elsewhere');
        await using(to, { access: 'write', createParents: true }, async (b) => {
          if (b.name === '') throw new ConfinementError(to, 'a folder root cannot be replaced');
          await fsCalls().rename(target(a), target(b));
        });
      } finally {
        await a.release();
      }
    },

    list: (path) =>
      using(path, { access: 'read', followFinal: true }, async (l) => {
        const dir = l.name === '' ? l.dir : await openDirHandle(target(l));
        try {
          const entries: Dirent[] = await fsCalls().readdirEntries(
            typeof dir === 'string' ? dir : dir.path,
          );
          return entries.map((e) => ({ name: e.name, kind: kindOf(e) }));
        } finally {
          if (typeof dir !== 'string') await dir.close();
        }
      }),

    info: (path) =>
      using(path, { access: 'read', followFinal: true }, async (l) => {
        try {
          // The root is the held folder itself: stat follows the descriptor's own path.
          const s = l.name === '' ? await fsCalls().stat(l.dir) : await fsCalls().lstat(target(l));
          return { kind: kindOf(s), size: s.size, mtimeMs: s.mtimeMs };
        } catch (error) {
          if (errnoCode(error) === 'ENOENT') return undefined;
          throw error;
        }
      }).catch((error: unknown) => {
        if (errnoCode(error) === 'ENOENT') return undefined;
        throw error;
      }),

    withDir: (path, fn) =>
      using(path, { access: 'write', createParents: true, allowRoot: true }, async (l) => {
        if (l.name === '') return fn(l.dir);
        const dir = await openDirHandle(target(l), true);
        try {
          return await fn(dir.path);
        } finally {
          await dir.close();
        }
      }),
  };
}

/** Open a folder with O_NOFOLLOW and give a path that reaches that descriptor. */
async function openDirHandle(
  path: string,
  create = false,
): Promise<{ path: string; close(): Promise<void> }> {
  if (create) {
    await fsCalls()
      .mkdir(path, { mode: 0o700 })
      .catch((error: unknown) => {
        if (errnoCode(error) !== 'EEXIST') throw error;
      });
  }
  let handle: OpenFile;
  try {
    handle = await fsCalls().open(
      path,
      constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW,
    );
  } catch (error) {
    if (['ELOOP', 'ENOTDIR'].includes(errnoCode(error) ?? '')) {
      const e = new Error(`ENOTDIR: ${path} is not a folder`) as NodeJS.ErrnoException;
      e.code = 'ENOTDIR';
      throw e;
    }
    throw error;
  }
  const fdPath = process.platform === 'linux' ? `/proc/self/fd/${handle.fd}` : realpathOrSelf(path);
  return { path: fdPath, close: () => handle.close() };
}

/**
 * A folder's entries for a walk below the folder asked for: a subfolder the confinement refuses
 * (`.aws`, `.svn`, a link out) is left out of the walk, as grep leaves out a refused file; only
 * the folder the caller named reports why it is refused.
 */
export async function listForWalk(
  confined: Confinement,
  dir: string,
  named: boolean,
): Promise<EntryInfo[]> {
  return confined.list(dir).catch((error: unknown) => {
    if (!named && error instanceof ConfinementError) return [];
    throw error;
  });
}
