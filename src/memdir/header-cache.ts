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
export const HEADER_CACHE_FILE = '.engram-cache.bin';
const HEADER_CACHE_LOCK = '.engram-cache.lock';
/** Bumped whenever what an entry holds changes meaning; another format is ignored, then rewritten. */
export const HEADER_CACHE_FORMAT = 2;
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

/**
 * The cache file, binary: a marker and the format, a JSON part (the directory, its generation,
 * every entry's file and header, the artifacts' plain parts), then typed arrays, each 8-byte
 * aligned, that the JSON part points to as `{"$blob": [type, offset, length]}`: the identities, the
 * trusted flags, the artifacts' numbers (a ranker index's postings as raw doubles), and each
 * entry's derived data as its own piece of JSON text, parsed only when a reader asks for it (a
 * warm one-shot turn restores the saved index and needs the analyses of a few memories at most).
 */
const MAGIC = Buffer.from('ENGRAMHC');
const HEAD_BYTES = 16;
const BLOB = '$blob';
const LEGACY_CACHE_FILE = '.engram-cache.json';

type BlobType = 'Int32Array' | 'Float64Array' | 'Uint8Array';
const BLOB_TYPES = { Int32Array, Float64Array, Uint8Array } as const;
type BlobRef = { [BLOB]: [BlobType, number, number] };

interface FileMeta {
  dir: string;
  generation: string;
  files: string[];
  headers: MemoryHeader[];
  ids: BlobRef;
  trusted: BlobRef;
  derived: BlobRef;
  derivedStarts: BlobRef;
  artifacts: Record<string, { generation: string; value: unknown }>;
}

/** Derived data still as the bytes the file holds, for entries whose `derived` nobody read. */
const untouchedDerived = new WeakMap<CacheEntry, Uint8Array>();

function entryWithLazyDerived(
  id: FileIdentity,
  trusted: boolean,
  header: MemoryHeader,
  bytes: Uint8Array,
): CacheEntry {
  let value: Record<string, unknown> | undefined;
  const entry: CacheEntry = {
    id,
    trusted,
    header,
    get derived() {
      if (value === undefined) {
        untouchedDerived.delete(entry);
        value = parseDerived(bytes);
      }
      return value;
    },
    set derived(next) {
      untouchedDerived.delete(entry);
      value = next;
    },
  };
  untouchedDerived.set(entry, bytes);
  return entry;
}

function parseDerived(bytes: Uint8Array): Record<string, unknown> {
  try {
    const value = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString());
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {}; // a reader recomputes what it finds missing
  }
}

/** What `dir`'s cache file holds, or undefined when it is missing or not one engram can use. */
export function readCacheFile(dir: string): DirectoryCache | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(dir, HEADER_CACHE_FILE));
  } catch {
    return undefined; // missing: start empty, write it later
  }
  try {
    return decodeCacheFile(dir, bytes);
  } catch {
    return undefined; // corrupt: start empty, rewrite later
  }
}

function decodeCacheFile(dir: string, bytes: Buffer): DirectoryCache | undefined {
  if (bytes.length < HEAD_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return;
  // Another format, or a directory copied from elsewhere: its entries are not ours to trust.
  if (bytes.readUInt32LE(8) !== HEADER_CACHE_FORMAT) return;
  const metaEnd = HEAD_BYTES + bytes.readUInt32LE(12);
  if (metaEnd > bytes.length) return;
  const meta = JSON.parse(bytes.toString('utf8', HEAD_BYTES, metaEnd)) as FileMeta;
  if (typeof meta !== 'object' || meta === null || meta.dir !== dir) return;
  const blobStart = align8(metaEnd);
  const blob = (ref: unknown) => blobAt(bytes, blobStart, ref);
  const ids = blob(meta.ids);
  const trusted = blob(meta.trusted);
  const derived = blob(meta.derived);
  const starts = blob(meta.derivedStarts);
  const { files, headers } = meta;
  if (!Array.isArray(files) || !Array.isArray(headers) || headers.length !== files.length) return;
  const n = files.length;
  if (!(ids instanceof Float64Array) || ids.length !== 4 * n) return;
  if (!(trusted instanceof Uint8Array) || trusted.length !== n) return;
  if (!(derived instanceof Uint8Array) || !(starts instanceof Int32Array)) return;
  if (starts.length !== n + 1 || starts[n] !== derived.length) return;
  const entries = new Map<string, CacheEntry>();
  const prefix = pathPrefix(dir);
  for (let i = 0; i < n; i++) {
    const file = files[i];
    const header = headers[i];
    if (typeof file !== 'string' || !isHeaderOf(header, file)) continue;
    if (!(starts[i]! <= starts[i + 1]!)) return;
    const mtimeMs = ids[4 * i + 1]!;
    const id = { size: ids[4 * i]!, mtimeMs, ctimeMs: ids[4 * i + 2]!, ino: ids[4 * i + 3]! };
    const own = { ...header, path: prefix + file, mtimeMs };
    entries.set(
      file,
      entryWithLazyDerived(id, trusted[i] === 1, own, derived.subarray(starts[i], starts[i + 1])),
    );
  }
  const artifacts = new Map<string, { generation: string; value: unknown }>();
  if (typeof meta.artifacts === 'object' && meta.artifacts !== null) {
    for (const [name, artifact] of Object.entries(meta.artifacts)) {
      if (typeof artifact?.generation !== 'string') continue;
      artifacts.set(name, {
        generation: artifact.generation,
        value: withBlobs(artifact.value, blob, 0),
      });
    }
  }
  const generation = typeof meta.generation === 'string' ? meta.generation : newGeneration();
  return { dir, entries, generation, artifacts, dirty: false, removed: new Set() };
}

function isHeaderOf(header: unknown, file: string): header is MemoryHeader {
  if (typeof header !== 'object' || header === null) return false;
  const h = header as MemoryHeader;
  return h.file === file && typeof h.type === 'string' && typeof h.frontmatter === 'object';
}

const align8 = (n: number) => (n + 7) & ~7;

/** The typed array a reference points to, or undefined when it does not point inside the file. */
function blobAt(bytes: Buffer, start: number, ref: unknown): ArrayBufferView | undefined {
  const spec = (ref as BlobRef | undefined)?.[BLOB];
  if (!Array.isArray(spec)) return undefined;
  const [type, offset, length] = spec;
  const Type = Object.hasOwn(BLOB_TYPES, type) ? BLOB_TYPES[type] : undefined;
  if (Type === undefined || !Number.isInteger(offset) || !Number.isInteger(length)) return;
  const at = start + offset;
  const byteLength = length * Type.BYTES_PER_ELEMENT;
  if (offset < 0 || length < 0 || at + byteLength > bytes.length) return undefined;
  // A view where the element alignment allows (the usual case), else a copy.
  const absolute = bytes.byteOffset + at;
  const buffer = bytes.buffer as ArrayBuffer;
  if (absolute % Type.BYTES_PER_ELEMENT === 0) return new Type(buffer, absolute, length);
  return new Type(buffer.slice(absolute, absolute + byteLength));
}

/** `value` with every blob reference replaced by its typed array. */
function withBlobs(value: unknown, blob: (ref: unknown) => unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null || depth > 8) return value;
  if (Array.isArray(value)) return value.map((v) => withBlobs(v, blob, depth + 1));
  if (Object.hasOwn(value, BLOB)) return blob(value);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = withBlobs(v, blob, depth + 1);
  return out;
}

/**
 * `join(dir, file)` is `prefix + file` for the clean relative paths a scan lists; computed once,
 * because normalizing thousands of paths showed up in a one-shot hook's profile.
 */
export function pathPrefix(dir: string): string {
  return join(dir, 'x').slice(0, -1);
}

/** Collects the typed arrays a file will hold, each 8-byte aligned. */
function blobWriter() {
  const parts: Uint8Array[] = [];
  let size = 0;
  const add = (view: ArrayBufferView): BlobRef => {
    const type: BlobType | undefined =
      view instanceof Float64Array
        ? 'Float64Array'
        : view instanceof Int32Array
          ? 'Int32Array'
          : view instanceof Uint8Array // a Buffer too
            ? 'Uint8Array'
            : undefined;
    if (type === undefined) throw new TypeError(`cannot store a ${view.constructor.name}`);
    const offset = size;
    parts.push(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
    size += view.byteLength;
    const pad = align8(size) - size;
    if (pad > 0) parts.push(new Uint8Array(pad));
    size += pad;
    const length = view.byteLength / BLOB_TYPES[type].BYTES_PER_ELEMENT;
    return { [BLOB]: [type, offset, length] };
  };
  const withRefs = (value: unknown): unknown => {
    if (ArrayBuffer.isView(value)) return add(value);
    if (typeof value !== 'object' || value === null) return value;
    if (Array.isArray(value)) return value.map(withRefs);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = withRefs(v);
    return out;
  };
  return { add, withRefs, parts };
}

/** Headers stringified in one call while the cache file is made. */
const HEADERS_PER_TEXT = 128;

/** The file's bytes, built a slice at a time: a long-running host's loop keeps turning meanwhile. */
async function toBytes(cache: DirectoryCache, entries: Map<string, CacheEntry>): Promise<Buffer> {
  const n = entries.size;
  const files: string[] = [];
  const headers: MemoryHeader[] = [];
  const ids = new Float64Array(4 * n);
  const trusted = new Uint8Array(n);
  const derivedParts: Uint8Array[] = [];
  const derivedStarts = new Int32Array(n + 1);
  let derivedSize = 0;
  let i = 0;
  let sliceStart = performance.now();
  for (const [file, e] of entries) {
    files.push(file);
    headers.push(e.header);
    ids.set([e.id.size, e.id.mtimeMs, e.id.ctimeMs, e.id.ino], 4 * i);
    trusted[i] = e.trusted ? 1 : 0;
    const bytes = untouchedDerived.get(e) ?? Buffer.from(JSON.stringify(e.derived));
    derivedStarts[i] = derivedSize;
    derivedParts.push(bytes);
    derivedSize += bytes.length;
    i++;
    if ((i & 63) === 0 && performance.now() - sliceStart > SLICE_MS) {
      await yieldToLoop();
      sliceStart = performance.now();
    }
  }
  derivedStarts[n] = derivedSize;
  await yieldToLoop();
  const blobs = blobWriter();
  const meta: Omit<FileMeta, 'headers'> = {
    dir: cache.dir,
    generation: cache.generation,
    files,
    ids: blobs.add(ids),
    trusted: blobs.add(trusted),
    derived: blobs.add(Buffer.concat(derivedParts, derivedSize)),
    derivedStarts: blobs.add(derivedStarts),
    artifacts: blobs.withRefs(Object.fromEntries(cache.artifacts)) as FileMeta['artifacts'],
  };
  // The headers are most of the text: stringified a slice at a time (one JSON.stringify of every
  // header was one of the longest pauses a host's first turn saw), then spliced into the object.
  const headerTexts: string[] = [];
  sliceStart = performance.now();
  for (let from = 0; from < headers.length; from += HEADERS_PER_TEXT) {
    headerTexts.push(JSON.stringify(headers.slice(from, from + HEADERS_PER_TEXT)).slice(1, -1));
    if (performance.now() - sliceStart > SLICE_MS) {
      await yieldToLoop();
      sliceStart = performance.now();
    }
  }
  // Each of the last three (encoding the text, the index's arrays' refs, copying it all into one
  // buffer) is a few milliseconds at 2,000 memories: a return to the loop between them keeps
  // them from adding up to one pause.
  await yieldToLoop();
  const json = Buffer.from(
    `{"headers":[${headerTexts.join(',')}],${JSON.stringify(meta).slice(1)}`,
  );
  await yieldToLoop();
  const head = Buffer.alloc(HEAD_BYTES);
  MAGIC.copy(head);
  head.writeUInt32LE(HEADER_CACHE_FORMAT, 8);
  head.writeUInt32LE(json.length, 12);
  const pad = new Uint8Array(align8(HEAD_BYTES + json.length) - (HEAD_BYTES + json.length));
  return Buffer.concat([head, json, pad, ...blobs.parts]);
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
          await writeFile(temp, await toBytes(cache, merged), { mode: 0o600 });
          await rename(temp, path);
          // The JSON file of format 1, which nothing reads any more.
          await rm(join(cache.dir, LEGACY_CACHE_FILE), { force: true });
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
