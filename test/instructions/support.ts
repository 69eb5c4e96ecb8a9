// Shared setup for the instruction-file CLI tests. Importing it registers this setup's vitest hooks for the importing file.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeAll } from 'vitest';

/**
 * Black-box tests of L0 instruction files, written from the documented behaviour: real
 * directory trees in temp folders, the built CLI as a child process with a throwaway HOME,
 * ENGRAM_HOME and managed dir, and the library through `engram/instructions`.
 */

export const ROOT = join(import.meta.dirname, '..', '..');
export const CLI = join(ROOT, 'dist', 'cli', 'main.js');

beforeAll(() => {
  if (!existsSync(CLI) || !existsSync(join(ROOT, 'dist', 'instructions', 'index.js'))) {
    throw new Error('Acceptance tests drive the built package: run `npm run build` first.');
  }
});

export interface Sandbox {
  root: string;
  home: string;
  engramHome: string;
  managed: string;
  env: NodeJS.ProcessEnv;
  write: (rel: string, text: string) => string;
}

export function sandbox(): Sandbox {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'engram-acc3-')));
  const home = join(root, 'home');
  const engramHome = join(root, 'engram-home');
  const managed = join(root, 'managed');
  for (const d of [home, engramHome, managed]) mkdirSync(d, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('ENGRAM_')) delete env[key];
  Object.assign(env, { HOME: home, ENGRAM_HOME: engramHome, ENGRAM_MANAGED_DIR: managed });
  const write = (rel: string, text: string) => {
    const path = join(root, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    return path;
  };
  return { root, home, engramHome, managed, env, write };
}

export interface FileJson {
  path: string;
  type: string;
  parent: string | null;
  globs: string[] | null;
  size: number;
  chars: number;
  tooLarge: boolean;
  contentDiffersFromDisk: boolean;
  content: string;
}
export interface Out {
  files: FileJson[];
  conditionalRules: FileJson[];
  prompt: string;
  reports: Array<{ kind: string; severity: string; path: string; message: string }>;
}

export function instructions(s: Sandbox, cwd: string, extra: string[] = []) {
  const r = spawnSync(process.execPath, [CLI, 'instructions', '--cwd', cwd, ...extra], {
    cwd: s.root,
    env: s.env,
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export function json(s: Sandbox, cwd: string, extra: string[] = []): Out {
  const r = instructions(s, cwd, ['--json', ...extra]);
  if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as Out;
}

/** Paths relative to the sandbox (files elsewhere on the machine are not ours to judge). */
export function rel(s: Sandbox, files: FileJson[]): string[] {
  return files.filter((f) => f.path.startsWith(s.root)).map((f) => f.path.slice(s.root.length + 1));
}
