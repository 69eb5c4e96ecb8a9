import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseInjections } from '../src/inject/index.js';
import { parseIndexEntries } from '../src/memdir/index.js';
import {
  type RecordedRequest,
  type ScriptedModelServer,
  type ScriptStep,
  startScriptedModelServer,
} from '../src/testing/index.js';

const run = promisify(execFile);
const AGENT = resolve(import.meta.dirname, '../examples/agent/agent.mjs');
const DIST = resolve(import.meta.dirname, '../dist/facade/index.js');

const CORRECTION_FILE = `---
name: Payments tests use the sandbox gateway
description: payment tests must call the sandbox gateway; mocking the gateway is forbidden
type: feedback
---
Payment tests call the sandbox gateway, never a mock of it.
**Why:** a gateway mock hid a currency rounding bug that reached production.
**How to apply:** any test that touches checkout, refunds or payments.
`;

/** Main-agent requests declare the memory tool; everything else is engram's background work. */
const isMain = (req: RecordedRequest) =>
  JSON.stringify(req.body.tools ?? []).includes('memory_20250818');

function injectionsIn(req: RecordedRequest): string[] {
  const texts: string[] = [];
  for (const message of req.body.messages as Array<{ role: string; content: unknown }>) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as Array<{ type: string; text?: string }>) {
      if (block.type === 'text' && block.text?.includes('<recalled-memories>'))
        texts.push(block.text);
    }
  }
  return texts;
}

describe('examples/agent over three sessions with the scripted model server', () => {
  let server: ScriptedModelServer;
  let root: string;
  let project: string;
  let env: NodeJS.ProcessEnv;
  const mainReplies: ScriptStep[] = [];

  beforeAll(async () => {
    if (!existsSync(DIST)) throw new Error('dist/ is missing: run `npm run build` first');
    root = await mkdtemp(join(tmpdir(), 'engram-example-'));
    project = join(root, 'shop');
    await mkdir(project, { recursive: true });
    // Each request takes the next main reply, or a background answer, whatever order they come in.
    const route = (req: RecordedRequest): ScriptStep =>
      isMain(req) ? (mainReplies.shift() ?? { text: 'ok' }) : { text: 'Nothing worth saving.' };
    server = await startScriptedModelServer({ fallback: null });
    server.push(...Array.from({ length: 100 }, () => route));
    env = {
      PATH: process.env.PATH,
      HOME: root,
      ENGRAM_HOME: join(root, '.engram'),
      ENGRAM_MANAGED_DIR: join(root, 'managed'),
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: server.anthropicBaseURL,
      ENGRAM_MODEL: 'anthropic:scripted-background',
      EXAMPLE_MODEL: 'scripted-main',
    };
  });
  afterAll(async () => {
    await server?.close();
    await rm(root, { recursive: true, force: true });
  });

  const agent = (args: string[]) =>
    run(process.execPath, [AGENT, '--cwd', project, '--offline-recall', ...args], {
      env,
      cwd: project,
    });

  async function memoryDir(): Promise<string> {
    const projects = join(root, '.engram', 'projects');
    const [name] = await readdir(projects);
    return join(projects, name!, 'memory');
  }

  it('saves a correction in session 1, recalls and injects it in session 3, and replays the same bytes', async () => {
    // Session 1: the user corrects the agent; the model saves the correction with the memory tool.
    mainReplies.push(
      {
        toolUse: [
          {
            name: 'memory',
            input: {
              command: 'create',
              path: '/memories/payments-sandbox-gateway.md',
              file_text: CORRECTION_FILE,
            },
          },
        ],
      },
      { text: 'Noted: payment tests will use the sandbox gateway.' },
    );
    const s1 = await agent([
      'No, never mock the payment gateway in tests; use the sandbox gateway.',
    ]);
    expect(s1.stdout).toBe('Noted: payment tests will use the sandbox gateway.\n');
    const dir = await memoryDir();
    expect(
      parseIndexEntries(await readFile(join(dir, 'MEMORY.md'), 'utf8')).map((e) => e.file),
    ).toEqual(['payments-sandbox-gateway.md']);

    // Session 2: unrelated work; nothing about payments is injected.
    const before2 = server.requests.length;
    mainReplies.push({ text: 'Renamed the sidebar colours.' });
    await agent(['Rename the sidebar colour variables to the new palette names.']);
    const s2 = server.requests.slice(before2).filter(isMain);
    expect(s2).toHaveLength(1);
    expect(injectionsIn(s2[0]!)).toEqual([]);
    // After the turn, background extraction forked from the conversation (and found nothing).
    const forks = server.requests.slice(before2).filter((r) => !isMain(r));
    expect(forks.length).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(forks[0]!.body.messages)).toContain(
      'Rename the sidebar colour variables',
    );
    // The system prompt of every session carries the index with the saved memory.
    expect(JSON.stringify(s2[0]!.body.system)).toContain('payments-sandbox-gateway.md');

    // Session 3: payment work recalls the correction; a second turn resends the same bytes.
    const before3 = server.requests.length;
    const sessionFile = join(root, 'session3.json');
    mainReplies.push(
      { text: 'Drafted refund tests against the sandbox gateway.' },
      { text: 'Added the edge cases.' },
    );
    await agent([
      '--session',
      sessionFile,
      'Write tests for the refund flow of the payment gateway.',
      'Also cover partial refunds in those payment tests.',
    ]);
    const s3 = server.requests.slice(before3).filter(isMain);
    expect(s3).toHaveLength(2);
    const injected = injectionsIn(s3[0]!);
    expect(injected).toHaveLength(1);
    expect(injected[0]).toContain('Payment tests call the sandbox gateway, never a mock of it.');
    expect(parseInjections(injected[0]!)[0]!.memories.map((m) => m.file)).toEqual([
      'payments-sandbox-gateway.md',
    ]);
    // Turn 2: already surfaced, so nothing new; the turn-1 bytes are resent unchanged.
    expect(injectionsIn(s3[1]!)).toEqual(injected);

    // Replay: the memory file changes age on disk, the session resumes from its saved history;
    // the injected bytes are the frozen ones, not recomputed.
    const old = new Date(Date.now() - 40 * 86_400_000);
    await utimes(join(dir, 'payments-sandbox-gateway.md'), old, old);
    const before4 = server.requests.length;
    mainReplies.push({ text: 'Done.' });
    await agent(['--session', sessionFile, 'Run those payment tests again please.']);
    const replay = server.requests.slice(before4).filter(isMain);
    expect(replay).toHaveLength(1);
    expect(injectionsIn(replay[0]!)).toEqual(injected);
    const saved = JSON.parse(await readFile(sessionFile, 'utf8'));
    expect(JSON.stringify(saved.messages)).toContain(JSON.stringify(injected[0]));
  });
});
