/**
 * The recall scan over the header cache: list the directory, stat every memory file, and open and
 * read only the files whose identity changed. Synchronous system calls in small slices, with a
 * return to the event loop between slices: the cheapest calls Node has (no thread-pool round trip
 * per file, one file open at a time, so no EMFILE), and a long-running host's loop never waits for
 * more than one slice. A deadline stops the work and returns what is ready.
 */

import {
  closeSync,
  type Dirent,
  existsSync,
  fstatSync,
  openSync,
  readdirSync,
  readSync,
  type Stats,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { type Clock, systemClock } from '../util/clock.js';
import { EngramError, errnoCode } from '../util/errors.js';
import { realpathOrSelf } from '../util/realpath-or-self.js';
import { openedBelow, regularFileFlags } from '../util/regular-file.js';
import { SLICE_MS, yieldToLoop } from '../util/yield-to-loop.js';
import { FRONTMATTER_MAX_LINES } from './constants.js';
import { headerFromHead, headerFromText } from './header.js';
import {
  type CacheEntry,
  type DirectoryCache,
  directoryCache,
  type FileIdentity,
  isJsonSafe,
  isTrusted,
  pathPrefix,
  sameIdentity,
  updateEntry,
} from './header-cache.js';
import { uninjectableBytes } from './injectable.js';
import { HARD_LINK, isMemoryFileName } from './scan.js';
import { treeWatchFor } from './tree-watch.js';
import type { MemoryHeader, ScanResult } from './types.js';

export interface CachedScanOptions {
  /** Returns true once the time allowed is spent: stop and use what is ready. */
  expired?: () => boolean;
  /** Use the cache file on disk (default true); false starts from an empty cache. */
  persisted?: boolean;
  /** The clock for deciding whether a just-changed file can be trusted (default the system clock). */
  clock?: Clock;
  /**
   * From the second scan of a directory in this process on, watch its folders and reuse the last
   * scan while no change is reported (default true; see tree-watch.ts for when it applies).
   */
  watch?: boolean;
}

export interface CachedScanResult extends ScanResult {
  /** False when the deadline cut the scan short: `memories` holds only what was ready. */
  complete: boolean;
  /** Files whose header had to be read this time (the rest came from the cache). */
  read: number;
  /** Files stat'ed this time: 0 when the watch said nothing changed since the last scan. */
  checked: number;
  cache: DirectoryCache;
  /**
   * Set while the directory is watched (armed by this scan, or reported unchanged since): the
   * watch's epoch. Anything read from these files after the scan stays valid while later scans
   * return the same epoch.
   */
  watchEpoch?: number;
}

interface ScanState {
  /** Full scans of this cache in this process: the first one never uses a watch. */
  scans: number;
  /** The last complete scan, reusable while the watch armed by it (`epoch`) reports nothing. */
  last?: { generation: string; memories: MemoryHeader[]; total: number; epoch: number };
}

const states = new WeakMap<DirectoryCache, ScanState>();

const HEAD_BYTES = 4096;
const headBuffer = Buffer.alloc(HEAD_BYTES);
const HEAD_MAX_BYTES = 64 * 1024;

/** Every memory header below `dir`, newest first, each read from disk only if it changed. */
export async function scanMemoriesCached(
  dir: string,
  options: CachedScanOptions = {},
): Promise<CachedScanResult> {
  const expired = options.expired ?? (() => false);
  const clock = options.clock ?? systemClock;
  const now = () => clock.now();
  const cache = directoryCache(dir, options.persisted === false ? { persisted: false } : {});
  const state = states.get(cache) ?? { scans: 0 };
  states.set(cache, state);
  // A process that scans a directory a second time is a long-running host: watch it from now on.
  const tree = options.watch !== false && state.scans > 0 ? treeWatchFor(dir) : undefined;
  const reusable = () =>
    tree !== undefined &&
    state.last?.epoch === tree.epoch &&
    state.last.generation === cache.generation;
  if (reusable() && (await tree!.quiet()) && reusable()) {
    const { memories, total, epoch } = state.last!;
    return { ...resultOf(memories, total, true, 0, 0, cache), watchEpoch: epoch };
  }
  const watching = tree?.watchable() ? tree.beginScan() : undefined;
  const files = listMemoryFilesSync(dir, watching ? (rel) => watching.visit(rel) : undefined);
  const memories: MemoryHeader[] = [];
  const seen = new Set<string>();
  let read = 0;
  let complete = true;
  let allTrusted = true;
  let checked = 0;
  const prefix = pathPrefix(dir);
  // Files in subfolders are checked to be below the real folder once opened (openedBelow).
  let realDir: string | undefined;
  const below = (file: string): string | undefined => {
    if (!file.includes('/')) return undefined;
    realDir ??= realpathOrSelf(dir);
    return realDir;
  };
  let sliceStart = performance.now();
  for (let i = 0; i < files.length; i++) {
    if ((i & 7) === 0 && performance.now() - sliceStart > SLICE_MS) {
      await yieldToLoop();
      sliceStart = performance.now();
    }
    if ((i & 7) === 0 && expired()) {
      complete = false;
      break;
    }
    const file = files[i]!;
    seen.add(file);
    checked++;
    const cached = cache.entries.get(file);
    // Without a cached entry there is nothing to compare a stat with: the read's fstat is the one.
    if (cached?.trusted) {
      const info = statSync(prefix + file, { throwIfNoEntry: false });
      if (info === undefined || !info.isFile()) continue; // removed (or replaced) while we looked
      if (sameIdentity(cached.id, identityOf(info))) {
        memories.push(cached.header);
        continue;
      }
    }
    const entry = readEntry(dir, prefix, file, now, below(file));
    if (entry === 'not a file') continue;
    read++;
    if (entry === undefined) {
      allTrusted = false; // gone between the listing and the read: look again next turn
      continue;
    }
    if (!entry.trusted) allTrusted = false;
    if (!cached || !sameEntry(cached, entry)) updateEntry(cache, file, entry);
    else cached.trusted = entry.trusted;
    memories.push(entry.header);
  }
  if (complete) {
    for (const file of [...cache.entries.keys()])
      if (!seen.has(file)) updateEntry(cache, file, undefined);
  }
  // The sort of thousands of headers is a pause of its own (a few milliseconds in a host's first
  // turn, its code not yet compiled): not added to the last slice of the loop above nor to what
  // the caller does next.
  await yieldToLoop();
  memories.sort(
    (a, b) => b.mtimeMs - a.mtimeMs || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0),
  );
  await yieldToLoop();
  const total = files.length;
  state.scans++;
  // Reused only if nothing was too fresh to trust: such a file is read again next turn anyway.
  const armed = watching?.end(complete && allTrusted) === true;
  state.last = armed
    ? { generation: cache.generation, memories, total, epoch: tree!.epoch }
    : undefined;
  const result = resultOf(memories, total, complete, read, checked, cache);
  return armed ? { ...result, watchEpoch: tree!.epoch } : result;
}

function resultOf(
  memories: MemoryHeader[],
  total: number,
  complete: boolean,
  read: number,
  checked: number,
  cache: DirectoryCache,
): CachedScanResult {
  const cap = Number.POSITIVE_INFINITY;
  return { memories, total, dropped: 0, cap, complete, read, checked, cache };
}

function identityOf(info: Stats): FileIdentity {
  return { size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, ino: info.ino };
}

/** Same file, same header: a re-read that changed nothing keeps the directory's artifacts valid. */
function sameEntry(a: CacheEntry, b: CacheEntry): boolean {
  return sameIdentity(a.id, b.id) && JSON.stringify(a.header) === JSON.stringify(b.header);
}

/**
 * Open, fstat, read the head, parse. The identity is taken before the read, so a later change is
 * seen. 'not a file' when the path is no longer a regular file (a folder or a FIFO swapped in since
 * the listing; O_NONBLOCK so that opening a FIFO does not wait for a writer).
 */
function readEntry(
  dir: string,
  prefix: string,
  file: string,
  now: () => number,
  below: string | undefined,
): CacheEntry | 'not a file' | undefined {
  const path = prefix + file;
  const readAtMs = now();
  let fd: number;
  try {
    fd = openSync(path, regularFileFlags(false));
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') return 'not a file'; // swapped for a link since the listing: never followed
    if (code === 'EACCES' || code === 'EPERM') return unreadableEntry(dir, file, code, readAtMs);
    throw error;
  }
  let id: FileIdentity;
  let header: MemoryHeader;
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return 'not a file';
    if (below !== undefined && !openedBelow(fd, path, below)) return 'not a file';
    id = identityOf(info);
    // A hard link is a second name for a file that may live anywhere on the disk: never read
    // (its link count changes its ctime, so a cached verdict is re-judged when it changes).
    if (info.nlink > 1) return unreadableEntry(dir, file, HARD_LINK, readAtMs);
    // One buffer for every head: nothing keeps it (the text is decoded out of it), and a fresh
    // 4 KB each time is 8 MB of garbage for a cold scan of 2,000 files (collections the host feels).
    const buffer = headBuffer;
    const bytesRead = readSync(fd, buffer, 0, HEAD_BYTES, 0);
    const complete = bytesRead < HEAD_BYTES;
    const bytes = buffer.subarray(0, bytesRead);
    // Only whole lines: a cut line (or a cut UTF-8 character) must not be mistaken for content.
    const whole = bytes.subarray(0, complete ? bytes.length : bytes.lastIndexOf(0x0a) + 1);
    const head = whole.toString('utf8');
    header =
      headerFromHead(dir, file, id.mtimeMs, head, complete, path) ??
      headerFromText(dir, file, id.mtimeMs, readLongHead(fd));
    // NUL or non-UTF-8 bytes in the head: listed and audited, never recalled.
    const uninjectable = uninjectableBytes(whole);
    if (uninjectable) header = { ...header, uninjectable };
  } finally {
    closeSync(fd);
  }
  // A header the cache file could not give back unchanged is still used, never persisted as trusted.
  const trusted = isTrusted(id, readAtMs) && isJsonSafe(header.frontmatter);
  return { id, trusted, header, derived: {} };
}

/** The first 30 lines (at most 64 KB) when the first 4 KB did not hold the whole frontmatter. */
function readLongHead(fd: number): string {
  const buffer = Buffer.allocUnsafe(HEAD_MAX_BYTES);
  let total = 0;
  let newlines = 0;
  while (total < HEAD_MAX_BYTES && newlines <= FRONTMATTER_MAX_LINES) {
    const n = readSync(fd, buffer, total, Math.min(HEAD_BYTES, HEAD_MAX_BYTES - total), total);
    if (n === 0) break;
    for (let i = total; i < total + n; i++) if (buffer[i] === 0x0a) newlines++;
    total += n;
  }
  return buffer.subarray(0, total).toString('utf8');
}

function unreadableEntry(dir: string, file: string, code: string, readAtMs: number): CacheEntry {
  const path = join(dir, file);
  const info = statSync(path, { throwIfNoEntry: false });
  const id = info ? identityOf(info) : { size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0 };
  const header: MemoryHeader = {
    file,
    path,
    mtimeMs: id.mtimeMs,
    type: 'unknown',
    status: 'active',
    hasFrontmatter: false,
    frontmatter: {},
    unreadable: code,
  };
  return { id, trusted: info !== undefined && isTrusted(id, readAtMs), header, derived: {} };
}

/**
 * Relative paths of all memory files below `dir`, as `listMemoryFiles` finds them, synchronously.
 * `onFolder` is told each folder (relative, '' for `dir`) just before it is listed.
 */
export function listMemoryFilesSync(dir: string, onFolder?: (rel: string) => void): string[] {
  const out: string[] = [];
  walk(dir, '', out, onFolder);
  return out;
}

function walk(root: string, rel: string, out: string[], onFolder?: (rel: string) => void): void {
  let entries: Dirent[];
  onFolder?.(rel);
  // A missing directory is an empty one: asked without an exception, since a layer nobody wrote
  // to yet (the user layer) is listed every turn.
  if (rel === '' && !existsSync(root)) return;
  try {
    entries = readdirSync(join(root, rel), { withFileTypes: true });
  } catch (error) {
    const code = errnoCode(error);
    if (rel === '' && code === 'ENOTDIR') {
      throw new EngramError('invalid_path', `${root} is a file, not a memory directory`);
    }
    // A missing directory is an empty one; a vanished or unreadable subfolder is skipped.
    if (code === 'ENOENT' || (rel !== '' && (code === 'EACCES' || code === 'ENOTDIR'))) return;
    throw error;
  }
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue; // dot folders, temp files, locks, the cache itself
    const relPath = rel === '' ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory()) walk(root, relPath, out, onFolder);
    else if (entry.isFile() && isMemoryFileName(entry.name)) out.push(relPath);
  }
}
