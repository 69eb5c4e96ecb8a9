import type { Dirent, Stats } from 'node:fs';
import { type FileHandle, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { TEMP_PREFIX } from '../util/atomic-write.js';
import { EngramError, errnoCode, isEngramError } from '../util/errors.js';
import { FILE_CONCURRENCY, mapPool } from '../util/pool.js';
import { realpathOrSelf } from '../util/realpath-or-self.js';
import { openRegularFile } from '../util/regular-file.js';
import { FRONTMATTER_MAX_LINES, INDEX_FILE, MAX_SCANNED_FILES } from './constants.js';
import { headerFromHead, headerFromText } from './header.js';
import { type Uninjectable, uninjectableBytes } from './injectable.js';
import type { MemoryHeader, ScanResult } from './types.js';

export interface ScanOptions {
  /** Keep at most this many files, newest first (default 200). */
  cap?: number;
  /** Files open at once (default `FILE_CONCURRENCY`): a big directory must not hit EMFILE. */
  concurrency?: number;
}

/** Headers never need more than this many bytes, even with very long lines. */
const HEAD_MAX_BYTES = 64 * 1024;
const HEAD_CHUNK = 4096;

/** Re-exported: the header of a file from its text is part of the scan's public surface. */
export { headerFromText };

/**
 * List every memory file (`*.md` except MEMORY.md, in subfolders too, skipping dot folders),
 * newest first, and parse the frontmatter of the newest `cap` from their first 30 lines only.
 * The total and the number left out are returned, never silently dropped.
 */
export async function scanMemories(dir: string, options: ScanOptions = {}): Promise<ScanResult> {
  const cap = options.cap ?? MAX_SCANNED_FILES;
  const limit = options.concurrency ?? FILE_CONCURRENCY;
  const symlinks: string[] = [];
  const files: string[] = [];
  await walk(dir, '', files, symlinks);
  // Files in subfolders are checked to be below the real folder once opened (openedBelow).
  const realDir = realpathOrSelf(dir);
  const readHeaderFast = (file: string) => readHeader(dir, file, realDir);
  let memories: MemoryHeader[];
  if (files.length <= cap) {
    // Everything is kept: one pass, one open + stat + 4 KB read per file.
    memories = present(await mapPool(files, limit, readHeaderFast));
  } else {
    // Past the cap only mtimes decide what is kept, so heads are read for the newest alone.
    const stats = present(await mapPool(files, limit, (file) => statMemory(dir, file)));
    sortNewestFirst(stats);
    const kept = stats.slice(0, cap);
    memories = present(await mapPool(kept, limit, (s) => readHeaderFast(s.file)));
  }
  sortNewestFirst(memories);
  return {
    memories,
    total: files.length,
    dropped: Math.max(0, files.length - cap),
    cap,
    symlinks,
  };
}

function present<T>(values: Array<T | undefined>): T[] {
  return values.filter((v): v is T => v !== undefined);
}

/** Newest first; equal mtimes fall back to the name so the order is deterministic. */
function sortNewestFirst(items: Array<{ file: string; mtimeMs: number }>): void {
  items.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

async function statMemory(
  dir: string,
  file: string,
): Promise<{ file: string; mtimeMs: number } | undefined> {
  try {
    return { file, mtimeMs: (await stat(join(dir, file))).mtimeMs };
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined; // removed while we looked
    throw error;
  }
}

/** Relative paths of all memory files below `dir` (no stat, no reads). */
export async function listMemoryFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  await walk(dir, '', out, []);
  return out;
}

async function walk(root: string, rel: string, out: string[], links: string[]): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(join(root, rel), { withFileTypes: true });
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
    if (entry.name.startsWith('.')) continue; // dot folders, temp files, locks
    const relPath = rel === '' ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory()) {
      await walk(root, relPath, out, links);
    } else if (entry.isFile() && isMemoryFileName(entry.name)) {
      out.push(relPath);
    } else if (entry.isSymbolicLink() && isMemoryFileName(entry.name)) {
      // Not followed: a link may lead out of the directory (seed rules: never follow one out),
      // and one that stays inside only repeats a file the walk already sees. Reported instead.
      links.push(relPath);
    } else if (entry.isSymbolicLink() && (await isFolder(join(root, relPath)))) {
      // A linked folder is not walked either: its memories would be silently missing. The
      // trailing slash tells the audit it is a folder.
      links.push(`${relPath}/`);
    }
  }
}

async function isFolder(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

export function isMemoryFileName(name: string): boolean {
  return name.endsWith('.md') && name !== INDEX_FILE && !name.startsWith(TEMP_PREFIX);
}

/** Read the first `maxLines` lines of a file (bounded in bytes), never the whole body. */
export async function readHead(
  path: string,
  maxLines: number = FRONTMATTER_MAX_LINES,
  below?: string,
): Promise<string> {
  const { handle } = await openRegularFile(path, { followLinks: false, below });
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    let newlines = 0;
    while (total < HEAD_MAX_BYTES && newlines < maxLines) {
      const buf = Buffer.alloc(HEAD_CHUNK);
      const { bytesRead } = await handle.read(buf, 0, HEAD_CHUNK, total);
      if (bytesRead === 0) break;
      const chunk = buf.subarray(0, bytesRead);
      chunks.push(chunk);
      total += bytesRead;
      for (const byte of chunk) if (byte === 0x0a) newlines++;
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    await handle.close();
  }
}

const HEAD_BYTES = 4096;

/** `unreadable` of a memory file that is a hard link (the confinement never reads those). */
export const HARD_LINK = 'hard_link';

/** One open, one stat and one 4 KB read; the 30-line reference read only when that cannot decide. */
async function readHeader(
  dir: string,
  file: string,
  realDir: string,
): Promise<MemoryHeader | undefined> {
  const path = join(dir, file);
  const below = file.includes('/') ? realDir : undefined;
  let handle: FileHandle;
  let info: Stats;
  try {
    ({ handle, info } = await openRegularFile(path, { followLinks: false, below }));
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT') return undefined; // removed while we looked
    // Swapped for a FIFO, device or folder after the walk saw a file: not a memory.
    if (isEngramError(error, 'not_regular_file')) return undefined;
    // One file nobody may read must not take the whole directory down with it.
    if (code === 'EACCES' || code === 'EPERM') return unreadableHeader(dir, file, code);
    throw error;
  }
  if (info.nlink > 1) {
    // A hard link is a second name for a file that may live anywhere on the disk: never read.
    await handle.close();
    return unreadableHeader(dir, file, HARD_LINK);
  }
  let mtimeMs: number;
  let head: string;
  let complete: boolean;
  let uninjectable: Uninjectable | undefined;
  try {
    const read = await handle.read(Buffer.allocUnsafe(HEAD_BYTES), 0, HEAD_BYTES, 0);
    mtimeMs = info.mtimeMs;
    complete = read.bytesRead < HEAD_BYTES;
    const bytes = read.buffer.subarray(0, read.bytesRead);
    // Only whole lines: a cut line (or a cut UTF-8 character) must not be mistaken for content.
    const end = complete ? bytes.length : bytes.lastIndexOf(0x0a) + 1;
    const whole = bytes.subarray(0, end);
    uninjectable = uninjectableBytes(whole);
    head = whole.toString('utf8');
  } finally {
    await handle.close();
  }
  const mark = (h: MemoryHeader): MemoryHeader => (uninjectable ? { ...h, uninjectable } : h);
  const fast = headerFromHead(dir, file, mtimeMs, head, complete);
  if (fast) return mark(fast);
  try {
    return mark(
      headerFromText(dir, file, mtimeMs, await readHead(path, FRONTMATTER_MAX_LINES, below)),
    );
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || isEngramError(error, 'not_regular_file')) return undefined;
    throw error;
  }
}

async function unreadableHeader(dir: string, file: string, code: string): Promise<MemoryHeader> {
  const path = join(dir, file);
  const mtimeMs = await stat(path).then(
    (info) => info.mtimeMs,
    () => 0,
  );
  return {
    file,
    path,
    mtimeMs,
    type: 'unknown',
    status: 'active',
    hasFrontmatter: false,
    frontmatter: {},
    unreadable: code,
  };
}
