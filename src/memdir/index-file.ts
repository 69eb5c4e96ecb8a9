import { join } from 'node:path';
import { readOwnFile } from '../confine/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { errnoCode } from '../util/errors.js';
import { memoryDirConfinement } from './confined.js';
import { INDEX_FILE, INDEX_LINE_MAX_CHARS, INDEX_MAX_BYTES, INDEX_MAX_LINES } from './constants.js';
import { withMemoryLock } from './dir-lock.js';

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

export interface IndexEntry {
  title: string;
  file: string;
  hook: string;
  /** 0-based line number in MEMORY.md. */
  line: number;
}

const ENTRY_RE = /^\s*[-*+]\s+\[([^\]]*)\]\(([^)\s]+)\)\s*(?:(?:—|–|-|:)\s*(.*))?$/;

/** Parse the `- [Title](file.md) — hook` lines of an index; other lines are ignored. Pure. */
export function parseIndexEntries(text: string): IndexEntry[] {
  const entries: IndexEntry[] = [];
  text.split('\n').forEach((raw, line) => {
    // CRLF indexes (written on Windows): `.` in the pattern does not match a trailing `\r`.
    const m = ENTRY_RE.exec(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
    if (!m) return;
    const target = decodeTarget(m[2] ?? '');
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return; // external links are not pointers
    entries.push({ title: m[1] ?? '', file: target, hook: (m[3] ?? '').trim(), line });
  });
  return entries;
}

function decodeTarget(target: string): string {
  let t = target.replace(/^\.\//, '').replace(/#.*$/, '');
  try {
    t = decodeURIComponent(t);
  } catch {
    // keep the raw target
  }
  return t;
}

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

/** Replace the pointer line(s) for `file`, or append one. Other lines are kept as they are. Pure. */
export function upsertIndexLine(text: string, file: string, line: string): string {
  const entries = parseIndexEntries(text).filter((e) => e.file === file);
  const lines = text === '' ? [] : text.replace(/\n$/, '').split('\n');
  if (entries.length === 0) {
    lines.push(line);
  } else {
    const [first, ...rest] = entries;
    lines[first!.line] = line;
    const drop = new Set(rest.map((e) => e.line));
    return `${lines.filter((_, i) => !drop.has(i)).join('\n')}\n`;
  }
  return `${lines.join('\n')}\n`;
}

/** Remove every pointer line for `file`. Pure. */
export function removeIndexLine(text: string, file: string): string {
  const drop = new Set(
    parseIndexEntries(text)
      .filter((e) => e.file === file)
      .map((e) => e.line),
  );
  if (drop.size === 0) return text;
  const lines = text
    .replace(/\n$/, '')
    .split('\n')
    .filter((_, i) => !drop.has(i));
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
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
