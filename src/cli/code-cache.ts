/**
 * Loading the hook bundle with V8's code cache. A hook is a new process per prompt, and compiling
 * the hook's code was a large share of its time; Node 20 has no module compile cache, so the hook
 * bundle (`dist/cli/bundle/hook.cjs`, one CommonJS file) is compiled as a `vm.Script` with the
 * bytecode a previous run saved (`cachedData`), as v8-compile-cache does.
 *
 * The cache is a file engram owns in `$ENGRAM_HOME/cache`, never a source of truth:
 * - its name carries the bundle file's identity (path, size, mtime, ctime, inode: any rewrite of
 *   the file changes its ctime, even when a package manager resets mtimes), the Node version, the
 *   architecture and the options V8 was started with, so another engram build or another Node
 *   never reads it (V8 itself only compares the source's length: a same-length stale cache would
 *   run the old code). Hashing the bundle's text instead cost more than the rest of the load;
 * - its content is checked against a checksum before V8 sees it (V8 checks none: a flipped byte
 *   crashes the process or runs wrong code), so a torn or corrupt file is ignored;
 * - V8 may still reject it (`cachedDataRejected`): the code is then compiled from source, exactly
 *   as without a cache, and the file is written again.
 * The bytecode is taken after the hook has run, so it holds the functions the hook used.
 */
import * as buffer from 'node:buffer';
import { createHash } from 'node:crypto';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import { shortHash } from '../util/short-hash.js';

/** `buffer.isAscii` (Node 20.16 and later). */
const isAscii = (buffer as { isAscii?: (b: Uint8Array) => boolean }).isAscii;

const MAGIC = Buffer.from('engram-code-cache 2\n');
/** SHA-1: the file guards against damage, not against someone who can write engram's home. */
const CHECKSUM = 'sha1';
const CHECKSUM_BYTES = 20;
/** Code caches kept per cache directory (several engram builds may be in use at once). */
const KEPT = 4;

export interface LoadedBundle<T> {
  exports: T;
  /** Whether V8 used a saved cache for this load. */
  fromCache: boolean;
  /** Save the code cache when there was none (or V8 rejected it). Best effort, never throws. */
  saveCache(): void;
}

function checksum(data: Uint8Array): Buffer {
  return createHash(CHECKSUM).update(data).digest();
}

/** The cache's bytes if the file is whole and ours; undefined otherwise. */
function readCache(path: string): Buffer | undefined {
  let file: Buffer;
  try {
    file = readFileSync(path);
  } catch {
    return undefined;
  }
  const start = MAGIC.length + CHECKSUM_BYTES;
  if (file.length <= start || !file.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const payload = file.subarray(start);
  const sum = file.subarray(MAGIC.length, start);
  return checksum(payload).equals(sum) ? payload : undefined;
}

/** A cache file's bytes for V8's `data`: a marker, a checksum, the data. */
export function codeCacheFileBytes(data: Buffer): Buffer {
  return Buffer.concat([MAGIC, checksum(data), data]);
}

function writeCache(dir: string, path: string, data: Buffer): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, codeCacheFileBytes(data), { mode: 0o600 });
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  // Older builds' caches: keep the few most recently written.
  const others = readdirSync(dir)
    .filter((name) => /^hook-[0-9a-f]+\.v8$/.test(name))
    .map((name) => ({ name, mtimeMs: statSync(join(dir, name)).mtimeMs }))
    .sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const old of others.slice(KEPT)) rmSync(join(dir, old.name), { force: true });
}

/**
 * Run a CommonJS bundle (built with `import.meta.url` defined as `__engramBundleUrl`) and return
 * its exports, compiled from `cacheDir`'s code cache when a valid one is there. Without a
 * `cacheDir` it is simply compiled.
 */
export function loadCachedBundle<T>(
  bundlePath: string,
  cacheDir: string | undefined,
): LoadedBundle<T> {
  // An ASCII file (the build makes it one) read as one-byte text: no UTF-8 decoding of it all.
  const bytes = readFileSync(bundlePath);
  const source = bytes.toString(isAscii?.(bytes) ? 'latin1' : 'utf8');
  const file = statSync(bundlePath);
  const key = shortHash(
    JSON.stringify([
      bundlePath,
      file.size,
      file.mtimeMs,
      file.ctimeMs,
      file.ino,
      file.dev,
      process.version,
      process.arch,
      process.execArgv,
      process.env.NODE_OPTIONS ?? '',
    ]),
  );
  const cachePath = cacheDir === undefined ? undefined : join(cacheDir, `hook-${key}.v8`);
  const cachedData = cachePath === undefined ? undefined : readCache(cachePath);
  // One line of wrapper before the source's first line: line numbers in stack traces still hold.
  const wrapped = `(function (exports, require, module, __filename, __dirname, __engramBundleUrl) {${source}\n})`;
  const script = new Script(wrapped, {
    filename: bundlePath,
    ...(cachedData !== undefined ? { cachedData } : {}),
  });
  const fn = script.runInThisContext() as (...args: unknown[]) => void;
  const module = { exports: {} as T };
  fn.call(
    module.exports,
    module.exports,
    createRequire(bundlePath),
    module,
    bundlePath,
    dirname(bundlePath),
    pathToFileURL(bundlePath).href,
  );
  const fromCache = cachedData !== undefined && script.cachedDataRejected !== true;
  return {
    exports: module.exports,
    fromCache,
    saveCache() {
      if (fromCache || cacheDir === undefined || cachePath === undefined) return;
      try {
        writeCache(cacheDir, cachePath, script.createCachedData());
      } catch {
        // a read-only home, a full disk: the next run compiles from source again
      }
    },
  };
}
