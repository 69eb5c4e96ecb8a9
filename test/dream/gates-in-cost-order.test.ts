import { readFile, stat } from 'node:fs/promises';
import * as root from 'engram';
import { CONSOLIDATION_LOCK_FILE, createDreamer, maybeDream } from 'engram/dream';
import { scriptedModel } from 'engram/test';
import { describe, expect, it } from 'vitest';
import { countingLister, DEAD_PID, fresh, HOUR, lockOf, setLock, startServer } from './support.js';

describe('public names', () => {
  it('maybeDream is a function from engram/dream and the root; the lock file is .consolidate-lock', () => {
    expect(typeof maybeDream).toBe('function');
    expect(typeof createDreamer).toBe('function');
    expect(typeof (root as Record<string, unknown>).maybeDream).toBe('function');
    expect(CONSOLIDATION_LOCK_FILE).toBe('.consolidate-lock');
  });
});

describe('gates in cost order', () => {
  it('with the time gate closed, no directory is scanned', async () => {
    const server = await startServer();
    const memoryDir = await fresh('mem');
    await setLock(memoryDir, '', Date.now() - 2 * HOUR);
    const sessions = countingLister(9);
    const out = await maybeDream({ memoryDir, model: scriptedModel(server), sessions });
    expect(out.kind).toBe('stopped');
    expect(out.kind === 'stopped' && out.gate).toBe('time');
    expect(sessions.calls).toBe(0);
    expect(server.requests.length).toBe(0);
  });

  it('time open, too few sessions: a second call within 10 minutes does not scan again', async () => {
    const server = await startServer();
    const memoryDir = await fresh('mem');
    let now = Date.now();
    const sessions = countingLister(3);
    const ctx = { memoryDir, model: scriptedModel(server), sessions, now: () => now };
    const first = await maybeDream(ctx);
    expect(first.kind === 'stopped' && first.gate).toBe('sessions');
    expect(sessions.calls).toBe(1);
    now += 9 * 60_000;
    const second = await maybeDream(ctx);
    expect(second.kind === 'stopped' && second.gate).toBe('throttle');
    expect(sessions.calls).toBe(1);
    now += 2 * 60_000;
    await maybeDream(ctx);
    expect(sessions.calls).toBe(2);
    // The same through one dreamer instance.
    const own = countingLister(3);
    const dreamer = createDreamer({
      memoryDir: await fresh('mem'),
      model: scriptedModel(server),
      sessions: own,
    });
    await dreamer.maybeDream();
    await dreamer.maybeDream();
    expect(own.calls).toBe(1);
    expect(server.requests.length).toBe(0);
  });

  it('sessions may be a plain function returning ids; the current one is excluded', async () => {
    const server = await startServer();
    const memoryDir = await fresh('mem');
    let scans = 0;
    const list = async () => {
      scans++;
      return ['s-a', 's-b', 's-c', 's-d', 's-e'];
    };
    const few = await maybeDream({
      memoryDir,
      model: scriptedModel(server),
      sessions: list,
      currentSessionId: 's-e',
    });
    expect(few.kind === 'stopped' && few.gate).toBe('sessions');
    const enough = await maybeDream({
      memoryDir: await fresh('mem'),
      model: scriptedModel(server),
      sessions: list,
      currentSessionId: 'another',
    });
    expect(enough.kind).toBe('ran');
    expect(scans).toBe(2);
    expect(JSON.stringify(server.requests[0]?.body)).toContain('s-d');
  });

  it('the current session is not counted', async () => {
    const server = await startServer();
    const memoryDir = await fresh('mem');
    const out = await maybeDream({
      memoryDir,
      model: scriptedModel(server),
      sessions: countingLister(5),
      currentSessionId: 'sess-0',
    });
    expect(out.kind === 'stopped' && out.gate).toBe('sessions');
  });

  it('enough sessions but a live foreign PID holding a fresh lock: no run', async () => {
    const server = await startServer();
    const memoryDir = await fresh('mem');
    // Our parent (the test runner) is alive and is not the process that consolidates.
    await setLock(memoryDir, String(process.ppid), Date.now() - 5 * 60_000);
    const out = await maybeDream({
      memoryDir,
      model: scriptedModel(server),
      sessions: countingLister(8),
      config: { minHours: 0 },
    });
    expect(out.kind === 'stopped' && out.gate).toBe('lock');
    expect(server.requests.length).toBe(0);
    expect((await readFile(lockOf(memoryDir), 'utf8')).trim()).toBe(String(process.ppid));
  });

  it('a dead holder PID, or a lock over 1 h old, is taken over', async () => {
    const server = await startServer();
    const dead = await fresh('mem');
    await setLock(dead, String(DEAD_PID), Date.now() - 5 * 60_000);
    const a = await maybeDream({
      memoryDir: dead,
      model: scriptedModel(server),
      sessions: countingLister(6),
      force: true,
    });
    expect(a.kind).toBe('ran');
    expect(a.kind === 'ran' && a.lock).toBe('committed');

    const stale = await fresh('mem');
    await setLock(stale, String(process.ppid), Date.now() - 30 * HOUR);
    const before = Date.now();
    const b = await maybeDream({
      memoryDir: stale,
      model: scriptedModel(server),
      sessions: countingLister(6),
    });
    expect(b.kind).toBe('ran');
    expect((await stat(lockOf(stale))).mtimeMs).toBeGreaterThanOrEqual(before - 1_000);
  });

  it('--force semantics in the library: time and session gates skipped, never the lock', async () => {
    const server = await startServer();
    const memoryDir = await fresh('mem');
    await setLock(memoryDir, String(process.ppid), Date.now() - 60_000);
    const out = await maybeDream({
      memoryDir,
      model: scriptedModel(server),
      sessions: countingLister(0),
      force: true,
    });
    expect(out.kind === 'stopped' && out.gate).toBe('lock');
  });
});
