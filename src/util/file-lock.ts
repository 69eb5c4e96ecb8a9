import { randomBytes } from 'node:crypto';
import { link, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { EngramError, errnoCode } from './errors.js';

export interface FileLockOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** A lock older than this is taken over even if its holder looks alive (default 30 s). */
  staleMs?: number;
}

/** True when a process with this PID exists (EPERM means it exists but is not ours). */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errnoCode(error) === 'EPERM';
  }
}

/**
 * Run `fn` while holding an exclusive lock file (O_EXCL create holding our PID).
 * A lock left by a killed process (dead PID, or older than `staleMs`) is removed and retried,
 * so a SIGKILL in the middle of a save never wedges later writers.
 */
export async function withFileLock<T>(
  lockPath: string,
  fn: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  let delay = 2;
  for (;;) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (error) {
      if (errnoCode(error) !== 'EEXIST') throw error;
      if (await isStale(lockPath, staleMs)) {
        await takeOverStale(lockPath, staleMs);
        continue;
      }
      if (Date.now() > deadline) {
        throw new EngramError('lock_timeout', `Timed out waiting for lock ${lockPath}`);
      }
      await sleep(delay + Math.random() * delay);
      delay = Math.min(delay * 2, 50);
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lockPath, { force: true });
  }
}

async function isStale(lockPath: string, staleMs: number): Promise<boolean> {
  try {
    const [content, info] = await Promise.all([readFile(lockPath, 'utf8'), stat(lockPath)]);
    const pid = Number.parseInt(content.trim(), 10);
    // An empty lock means its writer died between create and write; give it a moment first.
    if (!content.trim()) return Date.now() - info.mtimeMs > 1_000;
    if (pid !== process.pid && !isProcessAlive(pid)) return true;
    return Date.now() - info.mtimeMs > staleMs;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return false;
    throw error;
  }
}

/**
 * Remove a stale lock without racing another taker: move it aside atomically (only one process
 * can), re-check what was moved, and put it back if it turned out to be a fresh lock that another
 * process created after our staleness check.
 */
async function takeOverStale(lockPath: string, staleMs: number): Promise<void> {
  const aside = `${lockPath}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await rename(lockPath, aside);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return;
    throw error;
  }
  if (await isStale(aside, staleMs)) {
    await rm(aside, { force: true });
    return;
  }
  await link(aside, lockPath).catch(() => {});
  await rm(aside, { force: true });
}
