/**
 * One notes update at a time per session, visible to every process: the running update holds a
 * record file (`update-running.json`: start time and PID) created with O_EXCL. Compaction waits for
 * it briefly (timeout: a slow update must not stall the session) and not at all once it is old
 * (staleness: a hung or killed update leaves a record nobody will ever clear).
 */

import { readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { type Clock, systemClock } from '../util/clock.js';
import { errnoCode } from '../util/errors.js';
import { isProcessAlive } from '../util/file-lock.js';

export interface RunningRecord {
  startedAt: number;
  pid: number;
  host: string;
}

export const WAIT_TIMEOUT_MS = 15_000;
export const STALE_AFTER_MS = 60_000;

export async function readRunningRecord(path: string): Promise<RunningRecord | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return undefined;
    throw error;
  }
  try {
    const data = JSON.parse(text) as { startedAt?: unknown; pid?: unknown; host?: unknown };
    // Written by engram as epoch milliseconds; an ISO date (a hand-made or foreign record) is read too.
    const startedAt =
      typeof data.startedAt === 'number'
        ? data.startedAt
        : typeof data.startedAt === 'string'
          ? Date.parse(data.startedAt)
          : Number.NaN;
    if (Number.isFinite(startedAt)) {
      return {
        startedAt,
        pid: Number(data.pid) || 0,
        host: String(data.host ?? ''),
      };
    }
  } catch {
    // Half-written by a writer that died mid-write: treat as ancient so nobody waits on it.
  }
  return { startedAt: 0, pid: 0, host: '' };
}

/** A record whose process is gone on this host can never be cleared by its owner. */
function ownerIsDead(record: RunningRecord): boolean {
  return record.host === hostname() && record.pid > 0 && !isProcessAlive(record.pid);
}

export type WaitDecision =
  | { kind: 'proceed'; reason: 'none_running' | 'stale' | 'timeout' | 'owner_dead' }
  | { kind: 'wait'; pollMs: number };

/** Pure: keep waiting for a running update or go ahead. */
export function decideWait(input: {
  record: RunningRecord | undefined;
  now: number;
  waitStartedAt: number;
  timeoutMs?: number;
  staleMs?: number;
  pollMs?: number;
  ownerDead?: boolean;
}): WaitDecision {
  if (!input.record) return { kind: 'proceed', reason: 'none_running' };
  if (input.ownerDead) return { kind: 'proceed', reason: 'owner_dead' };
  if (input.now - input.record.startedAt > (input.staleMs ?? STALE_AFTER_MS)) {
    return { kind: 'proceed', reason: 'stale' };
  }
  const left = input.waitStartedAt + (input.timeoutMs ?? WAIT_TIMEOUT_MS) - input.now;
  if (left <= 0) return { kind: 'proceed', reason: 'timeout' };
  return { kind: 'wait', pollMs: Math.min(input.pollMs ?? 1_000, left) };
}

export interface WaitForNotesOptions {
  clock?: Clock;
  timeoutMs?: number;
  staleMs?: number;
  pollMs?: number;
}

export interface WaitResult {
  /** Why waiting ended: nothing (or nothing anymore) running, stale record, dead owner, or timeout. */
  outcome: 'none_running' | 'finished' | 'stale' | 'timeout' | 'owner_dead';
  waitedMs: number;
}

/**
 * Wait for a running notes update (its record file at `runningPath`) before compacting: at most
 * `timeoutMs` (15 s), and not at all when the update started more than `staleMs` (60 s) ago.
 */
export async function waitForNotes(
  runningPath: string,
  options: WaitForNotesOptions = {},
): Promise<WaitResult> {
  const clock = options.clock ?? systemClock;
  const waitStartedAt = clock.now();
  let waited = false;
  for (;;) {
    const record = await readRunningRecord(runningPath);
    const now = clock.now();
    const decision = decideWait({
      record,
      now,
      waitStartedAt,
      ownerDead: record ? ownerIsDead(record) : false,
      ...pick(options),
    });
    if (decision.kind === 'proceed') {
      const outcome = decision.reason === 'none_running' && waited ? 'finished' : decision.reason;
      return { outcome, waitedMs: now - waitStartedAt };
    }
    waited = true;
    await clock.sleep(decision.pollMs);
  }
}

function pick(o: WaitForNotesOptions) {
  return { timeoutMs: o.timeoutMs, staleMs: o.staleMs, pollMs: o.pollMs };
}

export type StartResult =
  | { started: true; release: () => Promise<void> }
  | { started: false; running: RunningRecord };

/**
 * Claim the running slot. A fresh record held by a live process means another update is running:
 * report it instead of waiting (the next turn will try again). A stale or orphaned one is taken over.
 */
export async function tryStartUpdate(
  runningPath: string,
  options: { clock?: Clock; staleMs?: number } = {},
): Promise<StartResult> {
  const now = (options.clock ?? systemClock).now();
  const record: RunningRecord = { startedAt: now, pid: process.pid, host: hostname() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(runningPath, JSON.stringify(record), { flag: 'wx', mode: 0o600 });
      return {
        started: true,
        release: async () => {
          // Only remove our own record: a taker may have replaced a record it judged stale.
          const current = await readRunningRecord(runningPath);
          if (current?.pid === record.pid && current.startedAt === record.startedAt) {
            await rm(runningPath, { force: true });
          }
        },
      };
    } catch (error) {
      if (errnoCode(error) !== 'EEXIST') throw error;
      const existing = await readRunningRecord(runningPath);
      if (!existing) continue;
      const stale = now - existing.startedAt > (options.staleMs ?? STALE_AFTER_MS);
      if (!stale && !ownerIsDead(existing)) return { started: false, running: existing };
      await rm(runningPath, { force: true });
    }
  }
  const running = (await readRunningRecord(runningPath)) ?? record;
  return { started: false, running };
}
