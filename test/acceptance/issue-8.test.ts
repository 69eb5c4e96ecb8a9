/**
 * Acceptance for issue 8 (consolidation), written from the issue text: `maybeDream` and the lock
 * from the public entry, the REAL Anthropic SDK against the scripted model server, and
 * `engram dream` as a child process (two of them racing, one interrupted).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as root from 'engram';
import {
  CONSOLIDATION_LOCK_FILE,
  createDreamer,
  maybeDream,
  type SessionLister,
  type SessionRef,
} from 'engram/dream';
import { auditMemoryDir, INDEX_MAX_BYTES, INDEX_MAX_LINES } from 'engram/memdir';
import { type ScriptedModelServer, scriptedModel, startScriptedModelServer } from 'engram/test';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cliEnv, requireBuild, runCliProcess, tempRoot } from './support.js';

const HOUR = 3_600_000;
/** A PID no process has (above Linux's pid_max default of 4,194,304). */
const DEAD_PID = 4_194_000 + Math.floor(Math.random() * 300);

let temp: Awaited<ReturnType<typeof tempRoot>>;
let server: ScriptedModelServer;

beforeAll(async () => {
  requireBuild();
  temp = await tempRoot('engram-acc8-');
});
afterAll(() => temp.cleanup());
afterEach(async () => {
  await server?.close();
});

const fresh = (name: string) => temp.fresh(name);
const cli = runCliProcess;

/** A lister that counts its scans (the issue's "counter on the session lister"). */
function countingLister(count: number): SessionLister & { calls: number } {
  const lister = {
    calls: 0,
    async listSessionsTouchedSince(_sinceMs: number): Promise<SessionRef[]> {
      lister.calls++;
      return Array.from({ length: count }, (_, i) => ({
        id: `sess-${i}`,
        path: `/nowhere/sess-${i}.jsonl`,
        mtimeMs: Date.now() - i * 1000,
      }));
    },
  };
  return lister;
}

const lockOf = (dir: string) => join(dir, CONSOLIDATION_LOCK_FILE);

async function setLock(dir: string, content: string, mtimeMs: number) {
  await writeFile(lockOf(dir), content);
  await utimes(lockOf(dir), mtimeMs / 1000, mtimeMs / 1000);
  return (await stat(lockOf(dir))).mtimeMs;
}

/** A memory directory in Spanish: two duplicates about the same fact, one contradicted fact. */
async function seedMemories(dir: string) {
  const file = (name: string, type: string, desc: string, body: string) =>
    writeFile(
      join(dir, name),
      `---\nname: ${name}\ndescription: ${desc}\ntype: ${type}\n---\n${body}\n`,
    );
  await file(
    'despliegue-viernes.md',
    'project',
    'no desplegar los viernes',
    'Nunca desplegar los viernes.\n\n**Why:** el equipo no está el fin de semana.\n**How to apply:** mover al lunes.',
  );
  await file(
    'no-deploy-friday.md',
    'project',
    'no deploys on friday',
    'No deploys on Fridays.\n\n**Why:** nobody on call.\n**How to apply:** wait for Monday.',
  );
  await file(
    'base-datos.md',
    'project',
    'la base de datos es MySQL 5.7',
    'Usamos MySQL 5.7.\n\n**Why:** legado.\n**How to apply:** evitar JSON columns.',
  );
  await writeFile(
    join(dir, 'MEMORY.md'),
    '- [Despliegue](despliegue-viernes.md) — no desplegar los viernes\n- [Friday](no-deploy-friday.md) — no deploys on friday\n- [BD](base-datos.md) — MySQL 5.7\n',
  );
}

/** Transcript folder with n sessions touched now. */
async function transcripts(n: number): Promise<string> {
  const dir = await fresh('transcripts');
  for (let i = 0; i < n; i++)
    await writeFile(
      join(dir, `sesion-${i}.jsonl`),
      `${JSON.stringify({ type: 'user', message: { role: 'user', content: `hola ${i}` } })}\n`,
    );
  return dir;
}

describe('issue 8: public names', () => {
  it('maybeDream is a function from engram/dream and the root; the lock file is .consolidate-lock', () => {
    expect(typeof maybeDream).toBe('function');
    expect(typeof createDreamer).toBe('function');
    expect(typeof (root as Record<string, unknown>).maybeDream).toBe('function');
    expect(CONSOLIDATION_LOCK_FILE).toBe('.consolidate-lock');
  });
});

describe('issue 8: gates in cost order', () => {
  it('with the time gate closed, no directory is scanned', async () => {
    server = await startScriptedModelServer();
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
    server = await startScriptedModelServer();
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
    server = await startScriptedModelServer();
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
    server = await startScriptedModelServer();
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
    server = await startScriptedModelServer();
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
    server = await startScriptedModelServer();
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
    const b = await maybeDream({
      memoryDir: stale,
      model: scriptedModel(server),
      sessions: countingLister(6),
    });
    expect(b.kind).toBe('ran');
    expect(Math.abs((await stat(lockOf(stale))).mtimeMs - Date.now())).toBeLessThan(60_000);
  });

  it('--force semantics in the library: time and session gates skipped, never the lock', async () => {
    server = await startScriptedModelServer();
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

describe('issue 8: rollback and commit of the lock mtime', () => {
  async function due(memoryDir: string) {
    const prior = await setLock(memoryDir, '', Date.now() - 40 * HOUR);
    return prior;
  }

  it('a failed run restores the prior mtime exactly', async () => {
    server = await startScriptedModelServer({ fallback: null });
    server.push({ error: { status: 400, message: 'roto' } });
    const memoryDir = await fresh('mem');
    const prior = await due(memoryDir);
    const out = await maybeDream({
      memoryDir,
      model: scriptedModel(server),
      sessions: countingLister(6),
    });
    expect(out.kind === 'ran' ? out.lock : out.kind).not.toBe('committed');
    expect((await stat(lockOf(memoryDir))).mtimeMs).toBe(prior);
  });

  it('a failed first run (no lock before) leaves no lock file', async () => {
    server = await startScriptedModelServer({ fallback: null });
    server.push({ error: { status: 400 } });
    const memoryDir = await fresh('mem');
    await maybeDream({ memoryDir, model: scriptedModel(server), sessions: countingLister(6) });
    expect(existsSync(lockOf(memoryDir))).toBe(false);
  });

  it('an aborted run restores the prior mtime exactly', async () => {
    server = await startScriptedModelServer();
    server.push({ text: 'pensando', delayMs: 20_000 });
    const memoryDir = await fresh('mem');
    const prior = await due(memoryDir);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const out = await maybeDream({
      memoryDir,
      model: scriptedModel(server),
      sessions: countingLister(6),
      signal: controller.signal,
    });
    expect(out.kind === 'ran' ? out.lock : out.kind).not.toBe('committed');
    expect((await stat(lockOf(memoryDir))).mtimeMs).toBe(prior);
  });

  it('a successful run leaves the mtime at about now; the next call stops at the time gate', async () => {
    server = await startScriptedModelServer();
    const memoryDir = await fresh('mem');
    await due(memoryDir);
    const sessions = countingLister(6);
    const out = await maybeDream({ memoryDir, model: scriptedModel(server), sessions });
    expect(out.kind === 'ran' && out.lock).toBe('committed');
    expect(Math.abs((await stat(lockOf(memoryDir))).mtimeMs - Date.now())).toBeLessThan(60_000);
    const next = await maybeDream({ memoryDir, model: scriptedModel(server), sessions });
    expect(next.kind === 'stopped' && next.gate).toBe('time');
  });
});

describe('issue 8: a scripted merge + revoke leaves a consistent directory', () => {
  it('audit clean and the index within caps', async () => {
    server = await startScriptedModelServer();
    const memoryDir = await fresh('mem');
    await seedMemories(memoryDir);
    const revoked = (name: string, desc: string, by: string, why: string) =>
      `---\nname: ${name}\ndescription: ${desc}\ntype: project\nstatus: revoked\nrevoked: 2026-11-29\nreason: ${why}\nsuperseded_by: ${by}\n---\nSuperseded by ${by}.\n`;
    server.push(
      {
        toolUse: [
          { name: 'list', input: { path: '.' } },
          { name: 'read', input: { path: 'MEMORY.md' } },
        ],
      },
      {
        toolUse: [
          {
            name: 'write',
            input: {
              path: 'despliegue-viernes.md',
              content:
                '---\nname: despliegue-viernes\ndescription: no deploys on Fridays (nobody on call over the weekend)\ntype: project\n---\nNo desplegar los viernes.\n\n**Why:** nadie de guardia el fin de semana.\n**How to apply:** mover al lunes.\n',
            },
          },
          {
            name: 'write',
            input: {
              path: 'no-deploy-friday.md',
              content: revoked(
                'no-deploy-friday.md',
                'no deploys on friday',
                'despliegue-viernes.md',
                'duplicate',
              ),
            },
          },
          {
            name: 'write',
            input: {
              path: 'base-datos.md',
              content: revoked(
                'base-datos.md',
                'la base de datos es MySQL 5.7',
                'postgres.md',
                'migrated to PostgreSQL 16 on 2026-11-20',
              ),
            },
          },
          {
            name: 'write',
            input: {
              path: 'postgres.md',
              content:
                '---\nname: postgres\ndescription: the database is PostgreSQL 16 since 2026-11-20\ntype: project\n---\nPostgreSQL 16.\n\n**Why:** migration finished 2026-11-20.\n**How to apply:** JSONB is fine.\n',
            },
          },
          {
            name: 'write',
            input: {
              path: 'MEMORY.md',
              content:
                '- [Despliegue](despliegue-viernes.md) — no deploys on Fridays\n- [Postgres](postgres.md) — PostgreSQL 16 since 2026-11-20\n',
            },
          },
        ],
      },
      { text: 'Merged the Friday duplicates; revoked MySQL.' },
    );
    const phases: string[] = [];
    const out = await maybeDream({
      memoryDir,
      model: scriptedModel(server),
      sessions: countingLister(5),
      onProgress: (p) => {
        if (phases.at(-1) !== p.phase) phases.push(p.phase);
      },
    });
    expect(phases).toEqual(['starting', 'updating']);
    expect(out.kind).toBe('ran');
    if (out.kind !== 'ran') return;
    expect(out.lock).toBe('committed');
    expect(out.run.status).toBe('completed');
    expect(out.run.invariants.ok).toBe(true);
    expect(out.run.progress.phase).toBe('updating');
    expect(out.run.progress.filesTouched.length).toBeGreaterThanOrEqual(4);
    const audit = await auditMemoryDir(memoryDir);
    expect(audit.problems).toEqual([]);
    const index = await readFile(join(memoryDir, 'MEMORY.md'), 'utf8');
    expect(index.split('\n').length).toBeLessThanOrEqual(INDEX_MAX_LINES);
    expect(Buffer.byteLength(index)).toBeLessThanOrEqual(INDEX_MAX_BYTES);
    // Nothing was deleted: the duplicate and the contradicted fact are revoked, not gone.
    expect(await readFile(join(memoryDir, 'no-deploy-friday.md'), 'utf8')).toContain(
      'status: revoked',
    );
    expect(await readFile(join(memoryDir, 'base-datos.md'), 'utf8')).toContain(
      'superseded_by: postgres.md',
    );
    // The instruction names the four phases and the sessions to review.
    const prompt = JSON.stringify(server.requests[0]?.body.messages);
    expect(prompt).toMatch(/orient/i);
    expect(prompt).toMatch(/gather/i);
    expect(prompt).toMatch(/consolidat/i);
    expect(prompt).toMatch(/prune/i);
    expect(prompt).toContain('sess-3');
  });

  it('a delete or a write outside the directory is refused during a pass', async () => {
    server = await startScriptedModelServer();
    const top = await fresh('top');
    const memoryDir = join(top, 'memory');
    await mkdir(memoryDir);
    await seedMemories(memoryDir);
    await writeFile(join(top, 'README.md'), 'intacto\n');
    server.push(
      {
        toolUse: [
          { name: 'write', input: { path: join(top, 'README.md'), content: 'x' } },
          { name: 'delete', input: { path: 'base-datos.md' } },
          { name: 'write', input: { path: '.consolidate-lock', content: '1' } },
        ],
      },
      { text: 'nada' },
    );
    const out = await maybeDream({
      memoryDir,
      model: scriptedModel(server),
      sessions: countingLister(5),
      force: true,
    });
    expect(out.kind).toBe('ran');
    expect(await readFile(join(top, 'README.md'), 'utf8')).toBe('intacto\n');
    expect(existsSync(join(memoryDir, 'base-datos.md'))).toBe(true);
    if (out.kind === 'ran') expect(out.run.progress.refusedCalls).toBe(3);
  });
});

function spawnCli(args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const child = spawn(process.execPath, [CLI, ...args], { env, cwd });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((res) =>
    child.on('close', (code) => res({ code, stdout, stderr })),
  );
  return { child, done };
}

async function waitFor(check: () => Promise<boolean>, ms = 15_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

describe('issue 8: engram dream (child processes)', () => {
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

    await setLock(memoryDir, '', Date.now() - HOUR);
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
    expect(Math.abs((await stat(lockOf(memoryDir))).mtimeMs - (Date.now() - HOUR))).toBeLessThan(
      5_000,
    );
  });

  it('not due: exits 0 and says which gate stopped it; no model call', async () => {
    server = await startScriptedModelServer();
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
    server = await startScriptedModelServer();
    server.push({ text: 'listo', delayMs: 1_500 });
    const home = await fresh('home');
    const memoryDir = join(home, 'mem');
    await mkdir(memoryDir);
    await seedMemories(memoryDir);
    await setLock(memoryDir, '', Date.now() - 2 * HOUR);
    const env = cliEnv(home, { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'k' });
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
    expect(Math.abs((await stat(lockOf(memoryDir))).mtimeMs - Date.now())).toBeLessThan(60_000);
  });

  it('a pass that leaves an orphan is reported as an invariant violation (exit 1)', async () => {
    server = await startScriptedModelServer();
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
    server = await startScriptedModelServer({ fallback: { text: 'hecho', delayMs: 3_000 } });
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
    server = await startScriptedModelServer();
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
    server = await startScriptedModelServer();
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
