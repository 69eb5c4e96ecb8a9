import { randomBytes } from 'node:crypto';
import { link, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface AtomicWriteOptions {
  /** File mode for a newly created file (default 0o644); a rewritten file keeps its own mode. */
  mode?: number;
  /**
   * Create only: fail with EEXIST when the file is there. The finished temp file is
   * hard-linked into place (atomic, never replaces), so a kill leaves no file or the whole file,
   * never a half one under the real name that would then block a retry.
   */
  exclusive?: boolean;
}

/** Prefix of temp files; scans skip them and `audit` reports leftovers from crashed writers. */
export const TEMP_PREFIX = '.engram-tmp-';

/** The PID of the writer that made a temp file (`<prefix><name>.<pid>.<hex>`), if it says. */
export function tempFileWriterPid(name: string): number | undefined {
  if (!name.startsWith(TEMP_PREFIX)) return undefined;
  const m = /\.(\d+)\.[0-9a-f]+$/.exec(name);
  return m ? Number(m[1]) : undefined;
}

/**
 * Write a file so that a crash leaves either the old or the new content, never a half file:
 * temp file in the same directory, fsync, rename over the target, then fsync the directory so
 * the rename itself survives a power loss.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const dir = dirname(path);
  const temp = join(
    dir,
    `${TEMP_PREFIX}${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}`,
  );
  // A rewrite keeps the mode the person gave the file (a private index stays private).
  const existingMode = options.exclusive
    ? undefined
    : await stat(path).then(
        (info) => info.mode & 0o777,
        () => undefined,
      );
  const mode = existingMode ?? options.mode ?? 0o644;
  const handle = await open(temp, 'wx', mode);
  try {
    await handle.writeFile(data);
    // open()'s mode is filtered by the umask; set it exactly.
    await handle.chmod(mode);
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => {});
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  try {
    if (options.exclusive) {
      await link(temp, path);
      await rm(temp, { force: true });
    } else {
      await rename(temp, path);
    }
  } catch (error) {
    await rm(temp, { force: true });
    throw error; // EEXIST for an exclusive create of a file that is there
  }
  await fsyncDir(dir);
}

/** fsync a directory so renames and unlinks inside it are durable. Some filesystems refuse: ignore. */
export async function fsyncDir(dir: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // Directory fsync is unsupported on some platforms (e.g. Windows); the rename is still atomic.
  } finally {
    await handle?.close().catch(() => {});
  }
}
