/**
 * When each memory was last recalled, from the recall log: the input of the reference decay rule
 * ("a reference not recalled in 30 days loses weight"). Recall runs every turn, so it reads only the
 * log's tail: the newest lines are the ones that matter, and the log may be long.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathPrefix } from '../memdir/header-cache.js';
import { errnoCode } from '../util/errors.js';

/** Enough for thousands of recent recalls; older ones only matter past the 30-day window. */
export const LAST_RECALLED_TAIL_BYTES = 256 * 1024;

/** A recall log line as far as last-recalled times go (see `RecallShape`). */
export interface RecalledLine {
  at?: unknown;
  files?: unknown;
  /** The layer of each file, parallel to `files`. */
  layers?: unknown;
  /** The directory of each layer named in `layers`. */
  layerDirs?: unknown;
}

/**
 * The key a memory's time is kept under: its layer's directory and its file, so a log shared by
 * layers, or the user layer's log written from many repositories, never lends one memory's time to
 * a same-named memory elsewhere. Lines written before the directories were logged key by file
 * alone (`lastRecalledAt` reads both). Pure.
 */
export function recalledKey(dir: string, file: string): string {
  // Resolving the directory once: every turn looks up each of up to 200 candidates, and a full
  // `resolve` per candidate was most of that lookup. The file is a scan's clean relative path.
  let prefix = dirPrefixes.get(dir);
  if (prefix === undefined) {
    prefix = pathPrefix(resolve(dir));
    if (dirPrefixes.size >= DIR_PREFIXES_KEPT) dirPrefixes.clear();
    dirPrefixes.set(dir, prefix);
  }
  return prefix + file;
}

const dirPrefixes = new Map<string, string>();
/** Layer directories a process keys by (a host serves a few; bounded for one that serves many). */
const DIR_PREFIXES_KEPT = 64;

/**
 * The newest time the memory `file` of the layer in `dir` was injected: from lines that name its
 * directory, or from older lines that name only the file (read as they always were). Pure.
 */
export function lastRecalledAt(
  times: ReadonlyMap<string, number>,
  dir: string,
  file: string,
): number | undefined {
  const own = times.get(recalledKey(dir, file));
  const legacy = times.get(file);
  if (own === undefined) return legacy;
  return legacy === undefined || own >= legacy ? own : legacy;
}

/**
 * key → newest time it was injected, from log lines `{ at, files, layers?, layerDirs? }`: the key
 * is `recalledKey(dir, file)` where the line names the file's layer directory, the file name
 * otherwise. Pure.
 */
export function lastRecalledFrom(lines: ReadonlyArray<RecalledLine>): Map<string, number> {
  return latestOf(lines.map(digest));
}

/** A line's time and keys; undefined when it names no valid time or no files. Pure. */
function digest(line: RecalledLine): Parsed | undefined {
  const at = typeof line.at === 'string' ? Date.parse(line.at) : Number.NaN;
  if (Number.isNaN(at) || !Array.isArray(line.files)) return undefined;
  const layers = Array.isArray(line.layers) ? line.layers : [];
  const dirs =
    typeof line.layerDirs === 'object' && line.layerDirs !== null
      ? (line.layerDirs as Record<string, unknown>)
      : {};
  const files: string[] = [];
  line.files.forEach((file: unknown, i) => {
    if (typeof file !== 'string') return;
    const layer = layers[i];
    const dir = typeof layer === 'string' && Object.hasOwn(dirs, layer) ? dirs[layer] : undefined;
    files.push(typeof dir === 'string' && dir !== '' ? recalledKey(dir, file) : file);
  });
  return { at, files };
}

/**
 * A log line as `lastRecalledFrom` reads it, digested once: its time and its keys; `null` for a
 * line that parsed to JSON `null` (reading `.at` of it throws, as it always did).
 */
type Parsed = { at: number; files: string[] } | null;

interface LogTail {
  ino: number;
  dev: number;
  maxBytes: number;
  /** Offset just past the last newline read: the log up to here is parsed in `lines`. */
  settledEnd: number;
  /** The bytes just before `settledEnd`, checked again before trusting `lines` (a rewritten log). */
  probe: Buffer;
  /** Parsed whole lines with their start offsets, oldest first, only those still in a window. */
  lines: Array<{ start: number; value: Parsed }>;
  /** `latestOf` the lines, kept while lines are only appended (none left the window). */
  latest: Map<string, number>;
}

/**
 * Recall runs every turn and the log grows by a line per turn: a long-running host keeps the
 * parsed tail and reads only what was appended since (its own line, or another process's). The
 * answer is exactly what a full read of the tail gives (same window, same cut first line).
 */
const tails = new Map<string, LogTail>();
const TAILS_KEPT = 8;
const PROBE_BYTES = 64;

/**
 * The last-recalled map (keys as `lastRecalledFrom` makes them; look one up with
 * `lastRecalledAt`) from the tail of a recall log; a missing log is an empty map. Read-only:
 * a long-running host gets the map it keeps for the log (no copy per turn).
 */
export async function readLastRecalled(
  logPath: string,
  maxBytes: number = LAST_RECALLED_TAIL_BYTES,
): Promise<ReadonlyMap<string, number>> {
  // Synchronous calls: a few small reads of a local file cost less than six thread-pool round
  // trips, which a loaded machine makes slow (the recall log is read every turn).
  let fd: number;
  try {
    fd = openSync(logPath, 'r');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') {
      tails.delete(logPath);
      return new Map();
    }
    throw error;
  }
  try {
    const { size, ino, dev } = fstatSync(fd);
    const windowStart = tailWindowStart(size, maxBytes);
    const kept = tails.get(logPath);
    let tail: LogTail | undefined;
    if (
      kept &&
      kept.ino === ino &&
      kept.dev === dev &&
      kept.maxBytes === maxBytes &&
      kept.settledEnd <= size
    ) {
      const probeStart = kept.settledEnd - kept.probe.length;
      const now = Buffer.alloc(kept.probe.length);
      readAt(fd, now, probeStart);
      if (now.equals(kept.probe)) tail = kept;
    }
    // Read from where the kept lines end, or the whole window afresh.
    const from = tail ? Math.max(tail.settledEnd, windowStart) : windowStart;
    const buf = Buffer.alloc(size - from);
    readAt(fd, buf, from);
    // Kept lines the window has moved past drop out (all of them when it passed `settledEnd`).
    const lines = tail ? tail.lines.filter((l) => inWindow(l.start, windowStart)) : [];
    const keptLines = lines.length;
    // While no kept line left the window, the kept map only needs the appended lines folded in.
    const base = tail && keptLines === tail.lines.length ? tail.latest : undefined;
    let offset = from;
    let end = from;
    let rest: Parsed[] = []; // an unterminated last line: used now, read again next time
    for (let i = 0; i <= buf.length; ) {
      const nl = buf.indexOf(0x0a, i);
      const stop = nl < 0 ? buf.length : nl;
      const value = parsedLine(buf.toString('utf8', i, stop));
      if (nl >= 0) {
        if (inWindow(offset, windowStart) && value !== undefined)
          lines.push({ start: offset, value });
        end = from + nl + 1;
      } else if (value !== undefined && inWindow(offset, windowStart)) rest = [value];
      if (nl < 0) break;
      i = nl + 1;
      offset = from + i;
    }
    const probeStart = Math.max(0, end - PROBE_BYTES);
    const probe = Buffer.alloc(end - probeStart);
    readAt(fd, probe, probeStart);
    const appended = lines.slice(keptLines).map((l) => l.value);
    // A map handed out before is never changed: appended lines go into a copy.
    const latest = !base
      ? latestOf(lines.map((l) => l.value))
      : appended.length > 0
        ? latestOf(appended, new Map(base))
        : base;
    tails.delete(logPath);
    tails.set(logPath, { ino, dev, maxBytes, settledEnd: end, probe, lines, latest });
    while (tails.size > TAILS_KEPT) tails.delete(tails.keys().next().value!);
    return rest.length > 0 ? latestOf(rest, new Map(latest)) : latest;
  } finally {
    closeSync(fd);
  }
}

/**
 * Where a read of the log's last `maxBytes` starts: that far before the end, moved back to a
 * multiple of a quarter of `maxBytes`. So the window holds between `maxBytes` and 1.25 × `maxBytes`
 * and moves only once per quarter window of appends: a host that keeps the parsed tail rebuilds its
 * map then, not on every turn (a window moving with each appended line dropped a line and rebuilt
 * the map over the whole tail every turn once the log passed `maxBytes`). A function of the size
 * alone, so a fresh read and a kept tail agree. Pure.
 */
export function tailWindowStart(size: number, maxBytes: number): number {
  const step = Math.max(1, Math.floor(maxBytes / 4));
  return Math.max(0, Math.floor((size - maxBytes) / step) * step);
}

/** One read into `buf` from `position` (a short read leaves zeros, as it always did). */
function readAt(fd: number, buf: Buffer, position: number): void {
  if (buf.length > 0) readSync(fd, buf, 0, buf.length, position);
}

/** Forget the kept log tails (tests compare a kept tail with a fresh read). */
export function forgetLogTails(): void {
  tails.clear();
}

/** A full read of the window drops its first piece when it does not start the file. Pure. */
function inWindow(lineStart: number, windowStart: number): boolean {
  return windowStart === 0 || lineStart > windowStart;
}

/** A line's time and files, as `lastRecalledFrom` takes them; undefined when it says nothing. */
function parsedLine(line: string): Parsed | undefined {
  if (line.trim() === '') return undefined;
  let value: RecalledLine | null;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined; // a torn or foreign line says nothing about recall
  }
  return value === null ? null : digest(value);
}

/** file → newest time, over digested lines (folded into `last`, a fresh map by default). */
function latestOf(
  lines: ReadonlyArray<Parsed | undefined>,
  last: Map<string, number> = new Map(),
): Map<string, number> {
  for (const line of lines) {
    if (line === undefined) continue;
    if (line === null) throw new TypeError("Cannot read properties of null (reading 'at')");
    for (const file of line.files) {
      if (line.at > (last.get(file) ?? Number.NEGATIVE_INFINITY)) last.set(file, line.at);
    }
  }
  return last;
}
