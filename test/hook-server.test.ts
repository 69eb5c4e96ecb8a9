// The warm hook server (src/cli/hook-server.ts) seen from outside: the plugin's hook entry
// (dist/cli/hook.cjs) as Claude Code runs it, with and without a server, over the same files.
// Nothing here measures time: waits poll for a state (a socket answers, a pid is gone).
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import {
  chmod,
  cp,
  mkdir,
  mkdtemp,
  readFile,
  rm,
  unlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shortHash } from '../src/util/short-hash.js';
import { setupWorld } from './security/attack-corpus.js';

const REPO = resolve(import.meta.dirname, '..');
const HOOK = join(REPO, 'dist/cli/hook.cjs');
const PROMPT = 'why does the kubelet keep evicting pods';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Every server a test saw, stopped at the end whatever happened. */
const seen = new Set<number>();

function runHook(
  entry: string,
  args: string[],
  stdin: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<Run> {
  return new Promise((done) => {
    const child = execFile(process.execPath, [entry, ...args], { env, cwd }, (e, stdout, stderr) =>
      done({ code: e ? Number(e.code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(stdin);
  });
}

interface Status {
  pid: number;
  served: number;
  running: boolean;
  touched: number;
  /** When it exits if nothing comes (epoch ms); null while a request is queued or running. */
  idleDeadline: number | null;
}

function sockets(engramHome: string): string[] {
  try {
    return readdirSync(join(engramHome, 'run'))
      .filter((n) => n.endsWith('.sock'))
      .map((n) => join(engramHome, 'run', n));
  } catch {
    return [];
  }
}

/** Ask the server at `socket` for its status; undefined when nothing answers. */
function askStatus(socket: string): Promise<Status | undefined> {
  return new Promise((done) => {
    const s = connect(socket);
    let text = '';
    s.setEncoding('utf8');
    s.on('connect', () => s.write('{"t":"status"}\n'));
    s.on('data', (c: string) => {
      text += c;
    });
    s.on('error', () => done(undefined));
    s.on('close', () => {
      try {
        const status = JSON.parse(text) as Status;
        seen.add(status.pid);
        done(status);
      } catch {
        done(undefined);
      }
    });
  });
}

async function statuses(engramHome: string): Promise<Status[]> {
  const all = await Promise.all(sockets(engramHome).map(askStatus));
  return all.filter((s): s is Status => s !== undefined);
}

/** Poll until `check` holds (bounded: a test that never gets there fails, it does not hang). */
async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined) {
  for (let i = 0; i < 600; i++) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    await sleep(50);
  }
  throw new Error(`never: ${what}`);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const memoryText = (name: string, description: string, body: string) =>
  `---\nname: ${name}\ndescription: ${description}\ntype: project\n---\n${body}\n`;

async function writeOld(path: string, text: string) {
  await writeFile(path, text);
  const old = Date.now() / 1000 - 3600;
  await utimes(path, old, old);
}

/** A home, a project and a memory directory with a few memories about pods and deploys. */
async function world(root: string, name: string) {
  const top = join(root, name);
  const home = join(top, 'home');
  const engramHome = join(home, '.engram');
  const project = join(top, 'project');
  const memory = join(top, 'memory');
  for (const d of [home, project, memory]) await mkdir(d, { recursive: true });
  const memories: [string, string][] = [
    ['pods.md', 'kubelet evicts pods when node memory runs low'],
    ['deploy.md', 'canary deploys roll back on latency alerts'],
    ['evictions.md', 'eviction thresholds for the kubelet are set in the node config'],
    ['billing.md', 'invoices are generated on the first day of the month'],
  ];
  for (const [file, description] of memories)
    await writeOld(join(memory, file), memoryText(file, description, `Notes on ${description}.`));
  const base: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    ENGRAM_HOME: engramHome,
    ENGRAM_MANAGED_DIR: join(top, 'managed'),
  };
  const served = { ...base };
  const direct = { ...base, ENGRAM_NO_DAEMON: '1' };
  const input = (session: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      hook_event_name: 'UserPromptSubmit',
      session_id: session,
      cwd: project,
      prompt: PROMPT,
      ...extra,
    });
  const args = ['hook', 'user-prompt-submit', '--dir', memory, '--no-model'];
  const stopInput = (session: string) =>
    JSON.stringify({
      hook_event_name: 'Stop',
      session_id: session,
      cwd: project,
      stop_hook_active: false,
    });
  const stopArgs = ['hook', 'stop', '--dir', memory, '--no-model'];
  return {
    top,
    home,
    engramHome,
    project,
    memory,
    served,
    direct,
    input,
    args,
    stopInput,
    stopArgs,
  };
}

type World = Awaited<ReturnType<typeof world>>;

/** Run the first hook (in-process; it starts a server) and wait until the server answers. */
async function startServer(w: World, env = w.served, entry = HOOK): Promise<Status> {
  const first = await runHook(entry, w.args, w.input('warm-up'), env, w.project);
  expect(first.code, first.stderr).toBe(0);
  return until('the server answers', async () => (await statuses(w.engramHome))[0]);
}

async function stopAll() {
  for (const pid of seen) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // gone already
    }
  }
  for (const pid of seen) await until(`server ${pid} exits`, () => !alive(pid));
}

describe('the warm hook server', () => {
  let root: string;

  beforeAll(async () => {
    if (!existsSync(HOOK)) throw new Error(`${HOOK} is missing: run \`npm run build\` first`);
    root = await mkdtemp(join(tmpdir(), 'engram-hook-server-'));
  });
  afterAll(async () => {
    await stopAll();
    await rm(root, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  });

  it('answers byte for byte what the in-process hook answers, through edits between turns', async () => {
    const w = await world(root, 'same-bytes');
    const server = await startServer(w);
    const settings = join(w.engramHome, 'settings.json');
    const steps: [string, () => Promise<void>][] = [
      ['no change', async () => undefined],
      [
        'an in-place edit',
        () =>
          writeFile(
            join(w.memory, 'billing.md'),
            // Now as good a match as pods.md and fresher: recall keeps a memory that shares only
            // the words of a better one as a near tie, so a weaker one would not show the edit.
            memoryText(
              'billing.md',
              'kubelet evicts pods when node memory runs low',
              'Drain first.',
            ),
          ),
      ],
      [
        'a new file',
        () =>
          writeOld(
            join(w.memory, 'oom.md'),
            memoryText('oom.md', 'pods evicted by the kubelet under memory pressure', 'OOM.'),
          ),
      ],
      ['a deleted file', () => unlink(join(w.memory, 'pods.md'))],
      ['settings that turn memory off', () => writeFile(settings, '{"autoMemoryEnabled":false}')],
      ['settings that turn it on again', () => writeFile(settings, '{}')],
      ['a prompt about something else', async () => undefined],
    ];
    let served = server.served;
    for (const [step, edit] of steps) {
      await edit();
      const extra = step === 'a prompt about something else' ? { prompt: 'when are invoices' } : {};
      const viaServer = await runHook(HOOK, w.args, w.input('a', extra), w.served, w.project);
      const inProcess = await runHook(HOOK, w.args, w.input('b', extra), w.direct, w.project);
      expect(viaServer, step).toEqual(inProcess);
      expect(viaServer.code, step).toBe(0);
      const [now] = await statuses(w.engramHome);
      expect(now?.pid, step).toBe(server.pid);
      expect(now?.served, `${step}: answered by the server`).toBe(served + 1);
      served = now!.served;
      if (step === 'an in-place edit') expect(viaServer.stdout).toContain('billing.md');
      if (step === 'a deleted file') expect(viaServer.stdout).not.toContain('pods.md');
      if (step === 'settings that turn memory off') expect(viaServer.stdout).toBe('{}\n');
    }
    // Session start goes through the server too, with the same answer.
    const start = (s: string) =>
      JSON.stringify({ hook_event_name: 'SessionStart', session_id: s, cwd: w.project });
    const startArgs = ['hook', 'session-start', '--dir', w.memory, '--no-model'];
    await writeFile(join(w.memory, 'MEMORY.md'), '- [Pods](pods.md) — kubelet evictions\n');
    const viaServer = await runHook(HOOK, startArgs, start('c'), w.served, w.project);
    const inProcess = await runHook(HOOK, startArgs, start('d'), w.direct, w.project);
    expect(viaServer).toEqual(inProcess);
    expect(viaServer.stdout).toContain('kubelet evictions');
    expect((await statuses(w.engramHome))[0]?.served).toBe(served + 1);
  });

  it('a served hook process loads no engram code but its own small file', async () => {
    const w = await world(root, 'lean');
    const log = join(w.top, 'loaded.json');
    const recorder = join(w.top, 'record.cjs');
    await writeFile(
      recorder,
      `process.on('exit', () => {
  if (process.argv[2] !== 'hook') return;
  require('node:fs').writeFileSync(process.env.RECORD_LOG, JSON.stringify({
    files: Object.keys(require.cache),
    builtins: process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13)),
  }));
});\n`,
    );
    const env = { ...w.served, RECORD_LOG: log };
    const run = (session: string) =>
      runHook('-r', [recorder, HOOK, ...w.args], w.input(session), env, w.project);
    await run('warm-up');
    const server = await until('the server answers', async () => (await statuses(w.engramHome))[0]);
    const served = await run('a');
    expect(served).toEqual(await runHook(HOOK, w.args, w.input('b'), w.direct, w.project));
    expect((await statuses(w.engramHome))[0]?.served).toBe(server.served + 1);
    const loaded = JSON.parse(await readFile(log, 'utf8')) as {
      files: string[];
      builtins: string[];
    };
    expect(loaded.files.sort()).toEqual([HOOK, recorder].sort());
    // Nor Node modules it can do without when the server answers: each one is start-up time.
    for (const heavy of ['vm', 'crypto', 'child_process', 'module', 'fs/promises', 'os', 'tty'])
      expect(loaded.builtins).not.toContain(heavy);
  });

  it('lives in a folder only its user can enter, behind a socket only its user can open', async () => {
    const w = await world(root, 'modes');
    await startServer(w);
    const run = join(w.engramHome, 'run');
    expect(statSync(run).mode & 0o777).toBe(0o700);
    expect(statSync(run).uid).toBe(process.getuid!());
    const [socket] = sockets(w.engramHome);
    expect(statSync(socket!).isSocket()).toBe(true);
    expect(statSync(socket!).mode & 0o777).toBe(0o600);
    // A run folder others can enter is not trusted: the hook answers in-process.
    const before = (await statuses(w.engramHome))[0]!;
    await chmod(run, 0o755);
    const loose = await runHook(HOOK, w.args, w.input('a'), w.served, w.project);
    const inProcess = await runHook(HOOK, w.args, w.input('b'), w.direct, w.project);
    expect(loose).toEqual(inProcess);
    expect((await askStatus(socket!))?.served).toBe(before.served);
  });

  it('gives a home too deep for a socket path a server all the same, behind a door only its user can open', async () => {
    const w = await world(root, `deep-${'d'.repeat(90)}`);
    expect(join(w.engramHome, 'run', 'hook-0123456789abcdef.sock').length).toBeGreaterThan(108);
    const runDir = `/tmp/engram-${process.getuid!()}`;
    const prefix = `hook-${shortHash(w.engramHome)}-`;
    const doors = () => {
      try {
        return readdirSync(runDir)
          .filter((n) => n.startsWith(prefix) && n.endsWith('.sock'))
          .map((n) => join(runDir, n));
      } catch {
        return [];
      }
    };
    const first = await runHook(HOOK, w.args, w.input('warm-up'), w.served, w.project);
    expect(first.code, first.stderr).toBe(0);
    const server = await until('the server answers', async () => {
      for (const door of doors()) {
        const status = await askStatus(door);
        if (status !== undefined) return status;
      }
      return undefined;
    });
    expect(statSync(runDir).mode & 0o777).toBe(0o700);
    expect(statSync(runDir).uid).toBe(process.getuid!());
    const [door] = doors();
    expect(statSync(door!).mode & 0o777).toBe(0o600);
    const served = await runHook(HOOK, w.args, w.input('a'), w.served, w.project);
    expect(served).toEqual(await runHook(HOOK, w.args, w.input('b'), w.direct, w.project));
    expect((await askStatus(door!))?.served).toBe(server.served + 1);
  });

  it('falls back to the in-process answer when the server is gone, dies mid-way, or differs', async () => {
    const w = await world(root, 'fallbacks');
    const first = await startServer(w);
    const reference = () => runHook(HOOK, w.args, w.input('ref'), w.direct, w.project);

    // Killed outright: its socket file stays behind, nothing answers it.
    process.kill(first.pid, 'SIGKILL');
    await until('the killed server is gone', () => !alive(first.pid));
    expect(sockets(w.engramHome)).toHaveLength(1);
    const afterKill = await runHook(HOOK, w.args, w.input('ref'), w.served, w.project);
    expect(afterKill).toEqual(await reference());
    // ... and that hook started a new server in its place.
    const second = await until('a new server answers', async () => {
      const [s] = await statuses(w.engramHome);
      return s !== undefined && s.pid !== first.pid ? s : undefined;
    });

    // Dies while a hook waits on it: stopped, the hook connects, then it is killed.
    process.kill(second.pid, 'SIGSTOP');
    const waiting = runHook(HOOK, w.args, w.input('ref'), w.served, w.project);
    await sleep(100);
    process.kill(second.pid, 'SIGKILL');
    expect(await waiting).toEqual(await reference());
    await until('the killed server is gone', () => !alive(second.pid));

    // Another environment: another key, so another server; the first one serves nothing of it.
    const third = await until('a server answers again', async () => {
      const [s] = await statuses(w.engramHome);
      if (s !== undefined) return s;
      await runHook(HOOK, w.args, w.input('ref'), w.served, w.project);
      return undefined;
    });
    const otherEnv = { ...w.served, ENGRAM_HOOK_DEADLINE_MS: '11000' };
    const other = await runHook(HOOK, w.args, w.input('ref'), otherEnv, w.project);
    expect(other).toEqual(
      await runHook(
        HOOK,
        w.args,
        w.input('ref'),
        { ...otherEnv, ENGRAM_NO_DAEMON: '1' },
        w.project,
      ),
    );
    const all = await until('a second server for the other environment', async () => {
      const s = await statuses(w.engramHome);
      return s.length === 2 ? s : undefined;
    });
    expect(all.find((s) => s.pid === third.pid)?.served).toBe(third.served);
  });

  it('a busy server makes a hook answer in-process after a bounded wait instead of waiting its turn', async () => {
    const w = await world(root, 'busy');
    const server = await startServer(w);
    const [socket] = sockets(w.engramHome);
    // Held busy by clients that take their turn and never say go, however slow this machine is.
    const release = await holdServer(w, socket!);
    // A budget that leaves the in-process run time to spare: only the wait for the server is
    // bounded here (a quarter of the budget, at most 1 s), and that is the behaviour asserted.
    const args = [...w.args, '--budget-ms', '8000'];
    const busy = await runHook(HOOK, args, w.input('a'), w.served, w.project);
    const held = await askStatus(socket!);
    release();
    const inProcess = await runHook(HOOK, args, w.input('b'), w.direct, w.project);
    expect(busy.code, busy.stderr).toBe(0);
    expect(JSON.parse(busy.stdout)).toEqual(JSON.parse(inProcess.stdout));
    // Still held when the hook had answered; neither the holders nor the busy hook were run by it.
    expect(held).toMatchObject({ running: true, served: server.served });
    expect((await askStatus(socket!))?.served).toBe(server.served);
  });

  it('the Stop hook starts the idle time again, and starts a server when none answers', async () => {
    const w = await world(root, 'stop-touch');
    const stop = (env: NodeJS.ProcessEnv) =>
      runHook(HOOK, w.stopArgs, w.stopInput('s'), env, w.project);
    // No server yet: the Stop hook starts one for the next prompt.
    const first = await stop(w.served);
    expect(first.code, first.stderr).toBe(0);
    const started = await until(
      'the server answers',
      async () => (await statuses(w.engramHome))[0],
    );
    expect(started).toMatchObject({ served: 0, touched: 0 });
    expect(typeof started.idleDeadline).toBe('number');
    // With a server: the Stop hook touches it and its idle deadline moves; no hook is run there.
    const again = await stop(w.served);
    expect(again).toEqual(first);
    const touched = await until('the touch arrives', async () => {
      const s = (await statuses(w.engramHome))[0];
      return s?.touched === 1 ? s : undefined;
    });
    expect(touched.pid).toBe(started.pid);
    expect(touched.served).toBe(0);
    expect(touched.idleDeadline).toBeGreaterThan(started.idleDeadline!);
    // A busy server: the Stop hook answers without waiting its turn, and the touch still counts.
    const [socket] = sockets(w.engramHome);
    const release = await holdServer(w, socket!);
    try {
      expect(await stop(w.served)).toEqual(first);
      const busy = await until('the touch of a busy server arrives', async () => {
        const s = await askStatus(socket!);
        return s?.touched === 2 ? s : undefined;
      });
      expect(busy).toMatchObject({ running: true, served: 0, idleDeadline: null });
    } finally {
      release();
    }
    // The prompt after it is served by the server the Stop hook kept.
    const prompt = await runHook(HOOK, w.args, w.input('p'), w.served, w.project);
    expect(prompt).toEqual(await runHook(HOOK, w.args, w.input('q'), w.direct, w.project));
    expect((await askStatus(socket!))?.served).toBe(1);
  });

  it('ENGRAM_NO_DAEMON=1 and "hookServer": false: the Stop hook neither touches nor starts a server', async () => {
    const w = await world(root, 'stop-off');
    const stop = (env: NodeJS.ProcessEnv) =>
      runHook(HOOK, w.stopArgs, w.stopInput('s'), env, w.project);
    expect((await stop(w.direct)).code).toBe(0);
    await writeFile(join(w.engramHome, 'settings.json'), '{"hookServer":false}');
    expect((await stop(w.served)).code).toBe(0);
    await sleep(500);
    expect(await statuses(w.engramHome)).toEqual([]);
    // With a server running: neither touches it (the one touch counted is the last hook's).
    await rm(join(w.engramHome, 'settings.json'));
    const server = await startServer(w);
    expect((await stop(w.direct)).code).toBe(0);
    await writeFile(join(w.engramHome, 'settings.json'), '{"hookServer":false}');
    expect((await stop(w.served)).code).toBe(0);
    await rm(join(w.engramHome, 'settings.json'));
    expect((await stop(w.served)).code).toBe(0);
    const [socket] = sockets(w.engramHome);
    const after = await until('the last touch arrives', async () => {
      const s = await askStatus(socket!);
      return s !== undefined && s.touched > 0 ? s : undefined;
    });
    expect(after).toMatchObject({ pid: server.pid, touched: 1 });
  });

  it('two hooks at once both get the answer', async () => {
    const w = await world(root, 'two');
    const server = await startServer(w);
    const [a, b] = await Promise.all([
      runHook(HOOK, w.args, w.input('a'), w.served, w.project),
      runHook(HOOK, w.args, w.input('b'), w.served, w.project),
    ]);
    const inProcess = await runHook(HOOK, w.args, w.input('c'), w.direct, w.project);
    expect(a).toEqual(inProcess);
    expect(b).toEqual(inProcess);
    expect((await statuses(w.engramHome))[0]!.served).toBeGreaterThan(server.served);
  });

  it('exits when idle, when its home is removed, and when a newer build is installed', async () => {
    const idle = await world(root, 'idle');
    const tiny = { ...idle.served, ENGRAM_HOOK_SERVER_IDLE_MS: '200' };
    const idler = await startServer(idle, tiny);
    await until('the idle server exits', () => !alive(idler.pid));
    expect(sockets(idle.engramHome)).toEqual([]);

    const removed = await world(root, 'removed');
    const orphan = await startServer(removed);
    await rm(removed.home, { recursive: true, force: true });
    await until('the server of a removed home exits', () => !alive(orphan.pid));
    // Started after its home was removed (a hook's server, late): it does not bring it back.
    const late = spawn(process.execPath, [HOOK, 'hook-server', removed.engramHome], {
      env: removed.served,
      stdio: 'ignore',
    });
    expect(await new Promise((done) => late.once('exit', done))).toBe(1);
    expect(existsSync(removed.home)).toBe(false);

    // A build of our own (the shared one must not change under other tests).
    const build = await mkdtemp(join(REPO, 'node_modules', '.engram-test-build-'));
    try {
      await cp(join(REPO, 'dist', 'cli', 'main.js'), join(build, 'main.js'));
      await cp(join(REPO, 'dist', 'cli', 'hook.cjs'), join(build, 'hook.cjs'));
      await cp(join(REPO, 'dist', 'cli', 'bundle'), join(build, 'bundle'), { recursive: true });
      const entry = join(build, 'hook.cjs');
      const w = await world(root, 'rebuilt');
      const old = await startServer(w, w.served, entry);
      const later = Date.now() / 1000 + 5;
      await utimes(join(build, 'bundle', 'hook.cjs'), later, later);
      const after = await runHook(entry, w.args, w.input('a'), w.served, w.project);
      expect(after).toEqual(await runHook(entry, w.args, w.input('b'), w.direct, w.project));
      await until('the old build exits', () => !alive(old.pid));
      const fresh = await until('the new build serves', async () => {
        const s = await statuses(w.engramHome);
        return s.length === 1 && s[0]!.pid !== old.pid ? s[0] : undefined;
      });
      expect(fresh.served).toBe(0);
    } finally {
      await rm(build, { recursive: true, force: true });
    }
  });

  it('a second server racing to start leaves one server', async () => {
    const w = await world(root, 'race');
    await mkdir(w.engramHome, { recursive: true });
    const starts = [0, 1, 2].map(() => {
      const child = spawn(process.execPath, [HOOK, 'hook-server', w.engramHome], {
        env: w.served,
        stdio: 'ignore',
      });
      const exit = new Promise<number | null>((done) => child.once('exit', done));
      return { pid: child.pid, exit };
    });
    const [one] = await until('a server answers', async () => {
      const s = await statuses(w.engramHome);
      return s.length > 0 ? s : undefined;
    });
    const exits = await Promise.all(starts.filter((c) => c.pid !== one!.pid).map((c) => c.exit));
    expect(exits).toEqual([0, 0]);
    expect(alive(one!.pid)).toBe(true);
    expect(sockets(w.engramHome)).toHaveLength(1);
    const viaServer = await runHook(HOOK, w.args, w.input('a'), w.served, w.project);
    expect(viaServer).toEqual(await runHook(HOOK, w.args, w.input('b'), w.direct, w.project));
    expect((await statuses(w.engramHome))[0]).toMatchObject({
      pid: one!.pid,
      served: 1,
      queued: 0,
      running: false,
    });
  });

  it('"hookServer": false in settings stops the server and starts no other', async () => {
    const w = await world(root, 'setting');
    const server = await startServer(w);
    await writeFile(join(w.engramHome, 'settings.json'), '{"hookServer":false}');
    const off = await runHook(HOOK, w.args, w.input('a'), w.served, w.project);
    expect(off).toEqual(await runHook(HOOK, w.args, w.input('b'), w.direct, w.project));
    await until('the server exits', () => !alive(server.pid));
    await runHook(HOOK, w.args, w.input('c'), w.served, w.project);
    await sleep(300);
    expect(await statuses(w.engramHome)).toEqual([]);
  });

  it('does not let a request reach memory the in-process hook refuses (attack corpus)', async () => {
    const c = await setupWorld('engram-hook-server-corpus-');
    try {
      // The committed settings form: the project's own settings move memory to the outside folder.
      await mkdir(join(c.project, '.engram'), { recursive: true });
      await writeFile(
        join(c.project, '.engram', 'settings.json'),
        JSON.stringify({ memoryDirectory: c.outside }),
      );
      const input = (s: string) =>
        JSON.stringify({
          hook_event_name: 'UserPromptSubmit',
          session_id: s,
          cwd: c.project,
          prompt: 'secret victim hard target corpus sentinel outside',
        });
      const args = ['hook', 'user-prompt-submit', '--no-model'];
      const { ENGRAM_NO_DAEMON: _, ...env } = c.env;
      const direct = { ...env, ENGRAM_NO_DAEMON: '1' };
      const first = await runHook(HOOK, args, input('a'), env, c.project);
      await until('the server answers', async () => (await statuses(c.engramHome))[0]);
      for (const dirArgs of [[], ['--dir', c.memory]]) {
        const viaServer = await runHook(HOOK, [...args, ...dirArgs], input('b'), env, c.project);
        const inProcess = await runHook(HOOK, [...args, ...dirArgs], input('c'), direct, c.project);
        expect(viaServer).toEqual(inProcess);
        for (const out of [first.stdout, viaServer.stdout, viaServer.stderr]) {
          expect(out).not.toContain(c.sentinel);
          expect(out).not.toContain(c.canary);
        }
      }
      expect((await statuses(c.engramHome))[0]?.served).toBe(2);
    } finally {
      await c.cleanup();
    }
  });
});

/** The request a hook in world `w` sends (its key computed by the built code, as the hook does). */
async function keyedRequest(w: World): Promise<unknown> {
  const dir = await mkdtemp(join(tmpdir(), 'engram-hook-request-'));
  const script = join(dir, 'request.mjs');
  const keyModule = pathToFileURL(join(REPO, 'dist/cli/hook-server-key.js')).href;
  await writeFile(
    script,
    `import { hookServerKey, processKeyParts, hookBuildId } from ${JSON.stringify(keyModule)};
const build = hookBuildId(${JSON.stringify(join(REPO, 'dist/cli/bundle/hook.cjs'))});
const key = hookServerKey(processKeyParts(process.env.ENGRAM_HOME, build));
process.stdout.write(JSON.stringify({ t: 'req', key, event: 'user-prompt-submit',
  argv: ${JSON.stringify(w.args)}, cwd: ${JSON.stringify(w.project)}, homedir: process.env.HOME,
  env: process.env, stdin: ${JSON.stringify(w.input('held'))}, stdinIsTty: false }));
`,
  );
  try {
    const run = await runHook(script, [], '', w.served, w.project);
    return JSON.parse(run.stdout);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Keep the server at `socket` busy until released, deterministically: clients that each take
 * their turn and never say go (the server drops each after a few seconds, then the next one's turn
 * comes), enough of them to outlast any hook a test runs meanwhile. Resolves once the first holds.
 */
async function holdServer(w: World, socket: string, holders = 12): Promise<() => void> {
  const request = `${JSON.stringify(await keyedRequest(w))}\n`;
  const sockets = Array.from({ length: holders }, () => connect(socket));
  await new Promise<void>((done) => {
    for (const holder of sockets) {
      holder.setEncoding('utf8');
      holder.on('error', () => undefined);
      holder.once('data', () => done());
    }
    // One after another, so they queue in this order and the first is the one taken.
    const send = (i: number) => {
      if (i >= sockets.length) return;
      sockets[i]!.write(request, () => send(i + 1));
    };
    send(0);
  });
  return () => {
    for (const holder of sockets) holder.destroy();
  };
}
