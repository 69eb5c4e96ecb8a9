/**
 * What a hook client and the warm hook server (hook-server.ts) must agree on before a request may
 * cross: the events served, the server's key (engram home, build, Node and the environment values
 * the hook's code reads from the process itself), where its socket lives, and who owns it. Both
 * sides compute the same key from the same inputs; a server only ever answers requests whose key
 * is its own, so an answer is the one the in-process hook would give.
 *
 * This file is on the client's path, which must cost little more than Node's own start-up: it
 * imports node:fs and node:path only.
 */
import { lstatSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { shortHash } from '../util/short-hash.js';

export { engramHomeFrom } from '../config/engram-home.js';

/** Bumped when a message changes shape: it is part of the key, so old and new never talk. */
export const HOOK_SERVER_PROTOCOL = 1;

/**
 * The events the server answers; Stop and PreCompact (model calls, detached work) stay in-process
 * (Stop then only touches the server, see `touchHookServer`).
 */
export const SERVED_EVENTS: ReadonlySet<string> = new Set(['user-prompt-submit', 'session-start']);

/** How long a server waits for its next request before it exits. */
export const DEFAULT_IDLE_MS = 5 * 60_000;

/** Servers one engram home may have at once (one per environment key and build). */
export const MAX_SERVERS_PER_HOME = 4;

/**
 * Unix socket paths are limited to 108 bytes with the terminator; the server binds a temp name
 * 16 bytes longer first. A home deeper than that has its socket in a short folder of this user's
 * instead (see `hookDoor`).
 */
const MAX_SOCKET_PATH = 90;

/** `ENGRAM_NO_DAEMON=1`: never use or start a hook server. */
export function hookServerOff(env: Record<string, string | undefined>): boolean {
  return env.ENGRAM_NO_DAEMON === '1';
}

/** The server's idle time: `ENGRAM_HOOK_SERVER_IDLE_MS`, else five minutes. Pure. */
export function hookServerIdleMs(env: Record<string, string | undefined>): number {
  const value = Number(env.ENGRAM_HOOK_SERVER_IDLE_MS);
  return Number.isInteger(value) && value > 0 ? value : DEFAULT_IDLE_MS;
}

/**
 * The build a server runs: the hook bundle's identity (path, size, mtime, ctime, inode; a rebuild
 * or reinstall changes its ctime). Undefined without a bundle: then there is no server.
 */
export function hookBuildId(bundlePath: string): string | undefined {
  try {
    const s = statSync(bundlePath);
    return `${bundlePath}\0${s.size}\0${s.mtimeMs}\0${s.ctimeMs}\0${s.ino}\0${s.dev}`;
  } catch {
    return undefined;
  }
}

/**
 * Environment variables the hook's code, or a program it runs (git), may read from the process
 * rather than from the environment it is handed: a server started with other values could answer
 * differently, so they are all in the key. Every other variable travels with each request and is
 * the environment the hook runs with.
 */
const PROCESS_ENV_PREFIXES = [
  'ENGRAM_',
  'CLAUDE_',
  'ANTHROPIC_',
  'OPENAI_',
  'GIT_',
  'XDG_',
  'LC_',
  'NODE_',
  'UV_',
  'SSL_',
];
const PROCESS_ENV_NAMES = new Set([
  'HOME',
  'PATH',
  'TZ',
  'LANG',
  'LANGUAGE',
  'USER',
  'LOGNAME',
  'SHELL',
  'TMPDIR',
  'TMP',
  'TEMP',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'all_proxy',
  'PREFIX',
  'EMAIL',
]);

/**
 * Claude Code's variables of one claude process or one session (and CLAUDE_ENV_FILE, which only
 * SessionStart gets). engram never reads them; each request still carries them to the hook. Keyed,
 * they gave every session, and a session's SessionStart apart from its prompts, a server of its own:
 * a session's first prompt never found the server its SessionStart had started, and two sessions
 * filled the home's servers.
 */
const PER_SESSION_NAMES = new Set([
  'CLAUDE_ENV_FILE',
  'CLAUDE_PID',
  'CLAUDE_CODE_SESSION_ID',
  'CLAUDE_CODE_MESSAGING_SOCKET',
  'CLAUDE_CODE_MESSAGING_TOKEN',
  'CLAUDE_CODE_CHILD_NOTES_DIR',
  'CLAUDE_CODE_SSE_PORT',
]);

/** The variables of `env` that go into the key, sorted by name. Pure. */
export function keyedEnv(env: Record<string, string | undefined>): [string, string][] {
  const out: [string, string][] = [];
  for (const name of Object.keys(env).sort()) {
    const value = env[name];
    if (value === undefined || PER_SESSION_NAMES.has(name)) continue;
    if (PROCESS_ENV_NAMES.has(name) || PROCESS_ENV_PREFIXES.some((p) => name.startsWith(p))) {
      out.push([name, value]);
    }
  }
  return out;
}

export interface HookServerKeyParts {
  home: string;
  build: string;
  env: Record<string, string | undefined>;
  execPath: string;
  nodeVersion: string;
  execArgv: readonly string[];
  uid: number;
}

/** The full key text a server compares each request's with (the socket's name is its hash). Pure. */
export function hookServerKey(parts: HookServerKeyParts): string {
  return JSON.stringify([
    HOOK_SERVER_PROTOCOL,
    parts.home,
    parts.build,
    parts.execPath,
    parts.nodeVersion,
    parts.execArgv,
    parts.uid,
    keyedEnv(parts.env),
  ]);
}

/** This process's key parts: what a client sends and what a server started by it computes. */
export function processKeyParts(home: string, build: string): HookServerKeyParts {
  return {
    home,
    build,
    env: process.env,
    execPath: process.execPath,
    nodeVersion: process.version,
    execArgv: process.execArgv,
    uid: process.getuid?.() ?? -1,
  };
}

/** The home's own run folder, where its servers' sockets live when the path is short enough. */
export function hookRunDir(home: string): string {
  return join(home, 'run');
}

/** Where a server's socket lives, and how its siblings (the same home's other servers) are named. */
export interface HookDoor {
  /** The folder: 0700, this user's; the home's `run` folder, or a short shared one. */
  runDir: string;
  socketPath: string;
  /** Socket names in `runDir` that start with this belong to the same home. */
  siblingPrefix: string;
}

/**
 * The door of the server for `key` (which holds the home). Under `<home>/run` when the path fits
 * a Unix socket; otherwise under `$XDG_RUNTIME_DIR/engram` (a folder only this user can enter,
 * by the XDG spec) or `/tmp/engram-<uid>`, named after the home's and the key's hashes, so a
 * deep home still gets a server. Undefined when no candidate fits. Pure.
 */
export function hookDoor(
  home: string,
  key: string,
  env: Readonly<Record<string, string | undefined>>,
  uid: number,
): HookDoor | undefined {
  const keyHash = shortHash(key);
  const own = join(hookRunDir(home), `hook-${keyHash}.sock`);
  if (own.length <= MAX_SOCKET_PATH) {
    return { runDir: hookRunDir(home), socketPath: own, siblingPrefix: 'hook-' };
  }
  const siblingPrefix = `hook-${shortHash(home)}-`;
  const runtime = env.XDG_RUNTIME_DIR;
  const shared = [
    // Only an absolute XDG folder: a relative one would move with each request's cwd.
    ...(runtime?.startsWith('/') ? [join(runtime, 'engram')] : []),
    `/tmp/engram-${uid}`,
  ];
  for (const runDir of shared) {
    const socketPath = join(runDir, `${siblingPrefix}${keyHash}.sock`);
    if (socketPath.length <= MAX_SOCKET_PATH) return { runDir, socketPath, siblingPrefix };
  }
  return undefined;
}

export interface DoorProblem {
  /** `missing`: no server; `loose`: ours but open to others (a server makes it 0700 again); `foreign`: not ours. */
  kind: 'missing' | 'loose' | 'foreign';
  text: string;
}

/**
 * Why the socket must not be trusted as the server's door, or undefined when it may: the run
 * folder must be a real folder (not a link) of this uid that no one else can enter, the socket a
 * socket of this uid that no one else can open.
 */
export function hookDoorProblem(
  runDir: string,
  socketPath: string,
  uid: number,
): DoorProblem | undefined {
  try {
    const dir = lstatSync(runDir);
    if (!dir.isDirectory()) return { kind: 'foreign', text: `${runDir} is not a folder` };
    if (dir.uid !== uid) return { kind: 'foreign', text: `${runDir} belongs to another user` };
    if ((dir.mode & 0o077) !== 0)
      return { kind: 'loose', text: `${runDir} is open to other users` };
    const socket = lstatSync(socketPath);
    if (!socket.isSocket()) return { kind: 'foreign', text: `${socketPath} is not a socket` };
    if (socket.uid !== uid)
      return { kind: 'foreign', text: `${socketPath} belongs to another user` };
    if ((socket.mode & 0o077) !== 0)
      return { kind: 'loose', text: `${socketPath} is open to other users` };
    return undefined;
  } catch {
    return { kind: 'missing', text: 'no server' };
  }
}
