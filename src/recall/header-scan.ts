import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { FRONTMATTER_MAX_LINES } from '../memdir/constants.js';
import { headerFromText, listMemoryFiles, readHead } from '../memdir/scan.js';
import type { MemoryHeader, ScanResult } from '../memdir/types.js';
import { parseMemoryType } from '../memdir/types.js';
import { errnoCode } from '../util/errors.js';

/**
 * The hot path's scan: the same headers as memdir's `scanMemories` with no cap, at close to the
 * cost of the filesystem floor (one stat and one 4 KB read per file, all in one pass). The speed
 * comes from two shortcuts, each proven equal to the reference by tests:
 *  - frontmatter is read from the first 4 KB when it closes there (the 30-line rule still holds);
 *  - frontmatter made only of `key: plain value` lines is read without the YAML parser; anything
 *    else (quotes, lists, comments, numbers, colons…) goes to `headerFromText`, the reference.
 */
export async function scanHeaders(dir: string): Promise<ScanResult> {
  const files = await listMemoryFiles(dir);
  const headers = await Promise.all(files.map((file) => readHeaderFast(dir, file)));
  const memories = headers.filter((m): m is MemoryHeader => m !== undefined);
  memories.sort(
    (a, b) => b.mtimeMs - a.mtimeMs || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0),
  );
  return { memories, total: memories.length, dropped: 0, cap: Number.POSITIVE_INFINITY };
}

const HEAD_BYTES = 4096;

async function readHeaderFast(dir: string, file: string): Promise<MemoryHeader | undefined> {
  const path = join(dir, file);
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined; // removed while we looked
    throw error;
  }
  let mtimeMs: number;
  let head: string;
  let complete: boolean;
  try {
    const [info, read] = await Promise.all([
      handle.stat(),
      handle.read(Buffer.allocUnsafe(HEAD_BYTES), 0, HEAD_BYTES, 0),
    ]);
    mtimeMs = info.mtimeMs;
    complete = read.bytesRead < HEAD_BYTES;
    const bytes = read.buffer.subarray(0, read.bytesRead);
    // Only whole lines: a cut line (or a cut UTF-8 character) must not be mistaken for content.
    const end = complete ? bytes.length : bytes.lastIndexOf(0x0a) + 1;
    head = bytes.subarray(0, end).toString('utf8');
  } finally {
    await handle.close();
  }
  return headerFromHead(dir, file, mtimeMs, head, complete) ?? slowHeader(dir, file, mtimeMs);
}

async function slowHeader(dir: string, file: string, mtimeMs: number) {
  try {
    return headerFromText(dir, file, mtimeMs, await readHead(join(dir, file)));
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The header from a file's first whole lines, or undefined when those lines cannot decide it
 * (frontmatter still open at the end of an incomplete head). Equal to `headerFromText`. Pure.
 */
export function headerFromHead(
  dir: string,
  file: string,
  mtimeMs: number,
  head: string,
  complete: boolean,
): MemoryHeader | undefined {
  const source = head.startsWith('\uFEFF') ? head.slice(1) : head;
  const lines = source.split('\n');
  // No opening line: no frontmatter, however long the file (the reference decides the same).
  if (lines[0]?.trimEnd() !== '---') return headerFromText(dir, file, mtimeMs, head);
  let close = -1;
  for (let i = 1; i < Math.min(lines.length, FRONTMATTER_MAX_LINES); i++) {
    if (lines[i]?.trimEnd() === '---') {
      close = i;
      break;
    }
  }
  if (close < 0) {
    // Not closed within what we have: decided only if we have the whole file or all 30 lines.
    const decided = complete || lines.length > FRONTMATTER_MAX_LINES;
    return decided ? headerFromText(dir, file, mtimeMs, head) : undefined;
  }
  const data = lines[0] === '---' ? parseSimpleYaml(lines, close) : undefined;
  if (!data) return headerFromText(dir, file, mtimeMs, head);
  return headerFromData(dir, file, mtimeMs, data);
}

const KEY_VALUE = /^([A-Za-z_][A-Za-z0-9_-]*): +(\S.*)$/u;
// A plain scalar that YAML's core schema reads back as this exact string: starts with a letter
// (so never a number, null, bool-like symbol or indicator), no comment, no nested mapping.
const PLAIN = /^\p{L}[^#\t\r]*$/u;
const RESERVED = /^(true|false|null|yes|no|on|off|y|n)$/i;

/** `key: value` lines with plain values only; undefined for anything YAML might read otherwise. */
export function parseSimpleYaml(
  lines: readonly string[],
  close: number,
): Record<string, string> | undefined {
  const data: Record<string, string> = {};
  for (let i = 1; i < close; i++) {
    const match = KEY_VALUE.exec(lines[i]!);
    if (!match) return undefined;
    const key = match[1]!;
    const value = match[2]!.trimEnd();
    if (Object.hasOwn(data, key) || !PLAIN.test(value) || RESERVED.test(value)) return undefined;
    if (value.includes(': ') || value.endsWith(':')) return undefined;
    data[key] = value;
  }
  return data;
}

function headerFromData(
  dir: string,
  file: string,
  mtimeMs: number,
  data: Record<string, string>,
): MemoryHeader {
  const header: MemoryHeader = {
    file,
    path: join(dir, file),
    mtimeMs,
    type: parseMemoryType(data.type),
    status: data.status === 'revoked' ? 'revoked' : 'active',
    hasFrontmatter: true,
    frontmatter: data,
  };
  if (data.name !== undefined) header.name = data.name;
  if (data.description !== undefined) header.description = data.description;
  return header;
}
