import type { ChildProcess } from 'node:child_process';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv } from '../support/cli-process.js';
import {
  cli,
  fresh,
  HOUR,
  lockOf,
  seedMemories,
  setLock,
  spawnCli,
  startServer,
  transcripts,
  waitFor,
} from './support.js';

describe('engram dream (child processes)', () => {
  it('--dry-run names the gate that would stop it, and works without a model', async () => {
    const home = await fresh('home');
    const memoryDir = join(home, 'mem');
    await mkdir(memoryDir);
    const dir = await transcripts(2);
    const env = cliEnv(home);
    const r = await cli(
      ['dream', '--dry-run', '--dir', memoryDir, '--transcripts', dir],
      env,
      home,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/sessions/);
    const j = await cli(
      ['dream', '--dry-run', '--json', '--dir', memoryDir, '--transcripts', dir],
      env,
      home,
    );
    const out = JSON.parse(j.stdout);
    expect(out.stoppedAt).toBe('sessions');
    expect(out.wouldRun).toBe(false);
    expect(typeof out.reason).toBe('string');

    const lockMtime = await setLock(memoryDir, '', Date.now() - HOUR);
    const t = JSON.parse(
      (
        await cli(
          ['dream', '--dry-run', '--json', '--dir', memoryDir, '--transcripts', dir],
          env,
          home,
        )
      ).stdout,
    );
    expect(t.stoppedAt).toBe('time');
    // A dry run changes nothing.
    expect((await stat(lockOf(memoryDir))).mtimeMs).toBe(lockMtime);
  });

  it('not due: exits 0 and says which gate stopped it; no model call', async () => {
    const server = await startServer();
    const home = await fresh('home');
    const memoryDir = join(home, 'mem');
    await mkdir(memoryDir);
    await setLock(memoryDir, '', Date.now() - 3 * HOUR);
    const env = cliEnv(home, { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'k' });
    const r = await cli(
      ['dream', '--dir', memoryDir, '--transcripts', await transcripts(7)],
      env,
      home,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/time/);
    expect(server.requests.length).toBe(0);
  });

  it('--force runs with the PID in the lock while running, then mtime ≈ now', async () => {
    const server = await startServer();
    server.push({ text: 'listo', delayMs: 1_500 });
    const home = await fresh('home');
    const memoryDir = join(home, 'mem');
    await mkdir(memoryDir);
    await seedMemories(memoryDir);
    await setLock(memoryDir, '', Date.now() - 2 * HOUR);
    const env = cliEnv(home, { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'k' });
    const startedAt = Date.now();
    const { child, done } = spawnCli(
      ['dream', '--force', '--json', '--dir', memoryDir, '--transcripts', await transcripts(1)],
      env,
      home,
    );
    const sawPid = await waitFor(
      async () =>
        (await readFile(lockOf(memoryDir), 'utf8').catch(() => '')).trim() === String(child.pid),
    );
    const r = await done;
    expect(sawPid).toBe(true);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.ran).toBe(true);
    expect(out.status).toBe('completed');
    expect(out.lock).toBe('committed');
    // Committed: the lock's mtime is the run's time now, not the old one (filesystem time may lag
    // the process clock by a tick, hence the second of slack).
    expect((await stat(lockOf(memoryDir))).mtimeMs).toBeGreaterThanOrEqual(startedAt - 1_000);
  });

  it('a pass that leaves an orphan is reported as an invariant violation (exit 1)', async () => {
    const server = await startServer();
    server.push(
      {
        toolUse: [
          {
            name: 'write',
            input: {
              path: 'huerfano.md',
              content: '---\nname: huerfano\ndescription: sin índice\ntype: user\n---\nx\n',
            },
          },
        ],
      },
      { text: 'hecho' },
    );
    const home = await fresh('home');
    const memoryDir = join(home, 'mem');
    await mkdir(memoryDir);
    await seedMemories(memoryDir);
    const env = cliEnv(home, { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'k' });
    const args = ['dream', '--force', '--dir', memoryDir, '--transcripts', await transcripts(1)];
    const r = await cli(args, env, home);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/orphan/);
    expect(r.stdout).toContain('huerfano.md');
    expect(r.stderr).toMatch(/updating/);
  });

  it('two processes racing for the lock: exactly one runs', async () => {
    const server = await startServer({ fallback: { text: 'hecho', delayMs: 3_000 } });
    const home = await fresh('home');
    const memoryDir = join(home, 'mem');
    await mkdir(memoryDir);
    await seedMemories(memoryDir);
    const dir = await transcripts(6);
    const env = cliEnv(home, { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'k' });
    // --force skips the time gate, so only the lock can keep the second process out.
    const args = ['dream', '--force', '--json', '--dir', memoryDir, '--transcripts', dir];
    const a = spawnCli(args, env, home);
    const b = spawnCli(args, env, home);
    const results = await Promise.all([a.done, b.done]);
    const outs = results.map((r) => JSON.parse(r.stdout));
    expect(outs.filter((o) => o.ran === true).length).toBe(1);
    const loser = outs.find((o) => o.ran !== true);
    expect(loser.stoppedAt).toBe('lock');
    expect(server.requests.length).toBe(1);
  });

  it('Ctrl-C (SIGINT) stops the run and rolls the lock back exactly', async () => {
    const server = await startServer();
    server.push({ text: 'lento', delayMs: 20_000 });
    const home = await fresh('home');
    const memoryDir = join(home, 'mem');
    await mkdir(memoryDir);
    const prior = await setLock(memoryDir, '', Date.now() - 50 * HOUR);
    const env = cliEnv(home, { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'k' });
    const { child, done } = spawnCli(
      ['dream', '--dir', memoryDir, '--transcripts', await transcripts(5)],
      env,
      home,
    );
    const started = await waitFor(async () => server.requests.length > 0);
    expect(started).toBe(true);
    (child as ChildProcess).kill('SIGINT');
    const r = await done;
    expect(r.code).not.toBe(0);
    expect((await stat(lockOf(memoryDir))).mtimeMs).toBe(prior);
  });

  it("without --transcripts it counts Claude Code's transcripts of the working directory", async () => {
    const server = await startServer();
    const home = await fresh('home');
    const project = await fresh('proyecto');
    const claudeDir = join(home, '.claude', 'projects', project.replace(/[^a-zA-Z0-9]/g, '-'));
    await mkdir(claudeDir, { recursive: true });
    for (let i = 0; i < 6; i++)
      await writeFile(join(claudeDir, `c0ffee0${i}-0000-4000-8000-000000000000.jsonl`), '{}\n');
    const memoryDir = join(home, 'mem');
    await mkdir(memoryDir);
    await setLock(memoryDir, '', Date.now() - 30 * HOUR);
    const env = cliEnv(home, { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'k' });
    const dry = JSON.parse(
      (await cli(['dream', '--dry-run', '--json', '--dir', memoryDir], env, project)).stdout,
    );
    expect(dry.sessions.length).toBe(6);
    expect(dry.wouldRun).toBe(true);
    const r = await cli(['dream', '--json', '--dir', memoryDir], env, project);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).ran).toBe(true);
    expect(server.requests.length).toBe(1);
  });

  it('without a model: explains how to configure one and exits non-zero', async () => {
    const home = await fresh('home');
    const r = await cli(
      ['dream', '--force', '--dir', join(home, 'mem'), '--transcripts', await transcripts(5)],
      cliEnv(home),
      home,
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/ANTHROPIC_API_KEY/);
  });
});
