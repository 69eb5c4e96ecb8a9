// Shared setup for the memory-directory CLI tests. Importing it registers this setup's vitest hooks for the importing file.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll } from 'vitest';

/**
 * Black-box tests of package, memory directory, `engram` CLI, written from the issue
 * text alone: the built CLI runs as a real child process with a throwaway HOME, ENGRAM_HOME and
 * managed dir, and the library is imported through the package's public entry points.
 */

export const ROOT = join(import.meta.dirname, '..', '..');
export const CLI = join(ROOT, 'dist', 'cli', 'main.js');
export const WRITER = join(import.meta.dirname, '..', 'fixtures', 'memory-writer.mjs');

beforeAll(() => {
  if (!existsSync(CLI) || !existsSync(join(ROOT, 'dist', 'memdir', 'index.js'))) {
    throw new Error('Acceptance tests drive the built package: run `npm run build` first.');
  }
});

export interface Sandbox {
  root: string;
  home: string;
  engramHome: string;
  managed: string;
  env: NodeJS.ProcessEnv;
}

export function sandbox(): Sandbox {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'engram-acc2-')));
  const home = join(root, 'home');
  const engramHome = join(root, 'engram-home');
  const managed = join(root, 'managed');
  for (const d of [home, engramHome, managed]) mkdirSync(d, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('ENGRAM_')) delete env[key];
  Object.assign(env, {
    HOME: home,
    USERPROFILE: home,
    ENGRAM_HOME: engramHome,
    ENGRAM_MANAGED_DIR: managed,
  });
  return { root, home, engramHome, managed, env };
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function engram(
  s: Sandbox,
  args: string[],
  opts: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv } = {},
): Run {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: opts.cwd ?? s.root,
    env: { ...s.env, ...opts.env },
    input: opts.input ?? '',
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The same, without blocking: for runs that may go side by side. */
export function engramAsync(s: Sandbox, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: s.root,
      env: { ...s.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export function json<T = Record<string, unknown>>(r: Run): T {
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  }
}

export function gitRepo(path: string): string {
  mkdirSync(path, { recursive: true });
  const r = spawnSync('git', ['init', '-q', path]);
  if (r.status !== 0) mkdirSync(join(path, '.git'), { recursive: true });
  return path;
}

export function memoryFile(
  dir: string,
  file: string,
  fm: Record<string, string>,
  body: string,
  mtimeSec?: number,
) {
  const head = Object.entries(fm)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
  writeFileSync(join(dir, file), `---\n${head}\n---\n${body}`);
  if (mtimeSec !== undefined) utimesSync(join(dir, file), mtimeSec, mtimeSec);
}

export function mdFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.md') && f !== 'MEMORY.md' && !f.startsWith('.'))
    .sort();
}

export const POINTER = /^- \[[^\]]*\]\(([^)]+)\)/;
export function indexTargets(dir: string): string[] {
  const path = join(dir, 'MEMORY.md');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((l) => POINTER.exec(l)?.[1])
    .filter((x): x is string => x !== undefined)
    .map((t) => decodeURIComponent(t));
}

export function writer(dir: string, name: string, count: string): ChildProcess {
  return spawn(process.execPath, [WRITER, dir, name, count], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}
