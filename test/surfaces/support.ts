// Shared setup for the surface tests (memory tool, MCP, hooks, facade). Importing it registers this setup's vitest hooks for the importing file.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/**
 * Black-box tests of surfaces, black box: the built CLI as child processes (MCP over real
 * stdio with the official SDK client, Claude Code hooks fed the reference JSON shapes), the memory
 * tool handler through the SDK's own `betaMemoryTool`, the facade and the transcript reader from the
 * published entry points, and the example agent over three sessions. Data: a Go/Kubernetes project.
 */

export const MAIN = resolve(import.meta.dirname, '../../dist/cli/main.js');

export let root: string;
export let env: NodeJS.ProcessEnv;

export function run(
  args: string[],
  options: { stdin?: string; cwd?: string; extraEnv?: NodeJS.ProcessEnv } = {},
) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    const child = execFile(
      process.execPath,
      [MAIN, ...args],
      { env: { ...env, ...options.extraEnv }, cwd: options.cwd ?? root },
      (error, stdout, stderr) =>
        done({
          code: error ? Number(error.code ?? 1) : 0,
          stdout,
          stderr,
        }),
    );
    child.stdin?.end(options.stdin ?? '');
  });
}

beforeAll(async () => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first`);
  root = await mkdtemp(join(tmpdir(), 'engram-acc9-'));
  env = {
    PATH: process.env.PATH,
    HOME: join(root, 'home'),
    ENGRAM_HOME: join(root, 'engram-home'),
    // Each hook in its own process, as the test expects; the hook server has its own tests.
    ENGRAM_NO_DAEMON: '1',
    ENGRAM_MANAGED_DIR: join(root, 'managed'),
  };
  mkdirSync(env.HOME!, { recursive: true });
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

export const KUBE_MEMORY = `---
name: Deploys go through the canary namespace
description: kubernetes deploys of the billing service must go to the canary namespace first
type: feedback
---
Always roll the billing service out to the \`billing-canary\` namespace before \`billing-prod\`.
**Why:** a direct prod rollout in May dropped 3% of invoices during a schema change.
**How to apply:** any kubectl apply, helm upgrade or deploy script touching billing.
`;

// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
