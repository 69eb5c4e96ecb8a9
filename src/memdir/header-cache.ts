/**
 * The header cache: each memory file's parsed header (and whatever a reader derived from it, such
 * as the ranker's analysis), keyed by the file's identity, so a warm turn costs a readdir and a
 * stat per file instead of an open and a read. Kept per directory in memory (long-running hosts)
 * and in a file engram owns inside that directory (one-shot processes such as a hook).
 *
 * Never the source of truth. An entry is used only when the file's size, mtime, ctime and inode
 * are all unchanged AND the file had been still for longer than the filesystem's timestamp
 * granularity when it was read (a same-size edit within the same tick would otherwise look
 * unchanged). A missing, corrupt, foreign or other-version cache file is ignored and rewritten.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TEMP_PREFIX } from '../util/atomic-write.js';
import { withFileLock } from '../util/file-lock.js';
import { SLICE_MS, yieldToLoop } from '../util/yield-to-loop.js';
import type { MemoryHeader } from './types.js';

/** The cache file in each memory directory (a dot file: scans skip it, it is never a memory). */
export const HEADER_CACHE_FILE = '.engram-cache.json';
const HEADER_CACHE_LOCK = '.engram-cache.lock';
/** Bumped whenever what an entry holds changes meaning; another format is ignored, then rewritten. */
export const HEADER_CACHE_FORMAT = 1;
/**
 * Timestamps are only as fine as the filesystem keeps them (2 s on FAT, 1 s on some network and
 * older filesystems, a kernel tick on ext4). A file changed less than this before it was read may
 * change again with the same size and timestamps, so its entry is not trusted.
 */
export const TIMESTAMP_GRANULARITY_MS = 2_000;
/** Directories a host keeps warm at once (project, user and team layers, agents). */
const DIRECTORIES_KEPT = 8;

export interface FileIdentity {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

export interface CacheEntry {
  id: FileIdentity;
  /** False when the file had changed within TIMESTAMP_GRANULARITY_MS of being read. */
  trusted: boolean;
  header: MemoryHeader;
  /** Derived data readers attach (keyed by reader, e.g. the offline ranker's analysis). */
  derived: Record<string, unknown>;
}

export interface DirectoryCache {
  readonly dir: string;
  readonly entries: Map<string, CacheEntry>;
  /** Changes whenever an entry is added, replaced or removed: derived whole-directory data keys on it. */
  generation: string;
  /** Whole-directory data (the ranker's index), valid while `generation` is what it was built for. */
  readonly artifacts: Map<string, { generation: string; value: unknown }>;
  /** Something changed since the file was last written. */
  dirty: boolean;
  /** Files this process saw disappear since the last write (so a merge does not bring them back). */
  readonly removed: Set<string>;
}

const kept = new Map<string, DirectoryCache>();

// Unique across processes (a merged file must not match either writer's stamp by chance), cheap
// within one: a cold scan bumps it once per file.
const PROCESS_STAMP = `${process.pid.toString(36)}-${randomBytes(4).toString('hex')}`;
let bumps = 0;
function newGeneration(): string {
  bumps++;
  return `${PROCESS_STAMP}-${bumps.toString(36)}`;
}

export function sameIdentity(a: FileIdentity, b: FileIdentity): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}

/** Whether an entry read at `readAtMs` may stand for the file while its identity holds. Pure. */
export function isTrusted(id: FileIdentity, readAtMs: number): boolean {
  return readAtMs - Math.max(id.mtimeMs, id.ctimeMs) > TIMESTAMP_GRANULARITY_MS;
}

/**
 * The cache of one directory: kept in memory for this process, else loaded from its file (or
 * empty). `persisted: false` never reads the file (a cold start on purpose).
 */
export function directoryCache(dir: string, options: { persisted?: boolean } = {}): DirectoryCache {
  const hit = kept.get(dir);
  if (hit) {
    kept.delete(dir); // least recently used goes first
    kept.set(dir, hit);
    return hit;
  }
  const loaded = options.persisted === false ? undefined : readCacheFile(dir);
  const cache: DirectoryCache = loaded ?? {
    dir,
    entries: new Map(),
    generation: newGeneration(),
    artifacts: new Map(),
    dirty: false,
    removed: new Set(),
  };
  kept.set(dir, cache);
  while (kept.size > DIRECTORIES_KEPT) kept.delete(kept.keys().next().value!);
  return cache;
}

/** Forget every directory kept in memory (tests; a host that wants the memory back). */
export function clearHeaderCaches(): void {
  kept.clear();
}

/** Record a changed entry (or a removal, with `entry` undefined); invalidates artifacts. */
export function updateEntry(cache: DirectoryCache, file: string, entry: CacheEntry | undefined) {
  if (entry === undefined) {
    if (!cache.entries.delete(file)) return;
    cache.removed.add(file);
  } else {
    cache.entries.set(file, entry);
    cache.removed.delete(file);
  }
  cache.generation = newGeneration();
  cache.dirty = true;
}

interface CacheFile {
  format: number;
  dir: string;
  generation: string;
  entries: Record<string, [number, number, number, number, boolean, MemoryHeader, unknown]>;
  artifacts: Record<string, { generation: string; value: unknown }>;
}

function readCacheFile(dir: string): DirectoryCache | undefined {
  let data: CacheFile;
  try {
    data = JSON.parse(readFileSync(join(dir, HEADER_CACHE_FILE), 'utf8')) as CacheFile;
  } catch {
    return undefined; // missing or corrupt: start empty, rewrite later
  }
  // Another format, or a directory copied from elsewhere: its entries are not ours to trust.
  if (typeof data !== 'object' || data === null || data.format !== HEADER_CACHE_FORMAT) return;
  if (data.dir !== dir || typeof data.entries !== 'object' || data.entries === null) return;
  const entries = new Map<string, CacheEntry>();
  const prefix = pathPrefix(dir);
  for (const [file, raw] of Object.entries(data.entries)) {
    const entry = entryFromJson(prefix, file, raw);
    if (entry) entries.set(file, entry);
  }
  const artifacts = new Map(Object.entries(data.artifacts ?? {}));
  const generation = typeof data.generation === 'string' ? data.generation : newGeneration();
  return { dir, entries, generation, artifacts, dirty: false, removed: new Set() };
}

/**
 * `join(dir, file)` is `prefix + file` for the clean relative paths a scan lists; computed once,
 * because normalizing thousands of paths showed up in a one-shot hook's profile.
 */
export function pathPrefix(dir: string): string {
  return join(dir, 'x').slice(0, -1);
}

function entryFromJson(prefix: string, file: string, raw: unknown): CacheEntry | undefined {
  if (!Array.isArray(raw) || raw.length !== 7) return undefined;
  const [size, mtimeMs, ctimeMs, ino, trusted, header, derived] =
    raw as CacheFile['entries'][string];
  if (![size, mtimeMs, ctimeMs, ino].every((n) => typeof n === 'number')) return undefined;
  if (typeof header !== 'object' || header === null || header.file !== file) return undefined;
  if (typeof header.type !== 'string' || typeof header.frontmatter !== 'object') return undefined;
  return {
    id: { size, mtimeMs, ctimeMs, ino },
    trusted: trusted === true,
    header: { ...header, path: prefix + file, mtimeMs },
    derived:
      typeof derived === 'object' && derived !== null ? (derived as Record<string, unknown>) : {},
  };
}

/** The file's text, built a slice at a time: a long-running host's loop keeps turning meanwhile. */
async function toJson(cache: DirectoryCache, entries: Map<string, CacheEntry>): Promise<string> {
  const head = JSON.stringify({
    format: HEADER_CACHE_FORMAT,
    dir: cache.dir,
    generation: cache.generation,
    artifacts: Object.fromEntries(cache.artifacts),
  });
  const parts: string[] = [];
  let sliceStart = performance.now();
  for (const [file, e] of entries) {
    const raw = [e.id.size, e.id.mtimeMs, e.id.ctimeMs, e.id.ino, e.trusted, e.header, e.derived];
    parts.push(`${JSON.stringify(file)}:${JSON.stringify(raw)}`);
    if ((parts.length & 63) === 0 && performance.now() - sliceStart > SLICE_MS) {
      await yieldToLoop();
      sliceStart = performance.now();
    }
  }
  return `${head.slice(0, -1)},"entries":{${parts.join(',')}}}`;
}

/**
 * Write the directory's cache file if anything changed. Under a short lock, the file's current
 * entries are merged with ours (ours win for the files we looked at; files we saw removed stay
 * removed), so two processes updating it at once lose nothing. A temp file renamed into place: a
 * reader sees the old file or the new one. Not fsync'd on purpose: after a crash a missing or torn
 * cache is simply rebuilt, and a turn should not wait for the disk. Failures are ignored.
 */
export async function persistDirectoryCache(cache: DirectoryCache): Promise<boolean> {
  if (!cache.dirty) return false;
  const path = join(cache.dir, HEADER_CACHE_FILE);
  try {
    await withFileLock(
      join(cache.dir, HEADER_CACHE_LOCK),
      async () => {
        const onDisk = readCacheFile(cache.dir);
        let merged = cache.entries;
        if (onDisk && onDisk.generation !== cache.generation) {
          merged = new Map(cache.entries);
          for (const [file, entry] of onDisk.entries) {
            if (!merged.has(file) && !cache.removed.has(file)) merged.set(file, entry);
          }
          if (merged.size !== cache.entries.size) {
            // The whole-directory artifacts describe our entries, not the union.
            for (const [file, entry] of merged) cache.entries.set(file, entry);
            cache.generation = newGeneration();
            cache.artifacts.clear();
          }
        }
        const temp = join(
          cache.dir,
          `${TEMP_PREFIX}${HEADER_CACHE_FILE}.${process.pid}.${randomBytes(4).toString('hex')}`,
        );
        try {
          await writeFile(temp, await toJson(cache, merged), { mode: 0o600 });
          await rename(temp, path);
        } catch (error) {
          await rm(temp, { force: true });
          throw error;
        }
      },
      { timeoutMs: 500, staleMs: 10_000 },
    );
  } catch {
    return false; // read-only directory, contention past the timeout: the next turn tries again
  }
  cache.dirty = false;
  cache.removed.clear();
  return true;
}

/** True for values that come back equal from JSON (what a persisted header may hold). */
export function isJsonSafe(value: unknown, depth = 0): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (depth > 8 || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.every((v) => isJsonSafe(v, depth + 1));
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.values(value).every((v) => v !== undefined && isJsonSafe(v, depth + 1));
}
