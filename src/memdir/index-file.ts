import { join } from 'node:path';
import { readOwnFile } from '../confine/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { errnoCode } from '../util/errors.js';
import { memoryDirConfinement } from './confined.js';
import { INDEX_FILE, INDEX_LINE_MAX_CHARS, INDEX_MAX_BYTES, INDEX_MAX_LINES } from './constants.js';
import { withMemoryLock } from './dir-lock.js';
import {
  type IndexEntry,
  indexTargetsByMarkdown,
  normalizeIndexTarget,
  parseIndexEntries,
} from './index-links.js';

export interface IndexLimits {
  maxLines: number;
  maxBytes: number;
}

export const DEFAULT_INDEX_LIMITS: IndexLimits = {
  maxLines: INDEX_MAX_LINES,
  maxBytes: INDEX_MAX_BYTES,
};

export interface TruncatedIndex {
  /** What an agent receives: the capped text, plus the warning when a cap was hit. */
  content: string;
  /** The capped index text alone, without the warning. */
  kept: string;
  truncated: boolean;
  /** Which cap cut the text ('lines', 'bytes' or both); empty when nothing was cut. */
  limitsHit: Array<'lines' | 'bytes'>;
  totalLines: number;
  totalBytes: number;
  keptLines: number;
  keptBytes: number;
  warning: string;
}

function countLines(text: string): number {
  if (text === '') return 0;
  const n = text.split('\n').length;
  return text.endsWith('\n') ? n - 1 : n;
}

/**
 * Cap MEMORY.md at `maxLines` lines AND `maxBytes` bytes. A byte cut lands after the last newline
 * that fits, so it never splits a line or a UTF-8 character. Pure.
 */
export function truncateIndex(
  text: string,
  limits: IndexLimits = DEFAULT_INDEX_LIMITS,
): TruncatedIndex {
  const totalBytes = Buffer.byteLength(text, 'utf8');
  const totalLines = countLines(text);
  const limitsHit: Array<'lines' | 'bytes'> = [];
  let kept = text;
  if (totalLines > limits.maxLines) {
    limitsHit.push('lines');
    kept = text.split('\n').slice(0, limits.maxLines).join('\n');
    kept = `${kept}\n`;
  }
  const bytes = Buffer.from(kept, 'utf8');
  if (bytes.length > limits.maxBytes) {
    limitsHit.push('bytes');
    const lastNewline = bytes.subarray(0, limits.maxBytes).lastIndexOf(0x0a);
    kept = lastNewline < 0 ? '' : bytes.subarray(0, lastNewline + 1).toString('utf8');
  }
  const truncated = limitsHit.length > 0;
  const keptBytes = Buffer.byteLength(kept, 'utf8');
  const keptLines = countLines(kept);
  const warning = truncated ? indexWarning(totalLines, totalBytes, limitsHit, limits) : '';
  const content = truncated
    ? `${kept.endsWith('\n') || kept === '' ? kept : `${kept}\n`}\n${warning}\n`
    : text;
  return {
    content,
    kept,
    truncated,
    limitsHit,
    totalLines,
    totalBytes,
    keptLines,
    keptBytes,
    warning,
  };
}

function indexWarning(
  lines: number,
  bytes: number,
  hit: Array<'lines' | 'bytes'>,
  limits: IndexLimits,
): string {
  const which = hit
    .map((h) => (h === 'lines' ? `${limits.maxLines} lines` : `${limits.maxBytes} bytes`))
    .join(' and ');
  return (
    `> WARNING: ${INDEX_FILE} is ${lines} lines and ${bytes} bytes, over the limit of ${which}; ` +
    'only the part above was loaded. Keep the index to one short line per memory ' +
    `(under ~${INDEX_LINE_MAX_CHARS} characters) and move detail into topic files, ` +
    'or run `engram dream` to consolidate it.'
  );
}

export interface LoadedIndex extends TruncatedIndex {
  exists: boolean;
  path: string;
}

/** Load MEMORY.md as an agent receives it (capped, with a visible warning). */
export async function loadIndex(
  dir: string,
  limits: IndexLimits = DEFAULT_INDEX_LIMITS,
): Promise<LoadedIndex> {
  const path = join(dir, INDEX_FILE);
  const raw = await readIndexRaw(dir);
  return { ...truncateIndex(raw ?? '', limits), exists: raw !== undefined, path };
}

/** MEMORY.md as on disk; undefined when missing. A link out or a hard link is refused. */
export async function readIndexRaw(dir: string): Promise<string | undefined> {
  try {
    return (await memoryDirConfinement(dir).readText(INDEX_FILE)).text;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

export { type IndexEntry, indexTargetsByMarkdown, normalizeIndexTarget, parseIndexEntries };

/** `- [Title](file.md) — hook`, shortened to stay within the per-line budget. Pure. */
export function renderIndexLine(title: string, file: string, hook: string): string {
  const target = file.replace(/ /g, '%20').replace(/\(/g, '%28').replace(/\)/g, '%29');
  // A long title must not push the line past its budget: keep room for the link and a short hook.
  const titleRoom = Math.max(MIN_TITLE_CHARS, INDEX_LINE_MAX_CHARS - target.length - 6 - 13);
  const cleanTitle = clip(oneLine(title).replace(/[[\]]/g, ''), titleRoom) || file;
  const head = `- [${cleanTitle}](${target})`;
  const cleanHook = oneLine(hook);
  if (!cleanHook) return head;
  const room = INDEX_LINE_MAX_CHARS - head.length - 3;
  if (room < 10) return head;
  return `${head} — ${clip(cleanHook, room)}`;
}

/** Titles are never cut shorter than this, even next to a very long file name. */
const MIN_TITLE_CHARS = 24;

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** At most `max` UTF-16 units, ending in `…` when cut; never splits a surrogate pair. Pure. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max - 1);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut.trimEnd()}…`;
}

// A list item whose first content is the link: its marker ("- ", "1. ") is kept when the line is
// rewritten, so a numbered index stays numbered.
const LIST_ITEM_RE = /^(\s*(?:[-*+]|\d+[.)])\s+)\[/;

/**
 * Point the index at `file` with `line` (`- [Title](file.md) — hook`), editing the line that already
 * points at it, whatever its form, and never adding a second. A plain list item is rewritten in
 * place (its marker kept); a line in another form (a table row, emphasis, a label before the link)
 * is the person's own and already points at the file, so it stays as written. Further lines
 * pointing at the same file are dropped. Without any, the line is appended. Pure.
 */
export function upsertIndexLine(text: string, file: string, line: string): string {
  const entries = parseIndexEntries(text).filter((e) => e.file === file);
  const lines = text === '' ? [] : text.replace(/\n$/, '').split('\n');
  if (entries.length === 0) {
    lines.push(line);
    return `${lines.join('\n')}\n`;
  }
  const [first, ...rest] = entries;
  const current = lines[first!.line] ?? '';
  const marker = LIST_ITEM_RE.exec(current);
  if (marker && first!.siblings === 0 && first!.span[0] === marker[1]!.length) {
    lines[first!.line] = marker[1] + line.replace(/^- /, '');
  }
  return `${dropPointers(lines, rest).join('\n')}\n`;
}

/** Remove every pointer to `file`: its line, or only the link when the line holds others. Pure. */
export function removeIndexLine(text: string, file: string): string {
  return dropIndexEntries(
    text,
    parseIndexEntries(text).filter((e) => e.file === file),
  );
}

/** `text` without these pointers (from parseIndexEntries of the same text). Pure. */
export function dropIndexEntries(text: string, entries: readonly IndexEntry[]): string {
  if (entries.length === 0) return text;
  const lines = dropPointers(text.replace(/\n$/, '').split('\n'), entries);
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/** `lines` without these pointers: a line holding only them goes, otherwise the link is cut out. */
function dropPointers(lines: string[], entries: readonly IndexEntry[]): string[] {
  const drop = new Set<number>();
  const cuts = [...entries].sort((a, b) => a.line - b.line || b.span[0] - a.span[0]);
  const removedOnLine = new Map<number, number>();
  for (const e of cuts) removedOnLine.set(e.line, (removedOnLine.get(e.line) ?? 0) + 1);
  for (const e of cuts) {
    if (e.siblings + 1 <= (removedOnLine.get(e.line) ?? 0)) {
      drop.add(e.line);
      continue;
    }
    const l = lines[e.line] ?? '';
    lines[e.line] = l.slice(0, e.span[0]) + l.slice(e.span[1]);
  }
  return lines.filter((_, i) => !drop.has(i));
}

/**
 * Read-modify-write MEMORY.md under a lock so concurrent writers (other processes too) never
 * lose each other's lines. `change` gets the current text ('' when missing) and returns the new.
 */
export async function updateIndex(
  dir: string,
  change: (current: string) => string,
): Promise<string> {
  // The lock first (re-entrant: a save already holds it), then the index through the held
  // directory, never through a path a concurrent process could re-point.
  return withMemoryLock(dir, () =>
    memoryDirConfinement(dir).withDir('.', async (held) => {
      const current = (await readOwnFile(held, INDEX_FILE)) ?? '';
      const next = change(current);
      if (next !== current) await writeFileAtomic(join(held, INDEX_FILE), next, { mode: 0o600 });
      return next;
    }),
  );
}
