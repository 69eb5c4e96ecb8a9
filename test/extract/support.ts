import { join } from 'node:path';
import { FILE_TOOL_DEFINITIONS, type Message } from 'engram/llm';
import { type ScriptedModelServer, startScriptedModelServer } from 'engram/test';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { REPO, requireBuild, runNode, tempRoot } from '../support/cli-process.js';

/**
 * Black-box tests of background extraction, written from the documented behaviour: `createExtractor`
 * from the public entry, the REAL Anthropic SDK against the scripted model server, real temp
 * directories; `engram extract` and the write-gate eval as child processes.
 */

export const EVAL = join(REPO, 'dist/eval/extract/main.js');

export let temp: Awaited<ReturnType<typeof tempRoot>>;
let server: ScriptedModelServer;

beforeAll(async () => {
  requireBuild();
  temp = await tempRoot('engram-acc6-');
});
afterAll(() => temp.cleanup());
afterEach(async () => {
  await server?.close();
});

export const fresh = (name: string) => temp.fresh(name);
export const node = runNode;

export const msg = (id: string, role: 'user' | 'assistant', text: string): Message => ({
  id,
  role,
  content: [{ type: 'text', text }],
});

export const SYSTEM = 'You help maintain a Rust telemetry daemon called "heron".';

/** A completed turn in which the user states a durable preference (German-English mix). */
export function turn(n: number, say: string): Message[] {
  return [msg(`u${n}`, 'user', say), msg(`a${n}`, 'assistant', `Verstanden (${n}).`)];
}

export const ctx = (messages: Message[]) => ({
  system: SYSTEM,
  tools: FILE_TOOL_DEFINITIONS,
  messages,
});

/** The fork's instruction is the last message of its first request. */
export function lastUserText(body: { messages: Array<{ content: unknown }> }): string {
  return JSON.stringify(body.messages.at(-1)?.content ?? '');
}

export const TOPIC = `---
name: heron release cadence
description: heron ships on the first Tuesday of each month; no mid-month releases
type: project
---
heron ships on the first Tuesday of each month.

**Why:** the downstream packagers batch monthly.
**How to apply:** hold non-urgent fixes for the next release.
`;

/** A Claude Code transcript: a user line, an assistant reply, then another exchange. */
export function claudeTranscript(cwd: string): string {
  const env = {
    isSidechain: false,
    userType: 'external',
    cwd,
    sessionId: 's-heron',
    version: '2.1.39',
  };
  const lines = [
    {
      ...env,
      type: 'user',
      parentUuid: null,
      uuid: '11111111-1111-4111-8111-111111111111',
      timestamp: '2026-11-20T09:00:00.000Z',
      message: { role: 'user', content: 'Wie bauen wir heron?' },
    },
    {
      ...env,
      type: 'assistant',
      parentUuid: '11111111-1111-4111-8111-111111111111',
      uuid: '22222222-2222-4222-8222-222222222222',
      timestamp: '2026-11-20T09:00:05.000Z',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-x',
        content: [{ type: 'text', text: 'Mit cargo build --release.' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 5, output_tokens: 5 },
      },
    },
    {
      ...env,
      type: 'user',
      parentUuid: '22222222-2222-4222-8222-222222222222',
      uuid: '33333333-3333-4333-8333-333333333333',
      timestamp: '2026-11-20T09:01:00.000Z',
      message: {
        role: 'user',
        content: 'Never call unwrap() in the daemon; a panic kills telemetry.',
      },
    },
    {
      ...env,
      type: 'assistant',
      parentUuid: '33333333-3333-4333-8333-333333333333',
      uuid: '44444444-4444-4444-8444-444444444444',
      timestamp: '2026-11-20T09:01:05.000Z',
      message: {
        id: 'msg_2',
        type: 'message',
        role: 'assistant',
        model: 'claude-x',
        content: [{ type: 'text', text: 'Understood.' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 5, output_tokens: 5 },
      },
    },
  ];
  return `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;
}

export const SAVE_STEPS = [
  {
    toolUse: [
      {
        name: 'write',
        input: {
          path: 'no-unwrap.md',
          content:
            '---\nname: no unwrap\ndescription: never unwrap() in the daemon\ntype: feedback\n---\nNo unwrap().\n\n**Why:** panics kill telemetry.\n**How to apply:** use ?.\n',
        },
      },
      {
        name: 'write',
        input: { path: 'MEMORY.md', content: '- [No unwrap](no-unwrap.md) — use ?\n' },
      },
    ],
  },
  { text: 'saved' },
];

/** Starts this test's scripted model server; the `afterEach` hook above closes it. */
export async function startServer(
  ...args: Parameters<typeof startScriptedModelServer>
): Promise<ScriptedModelServer> {
  server = await startScriptedModelServer(...args);
  return server;
}
