import { randomBytes } from 'node:crypto';
import { link, mkdir, readdir, readFile, rename, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../util/atomic-write.js';
import { type Clock, systemClock } from '../util/clock.js';
import { EngramError, errnoCode, isEngramError } from '../util/errors.js';
import { isProcessAlive, withFileLock } from '../util/file-lock.js';
import { DEFAULT_DREAM_CONFIG, decideLock, type GateDecision, type LockState } from './gates.js';

/**
 * One file, two meanings: its content is the PID of the process consolidating right now (empty
 * when nobody is), its mtime is when the last consolidation finished. An advisory lock would lose
 * the timestamp when its holder exits; this keeps it on disk for the next session's time gate.
 */
export const CONSOLIDATION_LOCK_FILE = '.consolidate-lock';

export function consolidationLockPath(memoryDir: string): string {
  return join(memoryDir, CONSOLIDATION_LOCK_FILE);
}

/** The time of the last consolidation: the lock's mtime, 0 when there never was one. One stat. */
export async function readLastConsolidatedAt(memoryDir: string): Promise<number> {
  try {
    return (await stat(consolidationLockPath(memoryDir))).mtimeMs;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return 0;
    throw error;
  }
}

export async function readLockState(memoryDir: string): Promise<LockState> {
  const path = consolidationLockPath(memoryDir);
  try {
    const [info, text] = await Promise.all([stat(path), readFile(path, 'utf8')]);
    return { exists: true, mtimeMs: info.mtimeMs, holderPid: parsePid(text) };
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') {
      return { exists: false, mtimeMs: 0, holderPid: undefined };
    }
    throw error;
  }
}

function parsePid(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) return undefined;
  const pid = Number.parseInt(trimmed, 10);
  return pid > 0 ? pid : undefined;
}

export interface LockOptions {
  /** Our PID (default `process.pid`). */
  pid?: number;
  isProcessAlive?: (pid: number) => boolean;
  /** Clock for the mtime we write (default the system clock). */
  clock?: Clock;
  staleMs?: number;
  /** The mtime the time gate saw; the lock is refused if it changed since (see `decideLock`). */
  expectedMtimeMs?: number;
}

/** A held lock: what is needed to finish it or roll it back. */
export interface HeldLock {
  memoryDir: string;
  pid: number;
  /** The lock's mtime before we took it; undefined when there was no lock file. */
  priorMtimeMs: number | undefined;
  /** A hard link to the prior lock file's inode, so rollback restores its mtime to the nanosecond. */
  priorLink: string | undefined;
}

export type LockAcquisition =
  | { acquired: true; lock: HeldLock; decision: GateDecision }
  | { acquired: false; reason: string };

/**
 * Take the consolidation lock: refuse a fresh lock whose holder is alive, otherwise write our PID
 * and read it back (another writer may have won). The check-and-write runs under a short mutex so
 * two processes cannot both see a free lock; the read-back still guards hosts without it.
 */
export async function tryAcquireConsolidationLock(
  memoryDir: string,
  options: LockOptions = {},
): Promise<LockAcquisition> {
  const pid = options.pid ?? process.pid;
  const clock = options.clock ?? systemClock;
  const alive = options.isProcessAlive ?? isProcessAlive;
  const path = consolidationLockPath(memoryDir);
  await mkdir(memoryDir, { recursive: true, mode: 0o700 });
  try {
    return await withFileLock(
      `${path}.acquire`,
      async (): Promise<LockAcquisition> => {
        const state = await readLockState(memoryDir);
        const decision = decideLock({
          state,
          nowMs: clock.now(),
          staleMs: options.staleMs ?? DEFAULT_DREAM_CONFIG.lockStaleMs,
          holderAlive: state.holderPid !== undefined && alive(state.holderPid),
          expectedMtimeMs: options.expectedMtimeMs,
        });
        if (decision.kind === 'stop') return { acquired: false, reason: decision.reason };
        const priorLink = state.exists ? await keepPriorInode(path, pid) : undefined;
        await writeFileAtomic(path, String(pid), { mode: 0o600 });
        await setMtime(path, clock.now());
        if (parsePid(await readFile(path, 'utf8')) !== pid) {
          if (priorLink) await rm(priorLink, { force: true });
          return { acquired: false, reason: 'another process took the lock at the same moment' };
        }
        const priorMtimeMs = state.exists ? state.mtimeMs : undefined;
        await sweepDeadPriorLinks(memoryDir, alive);
        return { acquired: true, lock: { memoryDir, pid, priorMtimeMs, priorLink }, decision };
      },
      { timeoutMs: 5_000 },
    );
  } catch (error) {
    if (isEngramError(error, 'lock_timeout')) {
      return { acquired: false, reason: 'timed out waiting for another process checking the lock' };
    }
    throw error;
  }
}

const PRIOR_PREFIX = `${CONSOLIDATION_LOCK_FILE}.prior-`;

/** Prior-inode links left by holders that were killed mid-run (their PID is in the name). */
async function sweepDeadPriorLinks(memoryDir: string, alive: (pid: number) => boolean) {
  for (const name of await readdir(memoryDir)) {
    if (!name.startsWith(PRIOR_PREFIX)) continue;
    const pid = Number.parseInt(name.slice(PRIOR_PREFIX.length), 10);
    if (!alive(pid)) await rm(join(memoryDir, name), { force: true });
  }
}

/** Link the current lock file aside; writing ours by rename leaves that inode (and mtime) intact. */
async function keepPriorInode(path: string, pid: number): Promise<string | undefined> {
  const aside = `${path}.prior-${pid}-${randomBytes(4).toString('hex')}`; // see PRIOR_PREFIX
  try {
    await link(path, aside);
    return aside;
  } catch (error) {
    // Filesystems without hard links fall back to utimes, which is exact to the microsecond.
    if (['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EXDEV', 'EMLINK'].includes(errnoCode(error) ?? ''))
      return undefined;
    throw error;
  }
}

/**
 * A successful run: the lock records now as the last consolidation and names no holder, so a
 * later `--force` in the same long-lived process is not mistaken for a run in progress.
 */
export async function completeConsolidationLock(
  lock: HeldLock,
  options: { clock?: Clock } = {},
): Promise<void> {
  const path = consolidationLockPath(lock.memoryDir);
  await writeFileAtomic(path, '', { mode: 0o600 });
  await setMtime(path, (options.clock ?? systemClock).now());
  if (lock.priorLink) await rm(lock.priorLink, { force: true });
}

/**
 * A failed or aborted run: put the lock back as it was, so the time gate stays open and the next
 * session retries. No prior lock → remove ours.
 */
export async function rollbackConsolidationLock(lock: HeldLock): Promise<void> {
  const path = consolidationLockPath(lock.memoryDir);
  if (lock.priorMtimeMs === undefined) {
    await rm(path, { force: true });
    return;
  }
  if (lock.priorLink) {
    try {
      await rename(lock.priorLink, path);
      return;
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw error;
    }
  }
  await writeFileAtomic(path, '', { mode: 0o600 });
  await setMtime(path, lock.priorMtimeMs);
}

/**
 * utimes goes through a double and libuv truncates to whole microseconds, so a value a hair below
 * the intended microsecond would land one microsecond early; aiming at its middle lands exactly.
 */
async function setMtime(path: string, ms: number): Promise<void> {
  const micros = Math.round(ms * 1000);
  const seconds = (micros + 0.5) / 1e6;
  try {
    await utimes(path, seconds, seconds);
  } catch (error) {
    throw new EngramError('io_error', `Cannot set the time of ${path}: ${errnoCode(error)}`, {
      cause: error,
    });
  }
}
