/**
 * The hook's client side of the warm hook server (hook-server.ts): send one request over the
 * server's Unix socket and wait for its answer. Newline-delimited JSON both ways:
 *
 *   client → `req` (event, argv, cwd, env, stdin, key)
 *   server → `ready` when the request is next (or `decline`, and the client runs the hook itself)
 *   client → `go` (it still wants the answer: from here on it never runs the hook itself)
 *   server → `done` (the hook's stdout, stderr and exit code)
 *
 * `go` is the commit point: before it the server has done nothing for this request, so a client
 * that stops waiting for `ready` (its budget ran out while another request was served) runs the
 * hook itself and the server never runs it. After `go` the client waits for `done` up to the
 * hook's deadline (past it: the deadline's answer, and the hook is not run again). A server that
 * goes away after `go` without answering (it crashed, or was killed) may have run part or all of
 * the hook: the client then runs it itself, because an answer the session never saw helps no one;
 * what the lost run wrote (a recall log line, a notice) may then be there twice. It loads node:net
 * only.
 */
import { connect, type Socket } from 'node:net';

export interface HookServerRequest {
  t: 'req';
  key: string;
  event: string;
  argv: string[];
  cwd: string;
  homedir: string;
  env: Record<string, string | undefined>;
  stdin: string;
  stdinIsTty: boolean;
}

export interface HookServerAnswer {
  stdout: string;
  stderr: string;
  code: number;
}

export type HookClientOutcome =
  | ({ kind: 'served' } & HookServerAnswer)
  /** Committed, and no answer came before the hook's deadline. */
  | { kind: 'deadline' }
  /**
   * Run the hook in-process. `busy`: a server is there but did not take the request in time;
   * otherwise (no server, a stale one, it declined or died) a new one may be started.
   */
  | { kind: 'fallback'; reason: string; busy: boolean };

export interface AskOptions {
  /** How long to wait for `ready` before running the hook in-process. */
  readyWaitMs: number;
  /** How long to wait for `done` once committed (past it: the hook's deadline answer). */
  answerWaitMs: number;
  /** Time already spent waiting before `go`, for the server to take off the budget. */
  now: () => number;
}

/** Ask the server at `socketPath`. Never throws. */
export function askHookServer(
  socketPath: string,
  request: HookServerRequest,
  options: AskOptions,
): Promise<HookClientOutcome> {
  return new Promise((resolve) => {
    const started = options.now();
    let committed = false;
    let settled = false;
    let buffered = '';
    let timer: NodeJS.Timeout | undefined;
    const socket: Socket = connect(socketPath);
    const finish = (outcome: HookClientOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // With an answer the process ends: the socket closes with it. (Destroying it would also
      // make Node build process.stderr's stream, only to check the socket is not that stream.)
      if (outcome.kind === 'fallback') socket.destroy();
      else socket.unref();
      resolve(outcome);
    };
    const fallback = (reason: string, busy = false) => finish({ kind: 'fallback', reason, busy });
    const wait = (ms: number, onTimeout: () => void) => {
      clearTimeout(timer);
      timer = setTimeout(onTimeout, ms);
    };
    wait(options.readyWaitMs, () => fallback('the server did not take the request in time', true));
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on('error', (error: NodeJS.ErrnoException) => fallback(error.code ?? error.message));
    socket.on('close', () => fallback(committed ? 'the server went away' : 'closed'));
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        let message: { t?: string; reason?: string } & Partial<HookServerAnswer>;
        try {
          message = JSON.parse(line);
        } catch {
          fallback('unreadable answer');
          return;
        }
        if (message.t === 'ready' && !committed) {
          committed = true;
          socket.write(`${JSON.stringify({ t: 'go', waitedMs: options.now() - started })}\n`);
          wait(options.answerWaitMs, () => finish({ kind: 'deadline' }));
        } else if (message.t === 'done' && committed) {
          const { stdout, stderr, code } = message;
          if (typeof stdout !== 'string' || typeof stderr !== 'string' || typeof code !== 'number')
            fallback('unreadable answer');
          else finish({ kind: 'served', stdout, stderr, code });
        } else if (message.t === 'decline' && !committed) {
          fallback(`declined: ${message.reason ?? ''}`);
        } else fallback('unexpected message');
      }
    });
  });
}

/**
 * What a touch found: a server took the connection (`touched`; its idle deadline moves when it
 * reads the message), nothing listens at the door (`absent`: one may be started), or neither in
 * time (`unknown`: a server may be there, too busy to accept; leave it be).
 */
export type HookTouchOutcome = 'touched' | 'absent' | 'unknown';

/** Connection errors that mean no server is listening at the door. */
const NO_SERVER = new Set(['ENOENT', 'ECONNREFUSED']);

/**
 * Tell the server at `socketPath` a session is still there, so its idle deadline starts again
 * (the Stop hook sends it at the end of every assistant turn, right before the next prompt).
 * Never waits on the server: the message is written once the kernel accepts the connection and
 * nothing is read back, so a server busy serving another request costs this caller nothing; at
 * most `connectWaitMs` for the connection itself. Never throws.
 */
export function touchHookServer(
  socketPath: string,
  key: string,
  connectWaitMs: number,
): Promise<HookTouchOutcome> {
  return new Promise((resolve) => {
    let settled = false;
    const socket: Socket = connect(socketPath);
    const finish = (outcome: HookTouchOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (outcome === 'unknown') socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish('unknown'), connectWaitMs);
    socket.on('connect', () => {
      // Sent and closed; the process may exit before the server reads it (the kernel holds it).
      socket.end(`${JSON.stringify({ t: 'touch', key })}\n`);
      socket.unref();
      finish('touched');
    });
    socket.on('error', (error: NodeJS.ErrnoException) =>
      finish(NO_SERVER.has(error.code ?? '') ? 'absent' : 'unknown'),
    );
  });
}
