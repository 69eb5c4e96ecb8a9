/**
 * Loading the hook bundle with V8's code cache. A hook is a new process per prompt, and compiling
 * the hook's code was a large share of its time; Node 20 has no module compile cache, so the hook
 * bundle (`dist/cli/bundle/hook.cjs`, one CommonJS file) is compiled as a `vm.Script` with the
 * bytecode a previous run saved (`cachedData`), as v8-compile-cache does.
 *
 * The cache is a file engram owns in `$ENGRAM_HOME/cache`, never a source of truth:
 * - its name carries a hash of the bundle's text, the Node version, the architecture and the
 *   options V8 was started with, so another engram build or another Node never reads it;
 * - its content is checked against a checksum before V8 sees it (V8 itself only checks the
 *   source's length, its version and its flags), so a torn or corrupt file is ignored;
 * - V8 may still reject it (`cachedDataRejected`): the code is then compiled from source, exactly
 *   as without a cache, and the file is written again.
 * The bytecode is taken after the hook has run, so it holds the functions the hook used.
 */
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

const MAGIC = Buffer.from('engram-code-cache 1\n');
const CHECKSUM_BYTES = 32;
/** Code caches kept per cache directory (several engram builds may be in use at once). */
const KEPT = 4;

export interface LoadedBundle<T> {
  exports: T;
  /** Whether V8 used a saved cache for this load. */
  fromCache: boolean;
  /** Save the code cache when there was none (or V8 rejected it). Best effort, never throws. */
  saveCache(): void;
}

function sha256(...parts: (string | Buffer)[]): Buffer {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\0');
  return hash.digest();
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
  return sha256(payload).equals(sum) ? payload : undefined;
}

/** A cache file's bytes for V8's `data`: a marker, a checksum, the data. */
export function codeCacheFileBytes(data: Buffer): Buffer {
  return Buffer.concat([MAGIC, sha256(data), data]);
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
  const source = readFileSync(bundlePath, 'utf8');
  const key = sha256(
    source,
    process.version,
    process.arch,
    process.execArgv.join(' '),
    process.env.NODE_OPTIONS ?? '',
  )
    .toString('hex')
    .slice(0, 32);
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
