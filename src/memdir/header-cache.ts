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
import { join } from 'node:path';
import { TEMP_PREFIX } from '../util/atomic-write.js';
import { errnoCode } from '../util/errors.js';
import { withFileLock } from '../util/file-lock.js';
import { fsCalls } from '../util/fs-calls.js';
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
  keep(cache);
  return cache;
}

/** Keep `cache` in memory as its directory's, the least recently used going past DIRECTORIES_KEPT. */
function keep(cache: DirectoryCache): void {
  kept.set(cache.dir, cache);
  while (kept.size > DIRECTORIES_KEPT) kept.delete(kept.keys().next().value!);
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
  const packed = { ids, trusted, derived, starts };
  for (let i = 0; i < n; i++) {
    const file = files[i];
    const header = headers[i];
    if (typeof file !== 'string' || !isHeaderOf(header, file)) continue;
    if (!(starts[i]! <= starts[i + 1]!)) return;
    entries.set(file, packedEntry(packed, i, prefix + file, header));
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

/**
 * Entry `i` of packed entries (the cache file's, a worker's transfer): its identity from `ids`, its
 * header given this process's path and the identity's mtime, its derived data read when asked.
 */
function packedEntry(
  packed: { ids: Float64Array; trusted: Uint8Array; derived: Uint8Array; starts: Int32Array },
  i: number,
  path: string,
  header: MemoryHeader,
): CacheEntry {
  const { ids, trusted, derived, starts } = packed;
  const mtimeMs = ids[4 * i + 1]!;
  const id = { size: ids[4 * i]!, mtimeMs, ctimeMs: ids[4 * i + 2]!, ino: ids[4 * i + 3]! };
  const own = { ...header, path, mtimeMs };
  return entryWithLazyDerived(
    id,
    trusted[i] === 1,
    own,
    derived.subarray(starts[i], starts[i + 1]),
  );
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

/** Each entry's identity, trust and derived data, packed as the file and the transfer both hold them. */
interface PackedEntries {
  ids: Float64Array;
  trusted: Uint8Array;
  derivedParts: Uint8Array[];
  derivedStarts: Int32Array;
  derivedSize: number;
}

/**
 * Pack `entries` a slice at a time (a long-running host's loop keeps turning meanwhile);
 * `each` sees every entry first, in order (the caller gathers its file names and headers).
 */
async function packEntries(
  entries: Iterable<[string, CacheEntry]>,
  n: number,
  each: (file: string, e: CacheEntry) => void,
): Promise<PackedEntries> {
  const ids = new Float64Array(4 * n);
  const trusted = new Uint8Array(n);
  const derivedParts: Uint8Array[] = [];
  const derivedStarts = new Int32Array(n + 1);
  let derivedSize = 0;
  let i = 0;
  let sliceStart = performance.now();
  for (const [file, e] of entries) {
    each(file, e);
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
  return { ids, trusted, derivedParts, derivedStarts, derivedSize };
}

/** The file's bytes, built a slice at a time: a long-running host's loop keeps turning meanwhile. */
async function toBytes(cache: DirectoryCache, entries: Map<string, CacheEntry>): Promise<Buffer> {
  const n = entries.size;
  const files: string[] = [];
  const headers: MemoryHeader[] = [];
  const { ids, trusted, derivedParts, derivedStarts, derivedSize } = await packEntries(
    entries,
    n,
    (file, e) => {
      files.push(file);
      headers.push(e.header);
    },
  );
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
  let sliceStart = performance.now();
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
 * reader sees the old file or the new one. (Its file calls are synchronous in a one-shot process,
 * see fs-calls.ts; the same calls in the same order.) Not fsync'd on purpose: after a crash a missing or torn
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
        const fs = fsCalls();
        try {
          await fs.writeFile(temp, await toBytes(cache, merged), { mode: 0o600 });
          await fs.rename(temp, path);
          // The JSON file of format 1, which nothing reads any more (one unlink: rm's force
          // would stat it first, twice).
          await fs.unlink(join(cache.dir, LEGACY_CACHE_FILE)).catch((error: unknown) => {
            if (errnoCode(error) !== 'ENOENT') throw error;
          });
        } catch (error) {
          await fs.rm(temp, { force: true });
          throw error;
        }
      },
      { timeoutMs: 500, staleMs: 10_000, leaf: true },
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

/** Artifact values adopted from a worker thread of this process (never read from a file). */
const handedOver = new WeakSet<object>();

/** Whether an artifact's value came from this process's own worker, not from a cache file. */
export function isHandedOver(value: unknown): boolean {
  return typeof value === 'object' && value !== null && handedOver.has(value);
}

/** Whether this process keeps `dir`'s cache in memory (a later scan of it is not a first one). */
export function isCacheKept(dir: string): boolean {
  return kept.has(dir);
}

/**
 * One directory's cache as a worker thread hands it to the thread that adopts it
 * (`src/recall/first-build.ts`): numbers and texts in typed arrays (transferred, not copied), the
 * headers as JSON text in pieces of HEADERS_PER_TEXT, so that adopting them is done in slices
 * rather than in one long parse.
 */
export interface CacheTransfer {
  dir: string;
  generation: string;
  dirty: boolean;
  removed: string[];
  /** UTF-8 JSON arrays of headers, one after another; piece k is `headerStarts[k]..[k+1]`. */
  headerText: Uint8Array;
  headerStarts: Int32Array;
  ids: Float64Array;
  trusted: Uint8Array;
  derived: Uint8Array;
  derivedStarts: Int32Array;
  /** Structured-cloned as they are (an index snapshot: strings and typed arrays). */
  artifacts: [string, { generation: string; value: unknown }][];
}

/** `cache` as a transfer, and the buffers to transfer with it. Sliced like the file's bytes. */
export async function cacheTransferOf(
  cache: DirectoryCache,
): Promise<{ transfer: CacheTransfer; buffers: ArrayBuffer[] }> {
  const n = cache.entries.size;
  const headerStarts = new Int32Array(Math.ceil(n / HEADERS_PER_TEXT) + 1);
  const headerParts: Buffer[] = [];
  let headerSize = 0;
  let piece: MemoryHeader[] = [];
  const flush = () => {
    const text = Buffer.from(JSON.stringify(piece));
    headerParts.push(text);
    headerSize += text.length;
    headerStarts[headerParts.length] = headerSize;
    piece = [];
  };
  const { ids, trusted, derivedParts, derivedStarts, derivedSize } = await packEntries(
    cache.entries,
    n,
    (_file, e) => {
      piece.push(e.header);
      if (piece.length === HEADERS_PER_TEXT) flush();
    },
  );
  if (piece.length > 0) flush();
  // Fresh buffers of their own (never Node's shared pool), so they can be transferred.
  const own = (parts: Uint8Array[], size: number) => {
    const out = new Uint8Array(new ArrayBuffer(size));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  };
  const headerText = own(headerParts, headerSize);
  const derived = own(derivedParts, derivedSize);
  const transfer: CacheTransfer = {
    dir: cache.dir,
    generation: cache.generation,
    dirty: cache.dirty,
    removed: [...cache.removed],
    headerText,
    headerStarts,
    ids,
    trusted,
    derived,
    derivedStarts,
    artifacts: [],
  };
  const buffers = [headerText, headerStarts, ids, trusted, derived, derivedStarts].map(
    (a) => a.buffer as ArrayBuffer,
  );
  // The artifacts' typed arrays (an index's postings: most of the bytes) are moved too, each as a
  // copy of its own: cloned, they were copied in the one call that receives the message.
  const movable = (value: unknown, depth: number): unknown => {
    if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
      const copy = (value as Uint8Array).slice();
      buffers.push(copy.buffer as ArrayBuffer);
      return copy;
    }
    if (typeof value !== 'object' || value === null || depth > 8) return value;
    if (Array.isArray(value)) return value.map((v) => movable(v, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = movable(v, depth + 1);
    return out;
  };
  for (const [name, artifact] of cache.artifacts) {
    transfer.artifacts.push([
      name,
      { generation: artifact.generation, value: movable(artifact.value, 0) },
    ]);
  }
  return { transfer, buffers };
}

/**
 * Make a transfer this process's cache of its directory, unless the directory is kept already (a
 * scan began meanwhile: that cache stands). Checked like the cache file: anything malformed is
 * refused whole (false) and the directory is scanned as if there had been no transfer. In slices.
 */
export async function adoptCacheTransfer(t: CacheTransfer): Promise<boolean> {
  const { ids, trusted, derived, derivedStarts: starts, headerText, headerStarts } = t;
  if (typeof t.dir !== 'string' || typeof t.generation !== 'string') return false;
  if (!(ids instanceof Float64Array) || !(trusted instanceof Uint8Array)) return false;
  if (!(derived instanceof Uint8Array) || !(starts instanceof Int32Array)) return false;
  if (!(headerText instanceof Uint8Array) || !(headerStarts instanceof Int32Array)) return false;
  const n = trusted.length;
  if (ids.length !== 4 * n || starts.length !== n + 1 || starts[n] !== derived.length) return false;
  const text = Buffer.from(headerText.buffer, headerText.byteOffset, headerText.length);
  const entries = new Map<string, CacheEntry>();
  const prefix = pathPrefix(t.dir);
  const packed = { ids, trusted, derived, starts };
  let i = 0;
  let sliceStart = performance.now();
  try {
    for (let k = 0; k + 1 < headerStarts.length; k++) {
      const headers = JSON.parse(text.toString('utf8', headerStarts[k], headerStarts[k + 1]));
      if (!Array.isArray(headers)) return false;
      for (const header of headers as unknown[]) {
        if (i >= n || !(starts[i]! <= starts[i + 1]!)) return false;
        const file = (header as { file?: unknown } | null)?.file;
        if (typeof file === 'string' && isHeaderOf(header, file)) {
          entries.set(file, packedEntry(packed, i, prefix + file, header));
        }
        i++;
      }
      if (performance.now() - sliceStart > SLICE_MS) {
        await yieldToLoop();
        sliceStart = performance.now();
      }
    }
  } catch {
    return false;
  }
  if (i !== n || kept.has(t.dir) || !Array.isArray(t.artifacts)) return false;
  for (const [, artifact] of t.artifacts) {
    if (typeof artifact?.value === 'object' && artifact.value !== null)
      handedOver.add(artifact.value);
  }
  const cache: DirectoryCache = {
    dir: t.dir,
    entries,
    generation: t.generation,
    artifacts: new Map(t.artifacts),
    dirty: t.dirty === true,
    removed: new Set(Array.isArray(t.removed) ? t.removed : []),
  };
  keep(cache);
  // What follows (the scan's listing) is not added to the last piece's slice.
  await yieldToLoop();
  return true;
}
