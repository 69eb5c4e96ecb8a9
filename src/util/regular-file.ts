import { constants, readlinkSync, realpathSync, type Stats } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { sep } from 'node:path';
import { EngramError, errnoCode } from './errors.js';

/** The most engram reads of any one file it did not write itself unless told otherwise (16 MiB). */
export const DEFAULT_MAX_READ_BYTES = 16 * 1024 * 1024;

export interface RegularFileOptions {
  /** Read at most this many bytes (default 16 MiB). */
  maxBytes?: number;
  /**
   * What to do with a file larger than `maxBytes`: `'error'` (default) refuses it, `'tail'` reads
   * its last `maxBytes` (a transcript's newest messages are the ones that matter), `'head'` its first.
   */
  overflow?: 'error' | 'tail' | 'head';
}

export interface RegularFileText {
  text: string;
  /** The file's size on disk (may exceed the bytes read). */
  size: number;
  /** True when only part of the file was read (`overflow: 'tail' | 'head'`). */
  partial: boolean;
  info: Stats;
}

/**
 * Open a file for reading only if it is a regular file, checked on the opened descriptor (a path
 * swapped after a `stat` cannot slip through). O_NONBLOCK makes opening a FIFO return at once
 * instead of waiting for a writer: a blocked open holds one of libuv's 4 threadpool threads for
 * good, and four of them wedge every later file operation of the process (the MCP server).
 */
export async function openRegularFile(
  path: string,
  options: { followLinks?: boolean; below?: string } = {},
): Promise<{ handle: FileHandle; info: Stats }> {
  let handle: FileHandle;
  try {
    handle = await open(path, regularFileFlags(options.followLinks !== false));
  } catch (error) {
    if (errnoCode(error) === 'ELOOP') throw notRegular(path, 'a symbolic link');
    throw error;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw notRegular(path, describeKind(info));
    if (options.below !== undefined && !openedBelow(handle.fd, path, options.below)) {
      throw notRegular(path, `a file outside ${options.below} (a folder on its way was swapped)`);
    }
    return { handle, info };
  } catch (error) {
    await handle.close().catch(() => {});
    throw error;
  }
}

/**
 * The flags for opening a file to read: O_NONBLOCK (above), and O_NOFOLLOW unless links may be
 * followed, so a file swapped for a link after a listing saw a regular file fails with ELOOP
 * instead of being read through the link (a memory folder's scan: a link never leads a read out).
 */
export function regularFileFlags(followLinks: boolean): number {
  const flags = constants.O_RDONLY | constants.O_NONBLOCK;
  return followLinks ? flags : flags | constants.O_NOFOLLOW;
}

/**
 * True when the open descriptor `fd` (opened from `path`) is a file below the real folder
 * `realRoot`. O_NOFOLLOW guards a path's last component only: a folder on the way swapped for a
 * link after the listing leads the open elsewhere, so the descriptor itself is asked where it is
 * (Linux: /proc/self/fd), and where that cannot be asked, the path's real path after the open.
 */
export function openedBelow(fd: number, path: string, realRoot: string): boolean {
  const root = realRoot.endsWith(sep) ? realRoot : realRoot + sep;
  let real: string;
  try {
    real = readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    try {
      real = realpathSync(path); // no /proc here: the path's real path, just after the open
    } catch {
      return false;
    }
  }
  return real.startsWith(root);
}

function notRegular(path: string, kind: string): EngramError {
  return new EngramError(
    'not_regular_file',
    `${path} is ${kind}, not a regular file; engram reads only regular files.`,
  );
}

/** Read a regular file as UTF-8, bounded in bytes (see `RegularFileOptions`). */
export async function readRegularFile(
  path: string,
  options: RegularFileOptions = {},
): Promise<RegularFileText> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_READ_BYTES;
  const { handle, info } = await openRegularFile(path);
  try {
    const overflow = info.size > maxBytes;
    if (overflow && (options.overflow ?? 'error') === 'error') {
      throw new EngramError(
        'too_large',
        `${path} is ${info.size} bytes, over the ${maxBytes}-byte read limit; it was not read.`,
      );
    }
    const start = overflow && options.overflow === 'tail' ? info.size - maxBytes : 0;
    const buffer = await readAt(handle, start, Math.min(info.size, maxBytes));
    return { text: buffer.toString('utf8'), size: info.size, partial: overflow, info };
  } finally {
    await handle.close().catch(() => {});
  }
}

/** Read up to `length` bytes from `position`; stops early at end of file (it may have shrunk). */
async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** True for the errors `openRegularFile`/`readRegularFile` raise about what a path is. */
export function isNotReadableKind(error: unknown): boolean {
  if (error instanceof EngramError) {
    return error.code === 'not_regular_file' || error.code === 'too_large';
  }
  const code = errnoCode(error);
  return code === 'EISDIR' || code === 'ENXIO';
}

export function describeKind(info: Stats): string {
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSocket()) return 'a socket';
  if (info.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/** Transcripts grow for a whole session; only their newest part is ever needed (32 MiB). */
export const TRANSCRIPT_MAX_BYTES = 32 * 1024 * 1024;

/**
 * A JSONL transcript's text, regular files only: a longer one is read from its last
 * `maxBytes`, starting at the first whole line (the older messages are the ones to lose).
 */
export async function readTranscriptText(
  path: string,
  maxBytes: number = TRANSCRIPT_MAX_BYTES,
): Promise<{ text: string; partial: boolean; size: number }> {
  const read = await readRegularFile(path, { maxBytes, overflow: 'tail' });
  if (!read.partial) return { text: read.text, partial: false, size: read.size };
  const newline = read.text.indexOf('\n');
  return { text: newline < 0 ? '' : read.text.slice(newline + 1), partial: true, size: read.size };
}
