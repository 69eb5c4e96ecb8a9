// Shared setup for the recall and injection CLI tests. Importing it registers this setup's vitest hooks for the importing file.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from 'engram';
import { beforeAll, expect } from 'vitest';

/**
 * Black-box tests of the read path, written from the documented behaviour: the built CLI as a
 * child process with a fresh HOME, and the published library entry points. New data throughout
 * (kitchen, garden, travel, CJK household notes), not the layer's own fixtures.
 */

export const ROOT = join(import.meta.dirname, '..', '..');
export const BIN = join(ROOT, 'dist', 'cli', 'main.js');
export const DAY = 86_400_000;

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first`);
});

export interface Sandbox {
  root: string;
  dir: string;
  env: NodeJS.ProcessEnv;
}

export function sandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), 'engram-acc5-'));
  const dir = join(root, 'mem');
  mkdirSync(dir, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: join(root, 'home'),
    ENGRAM_HOME: join(root, 'home', '.engram'),
    ENGRAM_MANAGED_DIR: join(root, 'managed'),
  };
  return { root, dir, env };
}

export function memory(
  dir: string,
  file: string,
  m: { description: string; type?: string; body?: string; ageDays?: number; nowMs?: number },
): string {
  const path = join(dir, file);
  const text = `---\nname: ${file.replace(/\.md$/, '')}\ndescription: ${m.description}\ntype: ${m.type ?? 'project'}\n---\n${m.body ?? `${m.description}.`}\n`;
  writeFileSync(path, text);
  if (m.ageDays !== undefined) {
    const t = ((m.nowMs ?? Date.now()) - m.ageDays * DAY) / 1000;
    utimesSync(path, t, t);
  }
  return path;
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export function cli(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve) => {
    execFile('node', [BIN, ...args], { env, maxBuffer: 8 << 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

// biome-ignore lint/suspicious/noExplicitAny: the CLI's JSON is inspected freely, as an outsider would.
export async function recallJson(args: string[], env: NodeJS.ProcessEnv): Promise<any> {
  const run = await cli(['recall', ...args, '--json'], env);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
}

export function kitchen(dir: string): void {
  memory(dir, 'oven-calibration.md', {
    description: 'The oven runs 15 degrees hot, so bake bread at 215 instead of 230',
    type: 'user',
  });
  memory(dir, 'knife-sharpening.md', {
    description: 'Sharpen the chef knife on the 1000 grit whetstone every second Sunday',
    type: 'feedback',
  });
  memory(dir, 'pantry-inventory.md', {
    description: 'Pantry inventory spreadsheet lives in the shared drive under Household',
    type: 'reference',
  });
}

export function userText(id: string, text: string): Message {
  return { id, role: 'user', content: [{ type: 'text', text }] };
}
