import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../util/clock.js';
import { fakeClock } from './__fixtures__/clock.js';
import { decideWait, readRunningRecord, tryStartUpdate, waitForNotes } from './update-record.js';

let dir: string;
let running: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'engram-record-'));
  running = join(dir, 'update-running.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function markRunning(startedAt: number, pid = process.pid): void {
  writeFileSync(running, JSON.stringify({ startedAt, pid, host: hostname() }));
}

describe('waitForNotes', () => {
  it('returns at once when no update is running', async () => {
    const clock = fakeClock();
    expect(await waitForNotes(running, { clock })).toEqual({
      outcome: 'none_running',
      waitedMs: 0,
    });
    expect(clock.sleeps).toEqual([]);
  });

  it('an update marked running for 61 s is stale: no wait at all', async () => {
    const clock = fakeClock();
    markRunning(clock.now() - 61_000);
    expect(await waitForNotes(running, { clock })).toEqual({ outcome: 'stale', waitedMs: 0 });
    expect(clock.sleeps).toEqual([]);
  });

  it('an update running for 5 s that never ends: proceeds after 15 s, not later', async () => {
    const clock = fakeClock();
    markRunning(clock.now() - 5_000);
    const result = await waitForNotes(running, { clock });
    expect(result).toEqual({ outcome: 'timeout', waitedMs: 15_000 });
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBe(15_000);
  });

  it('an update that started 50 s ago: the staleness limit ends the wait before the timeout', async () => {
    const clock = fakeClock();
    markRunning(clock.now() - 50_000);
    const result = await waitForNotes(running, { clock });
    expect(result.outcome).toBe('stale');
    // Virtual time: the record turns 60 s old (stale) at the first poll after 10 s of waiting.
    expect(result.waitedMs).toBe(11_000);
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBe(11_000);
  });

  it('returns as soon as the running update finishes', async () => {
    const clock = fakeClock();
    markRunning(clock.now() - 1_000);
    clock.onSleep = () => {
      if (clock.sleeps.length === 3) rmSync(running);
    };
    expect(await waitForNotes(running, { clock })).toEqual({
      outcome: 'finished',
      waitedMs: 3_000,
    });
  });

  it('does not wait for a record whose process is dead (a real exited child)', async () => {
    const child = spawnSync(process.execPath, ['-e', '']);
    expect(child.pid).toBeGreaterThan(0);
    const clock = fakeClock();
    markRunning(clock.now() - 1_000, child.pid!);
    expect((await waitForNotes(running, { clock })).outcome).toBe('owner_dead');
  });

  it('real clock, bounded: a never-ending update releases the waiter after the timeout', async () => {
    markRunning(Date.now());
    const started = performance.now();
    const result = await waitForNotes(running, { timeoutMs: 200, pollMs: 25 });
    const elapsed = performance.now() - started;
    expect(result.outcome).toBe('timeout');
    // It did wait for the timeout; that it then returned at all is the test (vitest bounds a hang).
    expect(elapsed).toBeGreaterThanOrEqual(190);
  });

  it('decideWait is pure: never a poll longer than the time left', () => {
    const record = { startedAt: 0, pid: 1, host: 'h' };
    expect(decideWait({ record, now: 14_500, waitStartedAt: 0 })).toEqual({
      kind: 'wait',
      pollMs: 500,
    });
    expect(decideWait({ record, now: 15_000, waitStartedAt: 0 })).toEqual({
      kind: 'proceed',
      reason: 'timeout',
    });
    expect(decideWait({ record, now: 60_001, waitStartedAt: 60_000 })).toEqual({
      kind: 'proceed',
      reason: 'stale',
    });
    expect(decideWait({ record: undefined, now: 0, waitStartedAt: 0 })).toEqual({
      kind: 'proceed',
      reason: 'none_running',
    });
  });
});

describe('tryStartUpdate', () => {
  it('one update at a time: a second claim sees the first, release frees the slot', async () => {
    const first = await tryStartUpdate(running);
    expect(first.started).toBe(true);
    const second = await tryStartUpdate(running);
    expect(second).toMatchObject({ started: false, running: { pid: process.pid } });
    if (first.started) await first.release();
    expect(existsSync(running)).toBe(false);
    const third = await tryStartUpdate(running);
    expect(third.started).toBe(true);
  });

  it('takes over a stale record, and the old owner release does not remove the new record', async () => {
    const old = await tryStartUpdate(running, { clock: fixedClock(Date.now() - 61_000) });
    const before = Date.now();
    const fresh = await tryStartUpdate(running);
    expect(fresh.started).toBe(true);
    if (old.started) await old.release();
    // The record left is the new owner's (started at the claim), not the old 61 s-old one.
    expect((await readRunningRecord(running))?.startedAt).toBeGreaterThanOrEqual(before);
  });

  it('reads an ISO start time as well as epoch milliseconds', async () => {
    writeFileSync(running, JSON.stringify({ startedAt: '2026-03-14T09:00:00.000Z', pid: 1 }));
    expect((await readRunningRecord(running))?.startedAt).toBe(
      Date.parse('2026-03-14T09:00:00.000Z'),
    );
    writeFileSync(running, JSON.stringify({ startedAt: 'not a date' }));
    expect((await readRunningRecord(running))?.startedAt).toBe(0);
  });

  it('a half-written record is treated as ancient, never waited on', async () => {
    writeFileSync(running, '{"startedAt":');
    const clock = fakeClock();
    expect((await waitForNotes(running, { clock })).outcome).toBe('stale');
    expect((await tryStartUpdate(running)).started).toBe(true);
  });
});
