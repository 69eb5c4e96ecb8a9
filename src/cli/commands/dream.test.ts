import { mkdirSync, mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { consolidationLockPath } from '../../dream/index.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../../testing/index.js';
import { runCaptured, testIo } from '../test-io.js';

const HOUR = 3_600_000;
let server: ScriptedModelServer;
beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await server.close();
});

function setup(sessions: number) {
  const root = mkdtempSync(join(tmpdir(), 'engram-cli-dream-'));
  const memoryDir = join(root, 'memory');
  const transcripts = join(root, 'transcripts');
  mkdirSync(memoryDir);
  mkdirSync(transcripts);
  writeFileSync(join(memoryDir, 'MEMORY.md'), '');
  for (let i = 0; i < sessions; i++) writeFileSync(join(transcripts, `t${i}.jsonl`), '{}\n');
  const withModel = testIo({ cwd: root });
  withModel.env = {
    ...withModel.env,
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: server.anthropicBaseURL,
  };
  return {
    root,
    memoryDir,
    transcripts,
    io: withModel,
    args: ['--dir', memoryDir, '--transcripts', transcripts],
  };
}

function setLock(memoryDir: string, content: string, ageMs: number): void {
  const path = consolidationLockPath(memoryDir);
  writeFileSync(path, content);
  const t = new Date(Date.now() - ageMs);
  utimesSync(path, t, t);
}

describe('engram dream', () => {
  it('without a model: explains how to configure one and exits non-zero', async () => {
    const { memoryDir } = setup(6);
    const io = testIo();
    const r = await runCaptured(['dream', '--dir', memoryDir], io);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/needs a model/);
    expect(r.stderr).toMatch(/ANTHROPIC_API_KEY/);
    expect(r.stderr).toMatch(/--dry-run/);
  });

  it('--dry-run works without a model: the gates as they would decide, and what is missing', async () => {
    const { memoryDir, transcripts } = setup(6);
    const args = ['dream', '--dry-run', '--dir', memoryDir, '--transcripts', transcripts];
    let r = await runCaptured(args, testIo());
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/pass {2}sessions: 6 sessions since the last consolidation/);
    expect(r.stdout).toMatch(/Every gate passes, but a run needs a model/);
    expect(r.stdout).toMatch(/model: not configured.*ANTHROPIC_API_KEY/);
    r = await runCaptured([...args, '--json'], testIo());
    expect(JSON.parse(r.stdout)).toMatchObject({
      wouldRun: false,
      stoppedAt: null,
      reason: expect.stringMatching(/ANTHROPIC_API_KEY/),
      model: { configured: false },
    });
    setLock(memoryDir, '', 2 * HOUR);
    r = await runCaptured(args, testIo());
    expect(r.stdout).toMatch(/Would stop at the time gate: 2\.0 h since the last consolidation/);
  });

  it("by default counts Claude Code's transcripts for the project and engram's session records of the project", async () => {
    const { root, memoryDir } = setup(0);
    const io = testIo({ cwd: root });
    const claude = join(io.homedir, '.claude', 'projects', root.replace(/[^a-zA-Z0-9]/g, '-'));
    mkdirSync(claude, { recursive: true });
    for (const id of ['a', 'b', 'c']) writeFileSync(join(claude, `${id}.jsonl`), '{}\n');
    // d, e: this project; f: another project; g: no record, so it cannot be attributed.
    const projects: Record<string, string | undefined> = {
      c: root,
      d: root,
      e: root,
      f: join(root, 'elsewhere'),
      g: undefined,
    };
    for (const [id, project] of Object.entries(projects)) {
      const folder = join(io.homedir, '.engram', 'session-memory', id);
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, 'notes.md'), '# notes\n');
      if (project)
        writeFileSync(join(folder, 'session.json'), JSON.stringify({ projectRoot: project }));
    }
    const r = await runCaptured(['dream', '--dry-run', '--json', '--dir', memoryDir], io);
    const ids = JSON.parse(r.stdout)
      .sessions.map((s: { id: string }) => s.id)
      .sort();
    expect(ids).toEqual(['a', 'b', 'c', 'd', 'e']);
    const excluding = await runCaptured(
      ['dream', '--dry-run', '--json', '--dir', memoryDir, '--session', 'e'],
      io,
    );
    expect(JSON.parse(excluding.stdout)).toMatchObject({
      stoppedAt: 'sessions',
      reason: '4 sessions since the last consolidation; needs 5',
    });
  });

  it('--dry-run --json: which gate would stop it and why, without taking the lock or calling the model', async () => {
    const { memoryDir, io, args } = setup(6);
    let r = await runCaptured(['dream', '--dry-run', '--json', ...args], io);
    expect(r.code).toBe(0);
    const open = JSON.parse(r.stdout);
    expect(open).toMatchObject({
      dryRun: true,
      wouldRun: true,
      stoppedAt: null,
      lastConsolidatedAt: null,
    });
    expect(open.gates.map((g: { gate: string }) => g.gate)).toEqual([
      'enabled',
      'time',
      'throttle',
      'sessions',
      'lock',
    ]);
    expect(open.sessions).toHaveLength(6);
    expect(open.model.configured).toBe(true);
    setLock(memoryDir, '', 2 * HOUR);
    r = await runCaptured(['dream', '--dry-run', '--json', ...args], io);
    expect(JSON.parse(r.stdout)).toMatchObject({
      wouldRun: false,
      stoppedAt: 'time',
      reason: expect.stringMatching(/needs 24 h/),
    });
    setLock(memoryDir, String(process.pid), 60_000);
    r = await runCaptured(['dream', '--dry-run', '--json', '--force', ...args], io);
    expect(JSON.parse(r.stdout)).toMatchObject({ wouldRun: false, stoppedAt: 'lock' });
    expect(server.requests).toHaveLength(0);
    expect(readFileSync(consolidationLockPath(memoryDir), 'utf8')).toBe(String(process.pid));
  });

  it('runs with live progress on stderr and commits the lock', async () => {
    const { memoryDir, io, args } = setup(6);
    server.push(
      { toolUse: [{ name: 'read', input: { path: 'MEMORY.md' } }] },
      {
        toolUse: [
          {
            name: 'write',
            input: {
              path: 'ci.md',
              content:
                '---\nname: ci\ndescription: CI runs on every push to main\ntype: project\n---\nCI runs on every push.\n**Why:** branch protection.\n**How to apply:** keep main green.\n',
            },
          },
          {
            name: 'write',
            input: {
              path: 'MEMORY.md',
              content: '- [CI](ci.md) — CI runs on every push to main\n',
            },
          },
        ],
      },
      { text: 'Added ci.md.' },
    );
    const testStart = Date.now();
    const r = await runCaptured(['dream', ...args], io);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/time gate passed: never consolidated before/);
    expect(r.stderr).toMatch(/starting · 0\/6 sessions reviewed · 0 files touched · turn 0/);
    expect(r.stderr).toMatch(/updating · 0\/6 sessions reviewed · 2 files touched · turn 2/);
    expect(r.stdout).toMatch(/Consolidated .*: 2 file\(s\) touched/);
    expect(r.stdout).toMatch(/Directory check: OK \(1 memories, 1 index lines\)/);
    // Committed now: the lock's mtime is no older than this test (it never consolidated before).
    expect(statSync(consolidationLockPath(memoryDir)).mtimeMs).toBeGreaterThanOrEqual(
      testStart - 1_000,
    );
    // Now the time gate is closed: not due, which is not an error.
    const again = await runCaptured(['dream', ...args], io);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(
      /^Not consolidating \(time gate\): 0\.0 h since the last consolidation/,
    );
  });

  it('--json on a failed run: rolled back, exit 1', async () => {
    const { memoryDir, io, args } = setup(0);
    setLock(memoryDir, '', 3 * HOUR);
    const prior = statSync(consolidationLockPath(memoryDir), { bigint: true }).mtimeNs;
    server.push({ error: { status: 400, message: 'no such model' } });
    const r = await runCaptured(['dream', '--force', '--json', ...args], io);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      ran: true,
      status: 'error',
      lock: 'rolled_back',
      error: { code: 'model_error' },
    });
    expect(statSync(consolidationLockPath(memoryDir), { bigint: true }).mtimeNs).toBe(prior);
  });

  it('a run cut off by --max-turns did not finish: exit 1, lock rolled back, says how to raise it', async () => {
    const { memoryDir, io, args } = setup(6);
    setLock(memoryDir, '', 30 * HOUR);
    const prior = statSync(consolidationLockPath(memoryDir), { bigint: true }).mtimeNs;
    server.push(
      { toolUse: [{ name: 'list', input: {} }] },
      { toolUse: [{ name: 'list', input: {} }] },
    );
    const r = await runCaptured(['dream', '--max-turns', '2', ...args], io);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/stopped at the turn limit before finishing .*lock was rolled back/);
    expect(r.stdout).toMatch(/--max-turns/);
    expect(statSync(consolidationLockPath(memoryDir), { bigint: true }).mtimeNs).toBe(prior);
  });

  it('--force never skips the lock: a live holder means exit 1', async () => {
    const { memoryDir, io, args } = setup(6);
    setLock(memoryDir, String(process.pid), 60_000);
    const r = await runCaptured(['dream', '--force', '--json', ...args], io);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ ran: false, stoppedAt: 'lock' });
    expect(server.requests).toHaveLength(0);
  });

  it('settings can turn consolidation off', async () => {
    const { io, args } = setup(6);
    mkdirSync(join(io.homedir, '.engram'), { recursive: true });
    writeFileSync(
      join(io.homedir, '.engram', 'settings.json'),
      JSON.stringify({ autoDreamEnabled: false }),
    );
    const r = await runCaptured(['dream', '--json', ...args], io);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      ran: false,
      stoppedAt: 'enabled',
      reason: expect.stringMatching(/autoDreamEnabled/),
    });
  });

  it('a --transcripts folder that does not exist exits 3 instead of counting 0 sessions', async () => {
    const { io, memoryDir, root } = setup(0);
    writeFileSync(join(root, 'a-file'), '');
    for (const bad of ['no-such-dir', 'a-file']) {
      const r = await runCaptured(
        ['dream', '--dry-run', '--dir', memoryDir, '--transcripts', bad],
        io,
      );
      expect(r.code).toBe(3);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(new RegExp(`--transcripts ${bad}: (no such folder|not a folder)`));
    }
  });

  it('rejects a bad --max-turns', async () => {
    const { io, args } = setup(0);
    const r = await runCaptured(['dream', '--max-turns', 'zero', ...args], io);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--max-turns/);
  });
});
