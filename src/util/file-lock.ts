import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { EngramError, errnoCode } from './errors.js';
import { fsCalls } from './fs-calls.js';

/*
 * The lock is a directory holding exactly one claim file, named after its holder:
 * `<pid>-<process start>-<host>-<random>`. Why this shape (see docs/durability.md):
 *
 * - Acquire = rename a private directory that already holds our claim onto the lock path. rename
 *   of a directory succeeds only when the target is missing or EMPTY, so it is an atomic
 *   compare-and-swap: after it, the lock directory holds our claim and nothing else.
 * - Takeover never renames or deletes "whatever is at the lock path" (the old lock's flaw: between
 *   reading a dead PID and moving the lock aside, the holder exits and a live process's lock gets
 *   moved). It unlinks ONE claim by its unique name, and only after proving that claim's holder
 *   dead (no such PID, or a PID reused by a process that started later). A live holder's claim has
 *   another name, so the unlink cannot touch it. An empty lock directory is a free lock.
 * - Nothing is judged by age: a slow live holder (a 30 MB body on a loaded disk) is never taken
 *   over. A claim from another host cannot be judged and is waited for.
 */

export interface FileLockOptions {
  /**
   * Give up when one holder has kept the lock this long (default 10 s). A lock that keeps changing
   * hands is progress, not a hang: each new holder starts the wait again, up to
   * `LOCK_QUEUE_FACTOR` times this in all, so a crowd of writers on a loaded machine does not
   * time out behind one another.
   */
  timeoutMs?: number;
  /**
   * Only for a lock FILE left by an older engram (a PID in a plain file): taken over when its PID
   * is dead or it is older than this (default 30 s). Current locks are never judged by age.
   */
  staleMs?: number;
  /**
   * `fn` never takes this lock again: skip the bookkeeping that makes the lock re-entrant. That
   * bookkeeping is an `AsyncLocalStorage`, whose first `run` turns on async hooks for the rest of
   * the process: every later promise then pays for them (a thousand awaits took 5 ms instead of
   * 0.2 ms in a fresh Node 20 process). The header cache's lock, the only lock a prompt's recall
   * takes, is a leaf. A call on a lock its own call chain already holds still just runs.
   */
  leaf?: boolean;
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

/** Process start time in clock ticks since boot (Linux), so a reused PID is told apart. */
function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22, counted after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19];
  } catch {
    return undefined;
  }
}

const HOST = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);
const OWN_START = processStart(process.pid) ?? 'x';

export interface LockClaim {
  name: string;
  pid: number;
  /** Start time of the holder process, `x` when the platform does not say. */
  start: string;
  host: string;
}

/** A claim name for `pid` on this host (the lock's own format; tests and tools build them too). */
export function claimName(
  pid: number,
  start: string = pid === process.pid ? OWN_START : 'x',
): string {
  return `${pid}-${start}-${HOST}-${randomBytes(6).toString('hex')}`;
}

const CLAIM_RE = /^(\d+)-([0-9x]+)-([0-9a-f]{8})-[0-9a-f]+$/;

export function parseClaim(name: string): LockClaim | undefined {
  const m = CLAIM_RE.exec(name);
  if (!m) return undefined;
  return { name, pid: Number(m[1]), start: m[2] ?? 'x', host: m[3] ?? '' };
}

/**
 * 'dead' only with proof: same host and no process with that PID, or one that started at another
 * time than the claim's holder. Everything else ('alive', 'unknown') is waited for.
 */
export function claimHolderState(claim: LockClaim): 'alive' | 'dead' | 'unknown' {
  if (claim.host !== HOST) return 'unknown';
  if (!isProcessAlive(claim.pid)) return 'dead';
  if (claim.start === 'x') return 'alive';
  const start = processStart(claim.pid);
  return start !== undefined && start !== claim.start ? 'dead' : 'alive';
}

/** Lock paths this async context already holds: a nested `withFileLock` on one of them just runs. */
const held = new AsyncLocalStorage<ReadonlySet<string>>();

/**
 * Run `fn` while holding the cross-process lock at `lockPath` (a directory; see above). A lock
 * whose holder was killed is taken over as soon as its death is proven, so a SIGKILL in the middle
 * of a save never wedges later writers, and a live holder is never displaced. Re-entrant within
 * one async call chain.
 */
export async function withFileLock<T>(
  lockPath: string,
  fn: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const key = resolve(lockPath);
  const outer = held.getStore();
  if (outer?.has(key)) return fn();
  const claim = await acquire(lockPath, options);
  try {
    return options.leaf ? await fn() : await held.run(new Set([...(outer ?? []), key]), fn);
  } finally {
    await release(lockPath, claim);
  }
}

/** Staging directories of acquirers (normally gone within milliseconds). */
export const STAGING_SUFFIX = '.acquiring';

/** How many times `timeoutMs` a waiter may spend in all while the lock keeps changing hands. */
export const LOCK_QUEUE_FACTOR = 6;

export interface LockWait {
  /** The claims seen in the lock last time, sorted and joined. */
  holders: string;
  /** When the waiter gives up unless the lock changes hands first. */
  deadline: number;
}

/**
 * The waiter's deadline after a look at the lock: another holder than last time means the queue
 * moves, so the wait for this one starts now (never past `LOCK_QUEUE_FACTOR × timeoutMs` from the
 * start); the same holder keeps the deadline. Pure.
 */
export function nextLockWait(
  wait: LockWait,
  claims: readonly string[],
  at: { now: number; started: number; timeoutMs: number },
): LockWait {
  const holders = [...claims].sort().join(',');
  if (holders === wait.holders) return wait;
  const overall = at.started + at.timeoutMs * LOCK_QUEUE_FACTOR;
  return { holders, deadline: Math.min(at.now + at.timeoutMs, overall) };
}

async function acquire(lockPath: string, options: FileLockOptions): Promise<string> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const started = Date.now();
  let wait: LockWait = { holders: '', deadline: started + timeoutMs };
  const claim = claimName(process.pid);
  const staging = `${lockPath}.${claim}${STAGING_SUFFIX}`;
  await fsCalls().mkdir(staging, { mode: 0o700 });
  try {
    await fsCalls().writeFile(join(staging, claim), holderNote(), { mode: 0o600 });
    let delay = 2;
    for (;;) {
      try {
        await fsCalls().rename(staging, lockPath);
        await verifyOnlyClaim(lockPath, claim);
        return claim;
      } catch (error) {
        const code = errnoCode(error);
        if (code === 'ENOTDIR') {
          if (await clearLegacyLockFile(lockPath, options.staleMs ?? 30_000)) continue;
        } else if (code !== 'ENOTEMPTY' && code !== 'EEXIST') {
          throw error;
        } else if ((await clearDeadClaims(lockPath)) > 0) {
          continue;
        }
      }
      const now = Date.now();
      wait = nextLockWait(wait, await readLockClaims(lockPath), { now, started, timeoutMs });
      if (now > wait.deadline) {
        throw new EngramError(
          'lock_timeout',
          `Timed out after ${now - started} ms waiting for lock ${lockPath} (${await describeHolder(lockPath)}); nothing was written.`,
        );
      }
      await sleep(delay + Math.random() * delay);
      delay = Math.min(delay * 2, 50);
    }
  } catch (error) {
    await fsCalls().rm(staging, { recursive: true, force: true });
    throw error;
  }
}

function holderNote(): string {
  return `${JSON.stringify({ pid: process.pid, host: hostname(), argv: process.argv.slice(1, 3), at: new Date().toISOString() })}\n`;
}

/** The identity check after acquisition: the lock directory holds our claim and nothing else. */
async function verifyOnlyClaim(lockPath: string, claim: string): Promise<void> {
  const names = await fsCalls().readdir(lockPath);
  if (names.length !== 1 || names[0] !== claim) {
    throw new EngramError(
      'io_error',
      `Lock ${lockPath} does not hold our claim alone after acquiring it (${names.join(', ')}); the filesystem does not give atomic directory renames.`,
    );
  }
}

async function release(lockPath: string, claim: string): Promise<void> {
  await fsCalls()
    .unlink(join(lockPath, claim))
    .catch(() => {});
  // Empty means free already; removing it is tidiness, and fails harmlessly if re-taken.
  await fsCalls()
    .rmdir(lockPath)
    .catch(() => {});
}

/** Holders of the lock at `lockPath` as claims (the names found in the lock directory). */
export async function readLockClaims(lockPath: string): Promise<string[]> {
  try {
    return await fsCalls().readdir(lockPath);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw error;
  }
}

/** Remove claims whose holders are proven dead; returns how many went. */
export async function clearDeadClaims(lockPath: string): Promise<number> {
  let cleared = 0;
  for (const name of await readLockClaims(lockPath)) {
    const claim = parseClaim(name);
    if (!claim || claimHolderState(claim) !== 'dead') continue;
    // By its unique name: if the lock changed hands meanwhile, this claim is simply not there.
    await fsCalls()
      .unlink(join(lockPath, name))
      .then(
        () => cleared++,
        () => {},
      );
  }
  if (cleared > 0)
    await fsCalls()
      .rmdir(lockPath)
      .catch(() => {});
  return cleared;
}

/**
 * A lock FILE at the path is an older engram's lock (its PID as text). Judged by the old rule;
 * only met once, right after an upgrade, while no older engram writes any more.
 */
async function clearLegacyLockFile(lockPath: string, staleMs: number): Promise<boolean> {
  try {
    const [text, info] = await Promise.all([
      fsCalls().readFile(lockPath, 'utf8'),
      fsCalls().stat(lockPath),
    ]);
    if (!info.isFile()) return false;
    const pid = Number.parseInt(text.trim(), 10);
    const dead = !isProcessAlive(pid) || Date.now() - info.mtimeMs > staleMs;
    if (!dead) return false;
    await fsCalls().unlink(lockPath);
    return true;
  } catch (error) {
    return errnoCode(error) === 'ENOENT';
  }
}

async function describeHolder(lockPath: string): Promise<string> {
  const names = await readLockClaims(lockPath).catch(() => []);
  const claim = names.map(parseClaim).find((c) => c !== undefined);
  if (!claim) return names.length ? `held by ${names.join(', ')}` : 'held by a legacy lock file';
  const state = claimHolderState(claim);
  if (state === 'unknown') {
    return `held by PID ${claim.pid} on another host; if that process is gone, remove ${lockPath}`;
  }
  return `held by PID ${claim.pid}, still running`;
}

/** Leftover staging directories beside a lock (acquirers killed before their rename). */
export async function lockLeftovers(lockPath: string): Promise<string[]> {
  const dir = dirname(lockPath);
  const prefix = `${basename(lockPath)}.`;
  const names = await fsCalls()
    .readdir(dir)
    .catch(() => [] as string[]);
  return names.filter((n) => {
    if (!n.startsWith(prefix) || !n.endsWith(STAGING_SUFFIX)) return false;
    const claim = parseClaim(n.slice(prefix.length, -STAGING_SUFFIX.length));
    return claim !== undefined && claimHolderState(claim) === 'dead';
  });
}
