/**
 * The file calls of code that runs in every kind of process (the lock, the header cache's file,
 * the confinement's walk and reads), made the way this process needs them (`process-kind.ts`):
 *
 * - in a library or a host, through `node:fs/promises`: each call is a round trip through libuv's
 *   thread pool, and the caller's event loop keeps turning while the disk works;
 * - in a one-shot process, synchronously: nothing else runs on its loop, so each round trip (the
 *   pool's threads started on first use, a hand-over to one, a wake-up of the main thread when it
 *   is done) was only waiting. About twenty such calls made a quarter of a cold recall's time.
 *
 * Same calls, same arguments, same errors (the synchronous ones throw what the promises reject
 * with), so every caller keeps one implementation of what it does with them. Results come back as
 * promises either way; a synchronous call has finished by the time it returns one.
 */
import {
  closeSync,
  type Dirent,
  fstatSync,
  lstatSync,
  type MakeDirectoryOptions,
  mkdirSync,
  openSync,
  type RmOptions,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  type Stats,
  statSync,
  unlinkSync,
  type WriteFileOptions,
  writeFileSync,
} from 'node:fs';
import * as fsp from 'node:fs/promises';
import { isOneShotProcess } from './process-kind.js';

/** An open file or folder: what the callers use of a `FileHandle`. */
export interface OpenFile {
  readonly fd: number;
  stat(): Promise<Stats>;
  readFile(encoding: 'utf8'): Promise<string>;
  close(): Promise<void>;
}

export interface FsCalls {
  open(path: string, flags: number | string, mode?: number): Promise<OpenFile>;
  stat(path: string): Promise<Stats>;
  lstat(path: string): Promise<Stats>;
  realpath(path: string): Promise<string>;
  readlink(path: string): Promise<string>;
  readFile(path: string, encoding: 'utf8'): Promise<string>;
  readdir(path: string): Promise<string[]>;
  readdirEntries(path: string): Promise<Dirent[]>;
  mkdir(path: string, options?: MakeDirectoryOptions): Promise<unknown>;
  writeFile(path: string, data: string | Uint8Array, options?: WriteFileOptions): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  rmdir(path: string): Promise<void>;
  rm(path: string, options?: RmOptions): Promise<void>;
}

const viaThreadPool: FsCalls = {
  open: (path, flags, mode) => fsp.open(path, flags, mode),
  stat: (path) => fsp.stat(path),
  lstat: (path) => fsp.lstat(path),
  realpath: (path) => fsp.realpath(path),
  readlink: (path) => fsp.readlink(path),
  readFile: (path, encoding) => fsp.readFile(path, encoding),
  readdir: (path) => fsp.readdir(path),
  readdirEntries: (path) => fsp.readdir(path, { withFileTypes: true }),
  mkdir: (path, options) => fsp.mkdir(path, options),
  writeFile: (path, data, options) => fsp.writeFile(path, data, options),
  rename: (from, to) => fsp.rename(from, to),
  unlink: (path) => fsp.unlink(path),
  rmdir: (path) => fsp.rmdir(path),
  rm: (path, options) => fsp.rm(path, options),
};

function openedFile(fd: number): OpenFile {
  let closed = false;
  return {
    fd,
    stat: async () => fstatSync(fd),
    readFile: async (encoding) => readFileSync(fd, encoding),
    close: async () => {
      if (closed) return; // as a FileHandle: closing twice is not an error
      closed = true;
      closeSync(fd);
    },
  };
}

const synchronous: FsCalls = {
  open: async (path, flags, mode) => openedFile(openSync(path, flags, mode)),
  stat: async (path) => statSync(path),
  lstat: async (path) => lstatSync(path),
  // The promises' realpath is realpath(3), as `.native` is (the plain one walks in JavaScript).
  realpath: async (path) => realpathSync.native(path),
  readlink: async (path) => readlinkSync(path),
  readFile: async (path, encoding) => readFileSync(path, encoding),
  readdir: async (path) => readdirSync(path),
  readdirEntries: async (path) => readdirSync(path, { withFileTypes: true }),
  mkdir: async (path, options) => mkdirSync(path, options),
  writeFile: async (path, data, options) => writeFileSync(path, data, options),
  rename: async (from, to) => renameSync(from, to),
  unlink: async (path) => unlinkSync(path),
  rmdir: async (path) => rmdirSync(path),
  rm: async (path, options) => rmSync(path, options),
};

/** The file calls for this process: synchronous in a one-shot process, else the promises'. */
export function fsCalls(): FsCalls {
  return isOneShotProcess() ? synchronous : viaThreadPool;
}
