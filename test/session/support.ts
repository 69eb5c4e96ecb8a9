// Shared setup for the session-notes tests (scripted model server). Importing it registers this setup's vitest hooks for the importing file.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Message } from 'engram/llm';
import { estimateMessagesTokens } from 'engram/llm';
import {
  type RecordedRequest,
  type ScriptedModelServer,
  startScriptedModelServer,
} from 'engram/test';
import { afterAll, beforeAll, expect } from 'vitest';
import { type CcTranscript, prose } from '../support/transcripts.js';

/**
 * Black-box tests of session notes and notes-based compaction, black box: the built CLI as a
 * child process with a fresh HOME/ENGRAM_HOME, and the public `engram/*` entry points. Data is our
 * own (a ledger-reconciliation session), shaped like a real Claude Code transcript.
 */

export const MAIN = resolve(import.meta.dirname, '../../dist/cli/main.js');

export let root: string;
export let server: ScriptedModelServer;
export let env: NodeJS.ProcessEnv;

export function cli(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string; ms: number }>((done) => {
    const started = performance.now();
    execFile(
      process.execPath,
      [MAIN, ...args],
      { env: { ...env, ...extraEnv }, cwd: root, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        done({
          code: error ? Number(error.code ?? 1) : 0,
          stdout,
          stderr,
          ms: performance.now() - started,
        }),
    );
  });
}

beforeAll(async () => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first`);
  root = await mkdtemp(join(tmpdir(), 'engram-acc7-'));
  server = await startScriptedModelServer({ fallback: { text: 'done' } });
  env = {
    PATH: process.env.PATH,
    HOME: join(root, 'home'),
    ENGRAM_HOME: join(root, 'engram-home'),
    // Each hook in its own process, as the test expects; the hook server has its own tests.
    ENGRAM_NO_DAEMON: '1',
    ENGRAM_MANAGED_DIR: join(root, 'managed'),
    ANTHROPIC_API_KEY: 'acc-key',
    ANTHROPIC_BASE_URL: server.anthropicBaseURL,
    ENGRAM_MODEL: 'anthropic:acc-notes-model',
  };
  mkdirSync(env.HOME!, { recursive: true });
});
afterAll(async () => {
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

export const notesPathOf = (id: string) => join(env.ENGRAM_HOME!, 'session-memory', id, 'notes.md');

// ---------------------------------------------------------------------------------------------
// Thresholds (pure policy over the context as it is now)

export let seq = 0;
export const text = (role: 'user' | 'assistant', body: string): Message => ({
  id: `m${++seq}`,
  role,
  content: [{ type: 'text', text: body }],
});
export const call = (): Message => ({
  id: `m${++seq}`,
  role: 'assistant',
  content: [{ type: 'tool_use', id: `toolu_${seq}`, name: 'Grep', input: { pattern: 'accrual' } }],
});
export const resultFor = (use: Message, body: string): Message => {
  const block = use.content[0] as { id: string };
  return {
    id: `m${++seq}`,
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: block.id, content: body }],
  };
};

/** Pads the last message's text so the whole conversation measures exactly `target` tokens. */
export function padTo(messages: Message[], target: number): Message[] {
  const last = messages.at(-1)!;
  const base = estimateMessagesTokens(messages.slice(0, -1));
  const block = last.content.find((b) => b.type === 'text' || b.type === 'tool_result')!;
  const fill = 'x'.repeat(Math.max(0, (target - base) * 4));
  if (block.type === 'text') block.text = fill;
  else if (block.type === 'tool_result') block.content = fill;
  expect(estimateMessagesTokens(messages)).toBe(target);
  return messages;
}

// ---------------------------------------------------------------------------------------------
// Cut rules (library, on neutral messages from a host that keeps reply parts apart)

// ---------------------------------------------------------------------------------------------
// CLI: notes, update (structure restore, self-reference check), compact

export function writeTool(request: RecordedRequest): string {
  const tools = (request.body.tools ?? []) as Array<{
    name: string;
    input_schema?: { properties?: Record<string, unknown> };
  }>;
  const tool = tools.find((t) => /write/i.test(t.name) && t.input_schema?.properties?.content);
  if (!tool) throw new Error(`no write tool offered: ${tools.map((t) => t.name).join(', ')}`);
  return tool.name;
}

/** The first half of a session: ~20,000 tokens of reconciliation work, replies split over lines. */
export let half = 0;
export function firstHalf(t: CcTranscript) {
  half++;
  t.user('The March ledger is off by 41.07 EUR; find the posting that breaks reconciliation.');
  for (let i = 0; i < 6; i++) {
    const id = `toolu_01L${half}x${i}`;
    t.reply(
      { thinking: `check batch ${i}` },
      { text: `Checking posting batch ${i}.` },
      { toolUse: { id, name: 'Bash', input: { command: `ledger-cli batch show ${i}` } } },
    ).noise();
    t.result(id, prose(2_500, `batch${i}`));
    t.reply({ text: `Batch ${i} balances: ${prose(200, `sum${i}`)}` });
    t.user(`keep going after batch ${i}`);
  }
}

// ---------------------------------------------------------------------------------------------
// waitForNotes (library, fake clock) and the away summary
