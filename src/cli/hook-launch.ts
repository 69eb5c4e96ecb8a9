/**
 * One hook call from a fresh process, as both entries run it (`main.js` and the lean `hook.cjs`):
 * ask the warm hook server (hook-server.ts) when there is one for this home, environment and
 * build; otherwise, or if it cannot answer, run the hook in this process exactly as before and
 * start a server for the next turns. The in-process run is the source of truth; the server runs
 * the same code, so the answer is the same either way.
 *
 * `ENGRAM_NO_DAEMON=1` (or `"hookServer": false` in engram settings) keeps every hook in-process.
 * On the served path this file loads node:fs, node:path and node:net only (each module Node loads
 * is a measurable part of a process this short): node:os, node:tty, the process's own stdio
 * streams and the hook's code load only when they are needed, that is when the hook runs here.
 */
import { fstatSync, readdirSync, readSync, writeSync } from 'node:fs';
import type { LeanHookCall } from './hook-argv.js';
import { askHookServer, type HookClientOutcome, touchHookServer } from './hook-client.js';
import {
  budgetAfterWait,
  hookDeadlineMs,
  hookDeadlineText,
  promptBudgetMs,
} from './hook-deadlines.js';
import type { HookRunReport, runHookCommand as RunHookCommand } from './hook-run.js';
import type { serveHooks as ServeHooks } from './hook-server.js';
import {
  engramHomeFrom,
  type HookDoor,
  hookBuildId,
  hookDoor,
  hookDoorProblem,
  hookServerKey,
  hookServerOff,
  MAX_SERVERS_PER_HOME,
  processKeyParts,
  SERVED_EVENTS,
} from './hook-server-key.js';
import type { CliIo } from './io.js';

export interface HookRunner {
  runHookCommand: typeof RunHookCommand;
  serveHooks?: typeof ServeHooks;
  /** Tell the runner's modules that this process runs one hook and exits (util/process-kind.ts). */
  markOneShotProcess?: () => void;
  /** Save V8's code cache of the runner (after it ran). */
  saveCache(): void;
}

export interface HookEntry {
  /** This entry's own file: a server is started with it. */
  selfPath: string;
  /** The CLI (`dist/cli/main.js`): detached children run it. */
  mainPath: string;
  /** The runner bundle (`dist/cli/bundle/hook.cjs`); its identity is the build. */
  bundlePath: string;
  loadRunner(home: string): Promise<HookRunner>;
}

export { PROMPT_BUDGET_MS } from './hook-deadlines.js';

/** The longest a client waits for a busy server to take its request. */
const MAX_READY_WAIT_MS = 1_000;

/**
 * The longest the Stop hook waits for the kernel to accept its touch. A listening server accepts
 * at once whatever it is doing (the kernel queues the connection); only a full backlog waits.
 */
const TOUCH_CONNECT_WAIT_MS = 100;

async function runInProcess(
  call: LeanHookCall,
  io: CliIo,
  entry: HookEntry,
  home: string,
  report: HookRunReport = {},
): Promise<number> {
  const runner = await entry.loadRunner(home);
  // One hook, then exit: no loop to keep turning, so its file calls skip the thread pool.
  runner.markOneShotProcess?.();
  const code = await runner.runHookCommand(call.event, io, call.options, report);
  // After the answer is out: the bytecode now holds every function this hook ran.
  runner.saveCache();
  return code;
}

/** Start a server for `home` in the background, unless the home already has its fill of them. */
async function startServer(entry: HookEntry, home: string, door: HookDoor): Promise<void> {
  try {
    const ours = (n: string) =>
      n.startsWith(door.siblingPrefix) &&
      /^[0-9a-f]+\.sock$/.test(n.slice(door.siblingPrefix.length));
    if (readdirSync(door.runDir).filter(ours).length >= MAX_SERVERS_PER_HOME) return;
  } catch {
    // no run folder yet: the server makes it
  }
  try {
    const { spawn } = await import('node:child_process');
    const child = spawn(
      process.execPath,
      [...process.execArgv, entry.selfPath, 'hook-server', home],
      // Not in the session's folder: a server must not keep a removed worktree busy.
      { cwd: '/', detached: true, stdio: 'ignore', env: process.env },
    );
    child.once('error', () => undefined); // best effort: the next turn runs in-process again
    child.unref();
  } catch {
    // best effort, as above
  }
}

/** The process's own io, for a hook that runs here: making it creates stdin's stream. */
async function processIoFor(entry: HookEntry): Promise<CliIo> {
  const { processIo } = await import('./io.js');
  // A reader that closed the pipe early made that choice; it is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  return { ...processIo(), cliEntry: entry.mainPath };
}

/**
 * The user's home folder as `os.homedir()` gives it: `$HOME` when set (libuv reads it first), so
 * the served path need not load node:os for it.
 */
async function userHomedir(env: NodeJS.ProcessEnv): Promise<string> {
  return env.HOME || (await import('node:os')).homedir();
}

/**
 * Whether stdin is a terminal, as `isatty(0)` says: only a character device can be one, so a
 * pipe or a file (how Claude Code hands a hook its input) needs no node:tty.
 */
async function stdinIsTerminal(): Promise<boolean> {
  try {
    if (!fstatSync(0).isCharacterDevice()) return false;
  } catch {
    return false; // no descriptor 0: not a terminal either
  }
  return (await import('node:tty')).isatty(0);
}

/**
 * All of stdin, read from its descriptor with blocking reads (cheaper than making process.stdin's
 * stream, which the served path otherwise never needs); a descriptor that cannot be read so (a
 * non-blocking pipe) is read through the stream, after what was already read.
 */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  const buffer = Buffer.allocUnsafe(64 * 1024);
  try {
    for (let n = readSync(0, buffer); n > 0; n = readSync(0, buffer)) {
      chunks.push(Buffer.from(buffer.subarray(0, n)));
    }
  } catch {
    const head = Buffer.concat(chunks).toString('utf8');
    const { processIo } = await import('./io.js');
    return processIo()
      .readStdin()
      .then(
        (rest) => head + rest,
        () => head,
      );
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Write `text` to a descriptor whole (through the stream if the descriptor is non-blocking). */
function writeAll(fd: 1 | 2, text: string): void {
  if (text === '') return;
  const bytes = Buffer.from(text, 'utf8');
  let offset = 0;
  try {
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EAGAIN') {
      (fd === 1 ? process.stdout : process.stderr).write(bytes.subarray(offset));
    } // EPIPE: the reader closed the pipe early; that is its choice, not an error
  }
}

/** Run one hook call; resolves with the exit status. */
export async function launchHook(
  call: LeanHookCall,
  argv: readonly string[],
  entry: HookEntry,
): Promise<number> {
  const env = process.env;
  const cwd = process.cwd();
  const homedir = await userHomedir(env);
  const home = engramHomeFrom(env, cwd, homedir);
  const build = hookBuildId(entry.bundlePath);
  const uid = process.getuid?.() ?? -1;
  const key = build === undefined ? undefined : hookServerKey(processKeyParts(home, build));
  const door = key === undefined || uid < 0 ? undefined : hookDoor(home, key, env, uid);
  if (hookServerOff(env) || key === undefined || door === undefined) {
    return runInProcess(call, await processIoFor(entry), entry, home);
  }
  if (call.event === 'stop' && call.options.wait !== true && call.options.input === undefined) {
    return stopAndKeepWarm(call, entry, home, key, door, uid);
  }
  if (!SERVED_EVENTS.has(call.event)) {
    return runInProcess(call, await processIoFor(entry), entry, home);
  }

  const stdinIsTty = await stdinIsTerminal();
  const stdin = call.options.input === undefined && !stdinIsTty ? await readStdin() : '';
  const started = Date.now();
  const budget = call.event === 'user-prompt-submit' ? promptBudgetMs(call.options) : undefined;
  const deadlineMs = hookDeadlineMs(call.event, call.options, env);
  const problem = hookDoorProblem(door.runDir, door.socketPath, uid);
  const outcome: HookClientOutcome =
    problem !== undefined
      ? { kind: 'fallback', reason: problem.text, busy: false }
      : await askHookServer(
          door.socketPath,
          {
            t: 'req',
            key,
            event: call.event,
            argv: [...argv],
            cwd,
            homedir,
            env,
            stdin,
            stdinIsTty,
          },
          {
            readyWaitMs: Math.min(MAX_READY_WAIT_MS, Math.floor((budget ?? 4_000) / 4)),
            answerWaitMs: deadlineMs + 2_000,
            now: Date.now,
          },
        );
  if (outcome.kind === 'served') {
    writeAll(1, outcome.stdout);
    writeAll(2, outcome.stderr);
    return outcome.code;
  }
  if (outcome.kind === 'deadline') {
    // The server took the request and never answered: the hook's own deadline answer.
    writeAll(1, '{}\n');
    writeAll(2, hookDeadlineText(call.event, deadlineMs));
    return 1;
  }
  const io: CliIo = { ...(await processIoFor(entry)), stdinIsTty, readStdin: async () => stdin };
  // Time spent waiting on the server comes off the prompt's budget.
  const options = budgetAfterWait(call.event, call.options, Date.now() - started);
  const report: HookRunReport = {};
  const code = await runInProcess({ ...call, options }, io, entry, home, report);
  // A busy server is there already; a door of another user's is not ours to replace (a loose one
  // is: a new server makes the folder 0700 again and finds the old one, or replaces its socket).
  const ours = problem?.kind !== 'foreign';
  if (!outcome.busy && ours && report.hookServerAllowed !== false) {
    await startServer(entry, home, door);
  }
  return code;
}

/**
 * The Stop hook as Claude Code runs it at the end of every assistant turn (in-process: it hands
 * its extraction to a detached process), then a touch of the warm hook server: the next prompt
 * comes right after this, however long the turn was, so the server's idle time starts again here
 * (a turn longer than the idle time no longer leaves the next prompt to a cold in-process hook).
 * No server at the door: one is started for that prompt, as a prompt hook that found none does.
 * The touch never waits on the server (see `touchHookServer`); `"hookServer": false` in settings
 * neither touches nor starts one.
 */
async function stopAndKeepWarm(
  call: LeanHookCall,
  entry: HookEntry,
  home: string,
  key: string,
  door: HookDoor,
  uid: number,
): Promise<number> {
  const report: HookRunReport = {};
  const code = await runInProcess(call, await processIoFor(entry), entry, home, report);
  if (report.hookServerAllowed === false) return code;
  // A door that is not yet trusted gets no message, as it gets no request: a missing or loose one
  // a new server (re)makes, another user's is left alone.
  const problem = hookDoorProblem(door.runDir, door.socketPath, uid);
  const touch =
    problem === undefined
      ? await touchHookServer(door.socketPath, key, TOUCH_CONNECT_WAIT_MS)
      : problem.kind === 'foreign'
        ? 'unknown'
        : 'absent';
  if (touch === 'absent') await startServer(entry, home, door);
  return code;
}

/** `<entry> hook-server <home>`: run the warm hook server until it exits. */
export async function serveFromEntry(home: string, entry: HookEntry): Promise<number> {
  const runner = await entry.loadRunner(home);
  if (runner.serveHooks === undefined) return 1;
  return runner.serveHooks({
    home,
    bundlePath: entry.bundlePath,
    mainPath: entry.mainPath,
    // After the first answer, so the code cache holds what a hook runs (when there was none).
    afterFirstAnswer: runner.saveCache,
  });
}
