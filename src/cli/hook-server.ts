/**
 * The warm hook server: a long-running process that answers the prompt hook (and session start)
 * for one engram home, one environment key and one build, so each prompt's hook process is only a
 * thin client (hook-client.ts). It runs the very same `runHookCommand` as the in-process hook, with
 * the request's cwd, environment, home folder and stdin; what it keeps warm between requests is
 * what a long-running host keeps (the header cache in memory, the tree watch, the ranker's index),
 * all of which revalidate against the files. The in-process hook stays the source of truth: any
 * doubt (another key, another build, a missing folder) and the server declines, the client runs
 * the hook itself.
 *
 * - One request at a time (the hook's code may read process.cwd(); the server chdirs to each
 *   request's folder), in arrival order; a request waits for `go` (see hook-client.ts) so a client
 *   that gave up is never served behind its back.
 * - Its door: `$ENGRAM_HOME/run/hook-<key hash>.sock` (a home too deep for a socket path uses a
 *   short folder of this user's, see `hookDoor`), mode 0600 in a 0700 folder of this uid (the
 *   kernel lets no other user connect). Bound under a temp name, chmod'ed, then renamed into
 *   place under a lock folder, so a second server racing to start finds the first and exits.
 * - It exits when idle (`ENGRAM_HOOK_SERVER_IDLE_MS`, default 5 minutes, counted from its last
 *   request or `touch`: the Stop hook touches it at the end of every turn), when its home or its
 *   socket disappears or is replaced, when the build changes, when a request reached the hook's
 *   deadline (its work may be stuck), or when the settings say `hookServer: false`.
 */
import { chmodSync, lstatSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { forgetSettingsTrust } from '../config/trust.js';
import { markHostProcess } from '../util/process-kind.js';
import { type LeanHookCall, parseLeanHookArgv } from './hook-argv.js';
import type { HookServerRequest } from './hook-client.js';
import { budgetAfterWait } from './hook-deadlines.js';
import { type HookRunReport, runHookCommand } from './hook-run.js';
import {
  hookBuildId,
  hookDoor,
  hookServerIdleMs,
  hookServerKey,
  processKeyParts,
  SERVED_EVENTS,
} from './hook-server-key.js';
import type { CliIo } from './io.js';

export interface ServeHooksOptions {
  home: string;
  /** The hook bundle this server runs: its identity is the build. */
  bundlePath: string;
  /** The CLI entry detached children are started with (`engram verify`, the stop hook). */
  mainPath: string;
  /** Called once, after the first answer is sent (the code cache's save). */
  afterFirstAnswer?: () => void;
}

/** A request whose client has not said `go` within this long is dropped. */
const GO_WAIT_MS = 5_000;
/** How often the server checks its home, socket and build are still there. */
const WATCHDOG_MS = 1_000;
/** A request larger than this (a prompt, the environment) is declined. */
const MAX_REQUEST_BYTES = 16 * 1024 * 1024;
/** A lock folder older than this was left by a server that died while starting. */
const STALE_LOCK_MS = 10_000;

interface Job {
  socket: Socket;
  request: HookServerRequest;
  /** The hook call its argv asks for, read once when the request was taken. */
  call: LeanHookCall;
  lines: AsyncIterator<string>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function send(socket: Socket, message: unknown): void {
  if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
}

/** Whether a server answers at `path` (a connection is accepted). */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    const timer = setTimeout(() => done(true), 2_000); // accepted but slow: someone is there
    const done = (yes: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(yes);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * The run folder, made 0700 if it is ours; a folder of someone else, or a link: undefined. The
 * engram home itself is never created: a home removed before the server started (a test's temp
 * home, say) must stay removed, and the server then has nothing to serve. A shared run folder
 * (`/tmp/engram-<uid>`) someone else made first is theirs: no server, every hook in-process.
 */
function ownRunDir(home: string, runDir: string, uid: number): string | undefined {
  try {
    if (!statSync(home).isDirectory()) return undefined;
    mkdirSync(runDir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
  }
  const dir = lstatSync(runDir);
  if (!dir.isDirectory() || dir.uid !== uid) return undefined;
  if ((dir.mode & 0o077) !== 0) chmodSync(runDir, 0o700);
  return runDir;
}

async function withLock<T>(lock: string, work: () => Promise<T>): Promise<T | undefined> {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      mkdirSync(lock, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
      try {
        if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) rmSync(lock, { recursive: true });
      } catch {
        // gone meanwhile: try again
      }
      await sleep(20);
      continue;
    }
    try {
      return await work();
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  return undefined;
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Lines of a socket's input, as an async iterator (the first is the request). */
function lineReader(
  socket: Socket,
): AsyncIterator<string> & { first: Promise<string | undefined> } {
  const queue: string[] = [];
  const waiting: ((line: string | undefined) => void)[] = [];
  let buffered = '';
  let ended = false;
  const push = (line: string | undefined) => {
    const next = waiting.shift();
    if (next) next(line);
    else if (line !== undefined) queue.push(line);
  };
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    if (buffered.length > MAX_REQUEST_BYTES) {
      socket.destroy();
      return;
    }
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      push(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
    }
  });
  const end = () => {
    ended = true;
    while (waiting.length > 0) waiting.shift()!(undefined);
  };
  socket.on('close', end);
  socket.on('error', end);
  const next = (): Promise<string | undefined> => {
    if (queue.length > 0) return Promise.resolve(queue.shift());
    if (ended) return Promise.resolve(undefined);
    return new Promise((resolve) => waiting.push(resolve));
  };
  return {
    first: next(),
    next: async () => {
      const line = await next();
      return line === undefined ? { done: true, value: undefined } : { done: false, value: line };
    },
  };
}

/** The hook call the server may run for this request, or why it must not. */
function acceptRequest(
  request: HookServerRequest,
  key: string,
): { call: LeanHookCall } | { reason: string } {
  if (request.key !== key) return { reason: 'another environment, build or home' };
  if (!SERVED_EVENTS.has(request.event) || !Array.isArray(request.argv))
    return { reason: 'not served' };
  const call = parseLeanHookArgv(request.argv);
  if (call === undefined || call.event !== request.event) return { reason: 'not served' };
  if (typeof request.cwd !== 'string' || typeof request.stdin !== 'string')
    return { reason: 'malformed' };
  if (typeof request.env !== 'object' || request.env === null) return { reason: 'malformed' };
  try {
    if (!statSync(request.cwd).isDirectory()) return { reason: 'its folder is not a folder' };
  } catch {
    return { reason: 'its folder is gone' };
  }
  return { call };
}

/** Run the server until it has reason to exit; resolves with the exit code. */
export async function serveHooks(options: ServeHooksOptions): Promise<number> {
  // Clients connect (and touch) while a request runs: its file calls go through the thread pool.
  markHostProcess();
  const uid = process.getuid?.() ?? -1;
  const build = hookBuildId(options.bundlePath);
  if (build === undefined || uid < 0) return 1;
  const key = hookServerKey(processKeyParts(options.home, build));
  const door = hookDoor(options.home, key, process.env, uid);
  if (door === undefined || ownRunDir(options.home, door.runDir, uid) === undefined) return 1;
  const { socketPath } = door;

  const queue: Job[] = [];
  let running = false;
  let stopping = false;
  let served = 0;
  let touched = 0;
  let idleTimer: NodeJS.Timeout | undefined;
  /** When the idle timer fires (epoch ms); undefined while a request is queued or running. */
  let idleDeadline: number | undefined;
  let watchdog: NodeJS.Timeout | undefined;
  let ino: number | undefined;
  let resolveExit!: (code: number) => void;
  const exited = new Promise<number>((r) => {
    resolveExit = r;
  });

  const server = createServer((socket) => {
    const lines = lineReader(socket);
    void lines.first.then((first) => {
      if (first === undefined) return;
      let message: { t?: string };
      try {
        message = JSON.parse(first);
      } catch {
        socket.destroy();
        return;
      }
      if (message.t === 'status') {
        send(socket, {
          t: 'status',
          pid: process.pid,
          served,
          queued: queue.length,
          running,
          touched,
          idleDeadline: idleDeadline ?? null,
        });
        socket.end();
        return;
      }
      if (message.t === 'touch') {
        // A session is still there (its Stop hook ran): the idle time starts again. A touch
        // while a request is queued or running changes nothing: the idle timer starts after it.
        if ((message as { key?: unknown }).key === key && !stopping) {
          touched++;
          if (!running && queue.length === 0) armIdle();
        }
        socket.end();
        return;
      }
      if (message.t !== 'req' || stopping) {
        send(socket, { t: 'decline', reason: stopping ? 'stopping' : 'malformed' });
        socket.end();
        return;
      }
      const request = message as HookServerRequest;
      const accepted = acceptRequest(request, key);
      if ('reason' in accepted) {
        send(socket, { t: 'decline', reason: accepted.reason });
        socket.end();
        return;
      }
      clearTimeout(idleTimer);
      idleDeadline = undefined;
      queue.push({ socket, request, call: accepted.call, lines });
      void pump();
    });
  });

  const stop = () => {
    if (stopping) return;
    stopping = true;
    clearTimeout(idleTimer);
    idleDeadline = undefined;
    clearInterval(watchdog);
    // Unlink first, so a new client finds no door and starts a server of its own.
    try {
      if (ino !== undefined && lstatSync(socketPath).ino === ino) rmSync(socketPath);
    } catch {
      // gone already
    }
    server.close();
    for (const job of queue.splice(0)) {
      send(job.socket, { t: 'decline', reason: 'stopping' });
      job.socket.end();
    }
    if (!running) resolveExit(0);
  };

  const armIdle = () => {
    clearTimeout(idleTimer);
    const idleMs = hookServerIdleMs(process.env);
    idleDeadline = Date.now() + idleMs;
    idleTimer = setTimeout(stop, idleMs);
  };

  async function pump(): Promise<void> {
    if (running) return;
    running = true;
    try {
      while (queue.length > 0 && !stopping) {
        const job = queue.shift()!;
        await serve(job);
      }
    } finally {
      running = false;
    }
    if (stopping) resolveExit(0);
    else armIdle();
  }

  async function serve(job: Job): Promise<void> {
    const { socket, request, call, lines } = job;
    if (socket.destroyed) return;
    try {
      process.chdir(request.cwd);
    } catch {
      send(socket, { t: 'decline', reason: 'its folder is gone' });
      socket.end();
      return;
    }
    send(socket, { t: 'ready' });
    const go = await Promise.race([lines.next(), sleep(GO_WAIT_MS).then(() => undefined)]);
    if (go === undefined || go.done) {
      socket.destroy();
      return;
    }
    let waitedMs = 0;
    try {
      const message = JSON.parse(go.value) as { t?: string; waitedMs?: number };
      if (message.t !== 'go') throw new Error('not go');
      waitedMs = Math.max(0, Math.floor(Number(message.waitedMs) || 0));
    } catch {
      socket.destroy();
      return;
    }
    // Time the client spent waiting for its turn comes off the prompt's budget, as it would in
    // the client's own fallback.
    const opts = budgetAfterWait(call.event, call.options, waitedMs);
    const stdout: string[] = [];
    const stderr: string[] = [];
    const io: CliIo = {
      cwd: request.cwd,
      env: request.env,
      homedir: request.homedir,
      stdout: (text) => stdout.push(text),
      stderr: (text) => stderr.push(text),
      stdinIsTty: request.stdinIsTty === true,
      readStdin: async () => request.stdin,
      cliEntry: options.mainPath,
    };
    forgetSettingsTrust();
    const report: HookRunReport = {};
    const code = await runHookCommand(call.event, io, opts, report);
    served++;
    send(socket, { t: 'done', stdout: stdout.join(''), stderr: stderr.join(''), code });
    socket.end();
    if (served === 1) options.afterFirstAnswer?.();
    // Work past its deadline may still be running, and a turned-off setting means go away.
    if (report.deadline || report.hookServerAllowed === false) stop();
  }

  const claimed = await withLock(`${socketPath}.lock`, async () => {
    if (await answers(socketPath)) return false;
    const temp = `${socketPath}.${process.pid}`;
    rmSync(socketPath, { force: true });
    rmSync(temp, { force: true });
    await listen(server, temp);
    chmodSync(temp, 0o600);
    renameSync(temp, socketPath);
    ino = lstatSync(socketPath).ino;
    return true;
  }).catch(() => false);
  if (claimed !== true) {
    server.close();
    return 0;
  }

  watchdog = setInterval(() => {
    try {
      if (lstatSync(socketPath).ino !== ino) return stop();
      if (!statSync(options.home).isDirectory()) return stop();
      if (hookBuildId(options.bundlePath) !== build) return stop();
    } catch {
      stop();
    }
  }, WATCHDOG_MS);
  armIdle();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  return exited;
}
