import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, startScriptedModelServer } from '../testing/index.js';
import { consolidationLockPath } from './lock.js';

const LOCK_MODULE = join(import.meta.dirname, '..', '..', 'dist', 'dream', 'lock.js');

const CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');
const HOUR = 3_600_000;

beforeAll(() => {
  if (!existsSync(CLI))
    throw new Error('These tests run the built CLI in child processes: run `npm run build` first.');
});

let server: ScriptedModelServer;
beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await server.close();
});

function setup(sessions: number) {
  const root = mkdtempSync(join(tmpdir(), 'engram-dream-proc-'));
  const memoryDir = join(root, 'memory');
  const transcripts = join(root, 'transcripts');
  mkdirSync(memoryDir);
  mkdirSync(transcripts);
  writeFileSync(join(memoryDir, 'MEMORY.md'), '');
  for (let i = 0; i < sessions; i++) writeFileSync(join(transcripts, `t${i}.jsonl`), '{}\n');
  return { root, memoryDir, transcripts };
}

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

function engram(args: string[], root: string): ChildProcess & { done: Promise<Finished> } {
  const child = spawn(process.execPath, [CLI, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: root,
      ENGRAM_HOME: join(root, '.engram'),
      ENGRAM_MANAGED_DIR: join(root, 'managed'),
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: server.anthropicBaseURL,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => {
    stdout += d;
  });
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  const done = new Promise<Finished>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
  return Object.assign(child, { done });
}

/** Each child waits for the same instant, then tries the lock once, then stays alive a moment. */
const ACQUIRE_ONCE = `
const [dir, startAt, modulePath] = process.argv.slice(1);
const { tryAcquireConsolidationLock } = await import(modulePath);
// Sleep until just before the instant, then spin, so the processes start their attempt together.
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now() - 15)));
while (Date.now() < Number(startAt)) {}
const result = await tryAcquireConsolidationLock(dir, { expectedMtimeMs: 0 });
process.stdout.write(result.acquired ? 'won' : 'lost');
await new Promise((resolve) => setTimeout(resolve, 300));
`;

describe('the consolidation lock across real processes', () => {
  it('six processes released at the same instant: exactly one takes the lock, three rounds running', async () => {
    for (let round = 0; round < 3; round++) {
      const { memoryDir } = setup(0);
      const startAt = String(Date.now() + 800);
      const children = Array.from({ length: 6 }, () => {
        const child = spawn(
          process.execPath,
          [
            '--input-type=module',
            '-e',
            ACQUIRE_ONCE,
            memoryDir,
            startAt,
            pathToFileURL(LOCK_MODULE).href,
          ],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let out = '';
        child.stdout?.on('data', (d) => {
          out += d;
        });
        return new Promise<string>((resolve) => child.once('close', () => resolve(out)));
      });
      const outcomes = await Promise.all(children);
      expect(
        outcomes.filter((o) => o === 'won'),
        `round ${round}: ${outcomes.join(',')}`,
      ).toHaveLength(1);
      expect(outcomes.filter((o) => o === 'lost')).toHaveLength(5);
    }
  }, 60_000);
});

describe('engram dream across real processes', () => {
  for (const force of [false, true]) {
    it(`processes racing for the lock${force ? ' with --force' : ''}: exactly one runs`, async () => {
      const { root, memoryDir, transcripts } = setup(6);
      // Without --force a late loser stops at the time gate whenever it starts; with --force it needs
      // the winner still running, so the winner's model call is held longer than any start-up skew.
      server.push({ text: 'Nothing to change.', delayMs: force ? 2500 : 500 });
      const args = ['dream', '--json', '--dir', memoryDir, '--transcripts', transcripts];
      if (force) args.push('--force');
      const children = Array.from({ length: 3 }, () => engram(args, root));
      const results = await Promise.all(children.map((c) => c.done));
      const outs = results.map((r) => {
        expect(r.stdout, r.stderr).toMatch(/^\{/);
        return JSON.parse(r.stdout);
      });
      const ran = outs.filter((o) => o.ran);
      expect(ran).toHaveLength(1);
      expect(ran[0]).toMatchObject({ status: 'completed', lock: 'committed' });
      // A loser either saw the winner's lock, or (without --force) its fresh mtime at the time gate.
      for (const o of outs.filter((x) => !x.ran))
        expect(force ? ['lock'] : ['lock', 'time']).toContain(o.stoppedAt);
      expect(server.requests).toHaveLength(1);
      expect(results.filter((r) => r.code === 0).length).toBeGreaterThanOrEqual(1);
    }, 30_000);
  }

  it('Ctrl-C stops a run, rolls the lock back to its prior mtime exactly, and exits 130', async () => {
    const { root, memoryDir, transcripts } = setup(6);
    const lock = consolidationLockPath(memoryDir);
    writeFileSync(lock, '');
    const old = new Date(Date.now() - 30 * HOUR);
    utimesSync(lock, old, old);
    const prior = statSync(lock, { bigint: true }).mtimeNs;
    server.push({ toolUse: [{ name: 'list', input: {} }] }, { text: 'late', delayMs: 20_000 });
    const child = engram(['dream', '--dir', memoryDir, '--transcripts', transcripts], root);
    // The first turn's progress line means the second (slow) model call is about to go out.
    await new Promise<void>((resolve) => {
      let seen = '';
      child.stderr?.on('data', (d) => {
        seen += d;
        if (/turn 1\n/.test(seen)) resolve();
      });
    });
    // Give the second request a moment to reach the server before interrupting it.
    const deadline = Date.now() + 5_000;
    while (server.requests.length < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGINT');
    const result = await child.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(/interrupted, rolling back the lock/);
    expect(result.stdout).toMatch(/Consolidation aborted; the lock was rolled back/);
    expect(statSync(lock, { bigint: true }).mtimeNs).toBe(prior);
  }, 30_000);
});
