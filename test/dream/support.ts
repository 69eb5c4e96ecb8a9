// Shared setup for the consolidation tests (scripted model server). Importing it registers this setup's vitest hooks for the importing file.
import { spawn } from 'node:child_process';
import { stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CONSOLIDATION_LOCK_FILE, type SessionLister, type SessionRef } from 'engram/dream';
import { type ScriptedModelServer, startScriptedModelServer } from 'engram/test';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { CLI, requireBuild, runCliProcess, tempRoot } from '../support/cli-process.js';

/**
 * Black-box tests of consolidation, written from the documented behaviour: `maybeDream` and the lock
 * from the public entry, the REAL Anthropic SDK against the scripted model server, and
 * `engram dream` as a child process (two of them racing, one interrupted).
 */

export const HOUR = 3_600_000;
/** A PID no process has (above Linux's pid_max default of 4,194,304). */
export const DEAD_PID = 4_194_000 + Math.floor(Math.random() * 300);

export let temp: Awaited<ReturnType<typeof tempRoot>>;
let server: ScriptedModelServer;

beforeAll(async () => {
  requireBuild();
  temp = await tempRoot('engram-acc8-');
});
afterAll(() => temp.cleanup());
afterEach(async () => {
  await server?.close();
});

export const fresh = (name: string) => temp.fresh(name);
export const cli = runCliProcess;

/** A lister that counts its scans (the issue's "counter on the session lister"). */
export function countingLister(count: number): SessionLister & { calls: number } {
  const lister = {
    calls: 0,
    async listSessionsTouchedSince(_sinceMs: number): Promise<SessionRef[]> {
      lister.calls++;
      return Array.from({ length: count }, (_, i) => ({
        id: `sess-${i}`,
        path: `/nowhere/sess-${i}.jsonl`,
        mtimeMs: Date.now() - i * 1000,
      }));
    },
  };
  return lister;
}

export const lockOf = (dir: string) => join(dir, CONSOLIDATION_LOCK_FILE);

export async function setLock(dir: string, content: string, mtimeMs: number) {
  await writeFile(lockOf(dir), content);
  await utimes(lockOf(dir), mtimeMs / 1000, mtimeMs / 1000);
  return (await stat(lockOf(dir))).mtimeMs;
}

/** A memory directory in Spanish: two duplicates about the same fact, one contradicted fact. */
export async function seedMemories(dir: string) {
  const file = (name: string, type: string, desc: string, body: string) =>
    writeFile(
      join(dir, name),
      `---\nname: ${name}\ndescription: ${desc}\ntype: ${type}\n---\n${body}\n`,
    );
  await file(
    'despliegue-viernes.md',
    'project',
    'no desplegar los viernes',
    'Nunca desplegar los viernes.\n\n**Why:** el equipo no está el fin de semana.\n**How to apply:** mover al lunes.',
  );
  await file(
    'no-deploy-friday.md',
    'project',
    'no deploys on friday',
    'No deploys on Fridays.\n\n**Why:** nobody on call.\n**How to apply:** wait for Monday.',
  );
  await file(
    'base-datos.md',
    'project',
    'la base de datos es MySQL 5.7',
    'Usamos MySQL 5.7.\n\n**Why:** legado.\n**How to apply:** evitar JSON columns.',
  );
  await writeFile(
    join(dir, 'MEMORY.md'),
    '- [Despliegue](despliegue-viernes.md) — no desplegar los viernes\n- [Friday](no-deploy-friday.md) — no deploys on friday\n- [BD](base-datos.md) — MySQL 5.7\n',
  );
}

/** Transcript folder with n sessions touched now. */
export async function transcripts(n: number): Promise<string> {
  const dir = await fresh('transcripts');
  for (let i = 0; i < n; i++)
    await writeFile(
      join(dir, `sesion-${i}.jsonl`),
      `${JSON.stringify({ type: 'user', message: { role: 'user', content: `hola ${i}` } })}\n`,
    );
  return dir;
}

export function spawnCli(args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const child = spawn(process.execPath, [CLI, ...args], { env, cwd });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((res) =>
    child.on('close', (code) => res({ code, stdout, stderr })),
  );
  return { child, done };
}

export async function waitFor(check: () => Promise<boolean>, ms = 15_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

/** Starts this test's scripted model server; the `afterEach` hook above closes it. */
export async function startServer(
  ...args: Parameters<typeof startScriptedModelServer>
): Promise<ScriptedModelServer> {
  server = await startScriptedModelServer(...args);
  return server;
}
