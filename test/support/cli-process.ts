// Shared plumbing for the black-box acceptance tests: the built CLI as a child process, in an
// environment where nothing from the developer's shell (a real key, a real home) can leak in.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

export const REPO = resolve(import.meta.dirname, '../..');
export const CLI = join(REPO, 'dist/cli/main.js');
const run = promisify(execFile);

export function requireBuild(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
}

/** A clean environment: PATH plus a private home; nothing else may pick a real model. */
export function cliEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    HOME: home,
    ENGRAM_HOME: join(home, '.engram'),
    // Each hook in its own process, as the test expects; the hook server has its own tests.
    ENGRAM_NO_DAEMON: '1',
    ENGRAM_MANAGED_DIR: join(home, 'managed'),
    ...extra,
  };
}

export interface NodeRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run `node <args>` to completion; a non-zero exit is a result, not a throw. */
export async function runNode(
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<NodeRun> {
  try {
    const { stdout, stderr } = await run(process.execPath, args, { env, cwd });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** Run `engram <args>` from the build. */
export function runCliProcess(
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<NodeRun> {
  return runNode([CLI, ...args], env, cwd);
}

/** One temp root per test file; `fresh(name)` gives each test its own folder under it. */
export async function tempRoot(prefix: string) {
  const base = await mkdtemp(join(tmpdir(), prefix));
  return {
    base,
    async fresh(name: string): Promise<string> {
      const dir = join(base, `${name}-${Math.random().toString(36).slice(2, 8)}`);
      await mkdir(dir, { recursive: true });
      return dir;
    },
    // A detached child a test started may still be finishing a write: retry, do not fail.
    cleanup: () => rm(base, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 }),
  };
}
