import { spawn } from 'node:child_process';
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CONSOLIDATION_LOCK_FILE,
  completeConsolidationLock,
  consolidationLockPath,
  readLastConsolidatedAt,
  readLockState,
  rollbackConsolidationLock,
  tryAcquireConsolidationLock,
} from './lock.js';

const HOUR = 3_600_000;
const fresh = () => mkdtempSync(join(tmpdir(), 'engram-dream-lock-'));
const mtimeNs = (path: string) => statSync(path, { bigint: true }).mtimeNs;

/** A real process that stays alive until the tests end: a foreign live holder. */
const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], {
  stdio: 'ignore',
});
afterAll(() => {
  sleeper.kill();
});

/** The PID of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

describe('consolidation lock', () => {
  it('no lock: the last consolidation is 0; acquiring writes our PID with mtime now', async () => {
    const dir = fresh();
    expect(await readLastConsolidatedAt(dir)).toBe(0);
    const before = Date.now();
    const got = await tryAcquireConsolidationLock(dir);
    expect(got.acquired).toBe(true);
    expect(readFileSync(consolidationLockPath(dir), 'utf8')).toBe(String(process.pid));
    const mtime = await readLastConsolidatedAt(dir);
    expect(mtime).toBeGreaterThanOrEqual(before - 1);
    expect(mtime).toBeLessThanOrEqual(Date.now() + 1);
  });

  it('rollback with no prior lock removes the file, so the next session retries', async () => {
    const dir = fresh();
    const got = await tryAcquireConsolidationLock(dir);
    if (!got.acquired) throw new Error(got.reason);
    await rollbackConsolidationLock(got.lock);
    expect(readdirSync(dir)).toEqual([]);
    expect(await readLastConsolidatedAt(dir)).toBe(0);
  });

  it('rollback restores a prior mtime exactly, to the nanosecond, whatever its precision', async () => {
    for (const setUp of [
      // set by utimes (microseconds), as an earlier rollback or a tool would
      (path: string) => {
        writeFileSync(path, '');
        const old = new Date(Date.now() - 48 * HOUR - 123);
        utimesSync(path, old, old);
      },
      // set by a plain write (nanoseconds from the kernel clock), with a dead holder
      async (path: string) => writeFileSync(path, String(await deadPid())),
    ]) {
      const dir = fresh();
      const path = consolidationLockPath(dir);
      await setUp(path);
      const prior = mtimeNs(path);
      const priorMs = statSync(path).mtimeMs;
      const got = await tryAcquireConsolidationLock(dir);
      if (!got.acquired) throw new Error(got.reason);
      expect(got.lock.priorMtimeMs).toBe(priorMs);
      expect(mtimeNs(path)).not.toBe(prior);
      await rollbackConsolidationLock(got.lock);
      expect(mtimeNs(path)).toBe(prior);
      expect(statSync(path).mtimeMs).toBe(priorMs);
      expect(readdirSync(dir)).toEqual([CONSOLIDATION_LOCK_FILE]);
    }
  });

  it('without the kept inode, rollback falls back to utimes and is exact for a microsecond mtime', async () => {
    const dir = fresh();
    const path = consolidationLockPath(dir);
    writeFileSync(path, '');
    const old = new Date(Date.now() - 30 * HOUR);
    utimesSync(path, old, old);
    const prior = statSync(path).mtimeMs;
    const got = await tryAcquireConsolidationLock(dir);
    if (!got.acquired) throw new Error(got.reason);
    await rollbackConsolidationLock({ ...got.lock, priorLink: undefined });
    expect(statSync(path).mtimeMs).toBe(prior);
    expect(readFileSync(path, 'utf8')).toBe('');
  });

  it('success leaves mtime at now and names no holder', async () => {
    const dir = fresh();
    const path = consolidationLockPath(dir);
    writeFileSync(path, '');
    const old = new Date(Date.now() - 48 * HOUR);
    utimesSync(path, old, old);
    const before = Date.now();
    const got = await tryAcquireConsolidationLock(dir);
    if (!got.acquired) throw new Error(got.reason);
    await completeConsolidationLock(got.lock);
    expect(statSync(path).mtimeMs).toBeGreaterThanOrEqual(before - 1_000);
    expect(readFileSync(path, 'utf8')).toBe('');
    expect(readdirSync(dir)).toEqual([CONSOLIDATION_LOCK_FILE]);
    expect((await readLockState(dir)).holderPid).toBeUndefined();
  });

  it('a fresh lock held by a live foreign process is refused and left untouched', async () => {
    const dir = fresh();
    const path = consolidationLockPath(dir);
    writeFileSync(path, String(sleeper.pid));
    const before = mtimeNs(path);
    const got = await tryAcquireConsolidationLock(dir);
    expect(got).toMatchObject({
      acquired: false,
      reason: expect.stringMatching(new RegExp(`PID ${sleeper.pid}`)),
    });
    expect(mtimeNs(path)).toBe(before);
    expect(readFileSync(path, 'utf8')).toBe(String(sleeper.pid));
  });

  it('a lock whose holder died is taken over', async () => {
    const dir = fresh();
    writeFileSync(consolidationLockPath(dir), String(await deadPid()));
    const got = await tryAcquireConsolidationLock(dir);
    expect(got.acquired).toBe(true);
    expect(readFileSync(consolidationLockPath(dir), 'utf8')).toBe(String(process.pid));
  });

  it('acquiring sweeps prior-inode links left by holders killed mid-run, keeping live ones', async () => {
    const dir = fresh();
    const dead = `${CONSOLIDATION_LOCK_FILE}.prior-${await deadPid()}-0a0b0c0d`;
    const live = `${CONSOLIDATION_LOCK_FILE}.prior-${sleeper.pid}-0a0b0c0d`;
    writeFileSync(join(dir, dead), '');
    writeFileSync(join(dir, live), '');
    const got = await tryAcquireConsolidationLock(dir);
    expect(got.acquired).toBe(true);
    expect(readdirSync(dir).sort()).toEqual([CONSOLIDATION_LOCK_FILE, live].sort());
  });

  it('a lock over an hour old is taken over even if its holder is alive', async () => {
    const dir = fresh();
    const path = consolidationLockPath(dir);
    writeFileSync(path, String(sleeper.pid));
    const old = new Date(Date.now() - HOUR - 1000);
    utimesSync(path, old, old);
    const got = await tryAcquireConsolidationLock(dir);
    expect(got.acquired).toBe(true);
  });

  it('a lock that changed since the time gate read it is refused', async () => {
    const dir = fresh();
    const seen = await readLastConsolidatedAt(dir); // 0: no lock yet
    writeFileSync(consolidationLockPath(dir), ''); // another process finished a run meanwhile
    const got = await tryAcquireConsolidationLock(dir, { expectedMtimeMs: seen });
    expect(got).toMatchObject({
      acquired: false,
      reason: expect.stringMatching(/since this check began/),
    });
  });

  it('two acquirers in one process: exactly one wins', async () => {
    const dir = fresh();
    const results = await Promise.all([
      tryAcquireConsolidationLock(dir, { expectedMtimeMs: 0 }),
      tryAcquireConsolidationLock(dir, { expectedMtimeMs: 0 }),
    ]);
    expect(results.filter((r) => r.acquired)).toHaveLength(1);
  });
});
