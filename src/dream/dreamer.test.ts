import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ScriptedModelServer,
  scriptedModel,
  startScriptedModelServer,
} from '../testing/index.js';
import { createDreamer, type DreamerOptions } from './dreamer.js';
import { fileScanThrottle } from './file-scan-throttle.js';
import type { SessionRef } from './gates.js';
import { consolidationLockPath } from './lock.js';
import { type SessionLister, transcriptDirectoryLister } from './sessions.js';

const HOUR = 3_600_000;
const MIN = 60_000;

let server: ScriptedModelServer;
beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await server.close();
});

/** A real process that stays alive during the tests: a foreign lock holder. */
const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], {
  stdio: 'ignore',
});
afterAll(() => {
  sleeper.kill();
});

/** A session lister over real transcript files that counts how often it is asked. */
function countingLister(dir: string): SessionLister & { calls: number } {
  const inner = transcriptDirectoryLister(dir);
  const lister = {
    calls: 0,
    listSessionsTouchedSince(since: number): Promise<SessionRef[]> {
      lister.calls++;
      return inner.listSessionsTouchedSince(since);
    },
  };
  return lister;
}

function setup(sessionCount: number) {
  const root = mkdtempSync(join(tmpdir(), 'engram-dreamer-'));
  const memoryDir = join(root, 'memory');
  const transcripts = join(root, 'transcripts');
  mkdirSync(memoryDir);
  mkdirSync(transcripts);
  writeFileSync(join(memoryDir, 'MEMORY.md'), '');
  for (let i = 0; i < sessionCount; i++)
    writeFileSync(join(transcripts, `session-${i}.jsonl`), '{"type":"user"}\n');
  const lister = countingLister(transcripts);
  return { root, memoryDir, transcripts, lister };
}

function setLock(memoryDir: string, content: string, ageMs: number): void {
  const path = consolidationLockPath(memoryDir);
  writeFileSync(path, content);
  const t = new Date(Date.now() - ageMs);
  utimesSync(path, t, t);
}

function dreamer(memoryDir: string, lister: SessionLister, extra: Partial<DreamerOptions> = {}) {
  return createDreamer({ memoryDir, sessions: lister, model: scriptedModel(server), ...extra });
}

describe('maybeDream gates, in cost order', () => {
  it('time gate closed: the session directory is never scanned', async () => {
    const { memoryDir, lister } = setup(10);
    setLock(memoryDir, '', 2 * HOUR);
    const d = dreamer(memoryDir, lister);
    for (let i = 0; i < 3; i++) {
      const outcome = await d.maybeDream();
      expect(outcome).toMatchObject({ kind: 'stopped', gate: 'time' });
    }
    expect(lister.calls).toBe(0);
    expect(server.requests).toHaveLength(0);
  });

  it('time open, too few sessions: a second call within 10 min does not scan again', async () => {
    const { memoryDir, lister } = setup(3);
    let now = Date.now();
    const d = dreamer(memoryDir, lister, { clock: { now: () => now, sleep: async () => {} } });
    expect(await d.maybeDream()).toMatchObject({
      kind: 'stopped',
      gate: 'sessions',
      reason: '3 sessions since the last consolidation; needs 5',
    });
    expect(lister.calls).toBe(1);
    now += 9 * MIN;
    expect(await d.maybeDream()).toMatchObject({ kind: 'stopped', gate: 'throttle' });
    expect(lister.calls).toBe(1);
    now += 1 * MIN;
    expect(await d.maybeDream()).toMatchObject({ kind: 'stopped', gate: 'sessions' });
    expect(lister.calls).toBe(2);
    // The throttle lives on the instance: a second dreamer has its own.
    const other = dreamer(memoryDir, lister, { clock: { now: () => now, sleep: async () => {} } });
    await other.maybeDream();
    expect(lister.calls).toBe(3);
    expect(server.requests).toHaveLength(0);
  });

  it('a file-backed throttle holds across dreamers, as across hook processes', async () => {
    const { root, memoryDir, lister } = setup(3);
    const throttleFile = join(root, 'state', 'dream-scan');
    let now = Date.now();
    const perTurn = () =>
      dreamer(memoryDir, lister, {
        clock: { now: () => now, sleep: async () => {} },
        scanThrottle: fileScanThrottle(throttleFile),
      });
    expect(await perTurn().maybeDream()).toMatchObject({ kind: 'stopped', gate: 'sessions' });
    expect(lister.calls).toBe(1);
    now += 9 * MIN;
    expect(await perTurn().maybeDream()).toMatchObject({ kind: 'stopped', gate: 'throttle' });
    expect(lister.calls).toBe(1);
    now += 1 * MIN;
    expect(await perTurn().maybeDream()).toMatchObject({ kind: 'stopped', gate: 'sessions' });
    expect(lister.calls).toBe(2);
  });

  it('the current session is not counted', async () => {
    const { memoryDir, lister } = setup(5);
    const outcome = await dreamer(memoryDir, lister).maybeDream({ currentSessionId: 'session-0' });
    expect(outcome).toMatchObject({ kind: 'stopped', gate: 'sessions' });
  });

  it('disabled, or no model: stops before any I/O', async () => {
    const { memoryDir, lister } = setup(10);
    for (const extra of [{ dreamEnabled: false }, { memoryEnabled: false }, { model: undefined }]) {
      const d = createDreamer({
        memoryDir,
        sessions: lister,
        model: scriptedModel(server),
        ...extra,
      });
      expect(await d.maybeDream()).toMatchObject({ kind: 'stopped', gate: 'enabled' });
    }
    expect(lister.calls).toBe(0);
  });

  it('enough sessions but a live foreign PID holds a fresh lock: no run', async () => {
    const { memoryDir, lister } = setup(6);
    setLock(memoryDir, String(sleeper.pid), 5 * MIN);
    const before = statSync(consolidationLockPath(memoryDir), { bigint: true }).mtimeNs;
    // minHours 0 lets the time gate pass with a fresh lock; --force skips it. The lock holds in both.
    const relaxed = dreamer(memoryDir, lister, { config: { minHours: 0 } });
    expect(await relaxed.maybeDream()).toMatchObject({
      kind: 'stopped',
      gate: 'lock',
      reason: expect.stringMatching(`PID ${sleeper.pid}`),
    });
    expect(await dreamer(memoryDir, lister).maybeDream({ force: true })).toMatchObject({
      kind: 'stopped',
      gate: 'lock',
    });
    expect(server.requests).toHaveLength(0);
    expect(statSync(consolidationLockPath(memoryDir), { bigint: true }).mtimeNs).toBe(before);
    expect(readFileSync(consolidationLockPath(memoryDir), 'utf8')).toBe(String(sleeper.pid));
  });
});

describe('maybeDream runs and the lock', () => {
  async function deadPid(): Promise<number> {
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await new Promise((resolve) => child.once('exit', resolve));
    return child.pid!;
  }

  it('a lock left by a dead PID is taken over, and success leaves mtime ≈ now', async () => {
    const { memoryDir, lister } = setup(6);
    setLock(memoryDir, String(await deadPid()), 25 * HOUR);
    server.push({ text: 'Nothing needed changing.' });
    const before = Date.now();
    const outcome = await dreamer(memoryDir, lister).maybeDream();
    expect(outcome).toMatchObject({ kind: 'ran', lock: 'committed', run: { status: 'completed' } });
    const lock = consolidationLockPath(memoryDir);
    // Committed at the run's time, not left at the dead holder's 25 h-old mtime.
    expect(statSync(lock).mtimeMs).toBeGreaterThanOrEqual(before - 1_000);
    expect(readFileSync(lock, 'utf8')).toBe('');
    // The prompt named every session to review.
    const sent = JSON.stringify(server.requests[0]?.body);
    for (let i = 0; i < 6; i++) expect(sent).toContain(`session-${i}`);
  });

  it('a lock over an hour old is taken over even with a live holder', async () => {
    const { memoryDir, lister } = setup(0);
    setLock(memoryDir, String(sleeper.pid), HOUR + MIN);
    server.push({ text: 'done' });
    const outcome = await dreamer(memoryDir, lister).maybeDream({ force: true });
    expect(outcome).toMatchObject({ kind: 'ran', lock: 'committed' });
  });

  it('a run stopped at its turn limit has not finished: the lock is rolled back exactly', async () => {
    const { memoryDir, lister } = setup(6);
    setLock(memoryDir, '', 30 * HOUR);
    const lock = consolidationLockPath(memoryDir);
    const prior = statSync(lock, { bigint: true }).mtimeNs;
    server.push({ toolUse: [{ name: 'list', input: {} }] });
    const outcome = await dreamer(memoryDir, lister, { config: { maxTurns: 1 } }).maybeDream();
    expect(outcome).toMatchObject({
      kind: 'ran',
      lock: 'rolled_back',
      run: { status: 'max_turns' },
    });
    expect(statSync(lock, { bigint: true }).mtimeNs).toBe(prior);
  });

  it('a failing run restores the prior mtime exactly', async () => {
    const { memoryDir, lister } = setup(6);
    setLock(memoryDir, '', 48 * HOUR);
    const lock = consolidationLockPath(memoryDir);
    const prior = statSync(lock, { bigint: true }).mtimeNs;
    const priorMs = statSync(lock).mtimeMs;
    server.push({ error: { status: 400, message: 'bad request' } });
    const outcome = await dreamer(memoryDir, lister).maybeDream();
    expect(outcome).toMatchObject({ kind: 'ran', lock: 'rolled_back', run: { status: 'error' } });
    expect(statSync(lock, { bigint: true }).mtimeNs).toBe(prior);
    expect(statSync(lock).mtimeMs).toBe(priorMs);
  });

  it('a failing run with no prior lock removes it, so the next session retries', async () => {
    const { memoryDir, lister } = setup(6);
    server.push({ error: { status: 400 } });
    const d = dreamer(memoryDir, lister);
    expect(await d.maybeDream()).toMatchObject({ kind: 'ran', lock: 'rolled_back' });
    expect(() => statSync(consolidationLockPath(memoryDir))).toThrow(/ENOENT/);
  });

  it('a run that outlives maxRunMs is aborted and rolled back, before its lock could turn stale', async () => {
    const { memoryDir, lister } = setup(6);
    server.push({ text: 'too late', delayMs: 10_000 });
    const outcome = await dreamer(memoryDir, lister, { config: { maxRunMs: 300 } }).maybeDream();
    // Aborted, not completed: the run did not wait for the model's late answer.
    expect(outcome).toMatchObject({ kind: 'ran', lock: 'rolled_back', run: { status: 'aborted' } });
    expect(() => statSync(consolidationLockPath(memoryDir))).toThrow(/ENOENT/);
  });

  it('an aborted run restores the prior mtime exactly', async () => {
    const { memoryDir, lister } = setup(6);
    setLock(memoryDir, '', 30 * HOUR);
    const lock = consolidationLockPath(memoryDir);
    const prior = statSync(lock, { bigint: true }).mtimeNs;
    server.push(
      { toolUse: [{ name: 'list', input: {} }] },
      { text: 'never seen', delayMs: 20_000 },
    );
    const controller = new AbortController();
    const outcome = await dreamer(memoryDir, lister).maybeDream({
      signal: controller.signal,
      onProgress: (p) => {
        // Abort once the agent is past its first turn and waiting on the (slow) model.
        if (p.turns === 1) setTimeout(() => controller.abort(), 50);
      },
    });
    expect(outcome).toMatchObject({ kind: 'ran', lock: 'rolled_back', run: { status: 'aborted' } });
    expect(statSync(lock, { bigint: true }).mtimeNs).toBe(prior);
  });
});
