import type { Dirent } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { TEMP_PREFIX } from '../util/atomic-write.js';
import { errnoCode } from '../util/errors.js';
import { FRONTMATTER_MAX_LINES, INDEX_FILE, MAX_SCANNED_FILES } from './constants.js';
import { parseFrontmatter, stringField } from './frontmatter.js';
import { type MemoryHeader, parseMemoryType, type ScanResult } from './types.js';

export interface ScanOptions {
  /** Keep at most this many files, newest first (default 200). */
  cap?: number;
}

/** Headers never need more than this many bytes, even with very long lines. */
const HEAD_MAX_BYTES = 64 * 1024;
const HEAD_CHUNK = 4096;

/**
 * List every memory file (`*.md` except MEMORY.md, in subfolders too, skipping dot folders),
 * newest first, and parse the frontmatter of the newest `cap` from their first 30 lines only.
 * The total and the number left out are returned, never silently dropped.
 */
export async function scanMemories(dir: string, options: ScanOptions = {}): Promise<ScanResult> {
  const cap = options.cap ?? MAX_SCANNED_FILES;
  const files = await listMemoryFiles(dir);
  const stats = await Promise.all(
    files.map(async (file) => {
      try {
        return { file, mtimeMs: (await stat(join(dir, file))).mtimeMs };
      } catch (error) {
        if (errnoCode(error) === 'ENOENT') return undefined; // removed while we looked
        throw error;
      }
    }),
  );
  const present = stats.filter((s): s is { file: string; mtimeMs: number } => s !== undefined);
  // Newest first; equal mtimes fall back to the name so the order is deterministic.
  present.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const kept = present.slice(0, cap);
  const memories = await Promise.all(kept.map((s) => readHeader(dir, s.file, s.mtimeMs)));
  return {
    memories: memories.filter((m): m is MemoryHeader => m !== undefined),
    total: present.length,
    dropped: Math.max(0, present.length - kept.length),
    cap,
  };
}

/** Relative paths of all memory files below `dir` (no stat, no reads). */
export async function listMemoryFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  await walk(dir, '', out);
  return out;
}

async function walk(root: string, rel: string, out: string[]): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(join(root, rel), { withFileTypes: true });
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' && rel === '') return;
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'EACCES') return;
    throw error;
  }
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue; // dot folders, temp files, locks
    const relPath = rel === '' ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory()) {
      await walk(root, relPath, out);
    } else if (entry.isFile() && isMemoryFileName(entry.name)) {
      out.push(relPath);
    }
  }
}

export function isMemoryFileName(name: string): boolean {
  return name.endsWith('.md') && name !== INDEX_FILE && !name.startsWith(TEMP_PREFIX);
}

/** Read the first `maxLines` lines of a file (bounded in bytes), never the whole body. */
export async function readHead(
  path: string,
  maxLines: number = FRONTMATTER_MAX_LINES,
): Promise<string> {
  const handle = await open(path, 'r');
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

async function readHeader(
  dir: string,
  file: string,
  mtimeMs: number,
): Promise<MemoryHeader | undefined> {
  const path = join(dir, file);
  let head: string;
  try {
    head = await readHead(path);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
  return headerFromText(dir, file, mtimeMs, head);
}

/** Build a header from a file's text (its head is enough). Pure. */
export function headerFromText(
  dir: string,
  file: string,
  mtimeMs: number,
  text: string,
): MemoryHeader {
  const fm = parseFrontmatter(text, FRONTMATTER_MAX_LINES);
  const data = fm.found ? fm.data : {};
  const header: MemoryHeader = {
    file,
    path: join(dir, file),
    mtimeMs,
    type: parseMemoryType(data.type),
    status: data.status === 'revoked' ? 'revoked' : 'active',
    hasFrontmatter: fm.found,
    frontmatter: data,
  };
  const name = stringField(data, 'name');
  const description = stringField(data, 'description');
  if (name !== undefined) header.name = name;
  if (description !== undefined) header.description = description;
  if (fm.found && fm.error !== undefined) header.frontmatterError = fm.error;
  return header;
}
