import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, startScriptedModelServer } from '../../testing/index.js';
import { runCaptured, testIo } from '../test-io.js';

const SESSION = 'b1f0c3aa-1111-4222-8333-944455556666';
const line = (
  uuid: string,
  parentUuid: string | null,
  type: 'user' | 'assistant',
  message: unknown,
) =>
  JSON.stringify({
    parentUuid,
    isSidechain: false,
    type,
    message,
    uuid,
    sessionId: SESSION,
    cwd: '/work/demo',
  });

/** A two-turn Claude Code transcript: a correction, then an unrelated question. */
const TRANSCRIPT = [
  line('u-1', null, 'user', {
    role: 'user',
    content: 'Stop adding try/catch, errors are handled in the middleware.',
  }),
  line('a-1', 'u-1', 'assistant', {
    id: 'msg_1',
    role: 'assistant',
    content: [{ type: 'text', text: 'Understood.' }],
  }),
  line('u-2', 'a-1', 'user', { role: 'user', content: 'What does the build script do?' }),
  line('a-2', 'u-2', 'assistant', {
    id: 'msg_2',
    role: 'assistant',
    content: [{ type: 'text', text: 'It runs tsc.' }],
  }),
].join('\n');

const MEMORY = `---
name: no try/catch
description: errors are handled by the middleware; do not add try/catch
type: feedback
---
Do not add try/catch blocks.
**Why:** the middleware handles every error.
**How to apply:** in request handlers.
`;

let server: ScriptedModelServer;
let root: string;
let dir: string;
let transcript: string;
beforeEach(async () => {
  server = await startScriptedModelServer();
  root = await mkdtemp(join(tmpdir(), 'engram-cli-extract-'));
  dir = join(root, 'memory');
  transcript = join(root, 'session.jsonl');
  await writeFile(transcript, TRANSCRIPT);
});
afterEach(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

const modelEnv = () => ({
  ANTHROPIC_API_KEY: 'test-key',
  ANTHROPIC_BASE_URL: server.anthropicBaseURL,
});

describe('engram extract', () => {
  it('explains how to configure a model and exits non-zero without one', async () => {
    const io = testIo({ env: {} });
    const run = await runCaptured(['extract', '--transcript', transcript, '--dir', dir], io);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('ANTHROPIC_API_KEY');
    expect(run.stderr).toContain('ENGRAM_MODEL');
    expect(run.stderr).toContain('OPENAI_BASE_URL');
    expect(run.stdout).toBe('');
    const json = await runCaptured(
      ['extract', '--transcript', transcript, '--dir', dir, '--json'],
      io,
    );
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      status: 'failed',
      reason: 'no_model',
      saved: [],
      error: expect.stringContaining('ANTHROPIC_API_KEY'),
    });
    expect(json.stderr).toContain('ANTHROPIC_API_KEY');
    expect(server.requests).toHaveLength(0);
  });

  it('extracts from a Claude Code transcript with the configured model and prints what was saved', async () => {
    server.push(
      {
        toolUse: [
          { name: 'write', input: { path: join(dir, 'no-try-catch.md'), content: MEMORY } },
          {
            name: 'write',
            input: {
              path: join(dir, 'MEMORY.md'),
              content: '- [No try/catch](no-try-catch.md) — middleware\n',
            },
          },
        ],
      },
      { text: 'Saved.' },
    );
    const io = testIo({ env: modelEnv() });
    const run = await runCaptured(['extract', '--transcript', transcript, '--dir', dir], io);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Saved 1 memory: no-try-catch.md\ncursor: a-2\n');
    expect(await readFile(join(dir, 'no-try-catch.md'), 'utf8')).toBe(MEMORY);
    const sent = JSON.stringify(server.requests[0]?.body.messages);
    expect(sent).toContain('Stop adding try/catch');
    expect(sent).toContain('last ~4 messages');
  });

  it('says when the transcript was recorded in another project than the memory directory it uses', async () => {
    server.push({ text: 'Nothing qualifies.' });
    const env = { ENGRAM_HOME: join(root, 'home'), ENGRAM_MANAGED_DIR: join(root, 'managed') };
    const io = testIo({ env: { ...modelEnv(), ...env }, cwd: root, homedir: root });
    const run = await runCaptured(['extract', '--transcript', transcript, '--json'], io);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('recorded in /work/demo');
    expect(run.stderr).toContain('--cwd /work/demo');
    expect(JSON.parse(run.stdout).status).toBe('nothing_saved');
  });

  it('prints what a save got wrong as a warning on stderr', async () => {
    server.push(
      { toolUse: [{ name: 'write', input: { path: join(dir, 'orphan.md'), content: MEMORY } }] },
      { text: 'Saved.' },
    );
    const run = await runCaptured(
      ['extract', '--transcript', transcript, '--dir', dir],
      testIo({ env: modelEnv() }),
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Saved 1 memory: orphan.md\ncursor: a-2\n');
    expect(run.stderr).toMatch(/^engram: warning: orphan\.md: no line in MEMORY\.md points to it/);
  });

  it('starts after --since and prints JSON', async () => {
    server.push({ text: 'Nothing qualifies.' });
    const io = testIo({ env: modelEnv() });
    const run = await runCaptured(
      ['extract', '--transcript', transcript, '--since', 'a-1', '--dir', dir, '--json'],
      io,
    );
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout);
    expect(json).toMatchObject({
      status: 'nothing_saved',
      saved: [],
      cursor: 'a-2',
      newMessageCount: 2,
      turns: 1,
    });
    expect(JSON.stringify(server.requests[0]?.body.messages)).toContain('last ~2 messages');
  });

  it('sends only the newest whole turns of a long transcript and says what was left out', async () => {
    server.push({ text: 'Nothing qualifies.' });
    const io = testIo({ env: modelEnv() });
    const run = await runCaptured(
      ['extract', '--transcript', transcript, '--dir', dir, '--max-context-tokens', '12'],
      io,
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('sending the last 2 messages');
    expect(run.stderr).toContain('so 2 new messages are not considered');
    const sent = JSON.stringify(server.requests[0]?.body.messages);
    expect(sent).not.toContain('Stop adding try/catch');
    expect(sent).toContain('What does the build script do?');
    const bad = await runCaptured(
      ['extract', '--transcript', transcript, '--max-context-tokens', '0'],
      io,
    );
    expect(bad.code).toBe(2);
  });

  it('rejects an unknown --since id and a missing transcript without calling the model', async () => {
    const io = testIo({ env: modelEnv() });
    const since = await runCaptured(
      ['extract', '--transcript', transcript, '--since', 'nope', '--dir', dir],
      io,
    );
    expect(since.code).toBe(3);
    expect(since.stderr).toContain('nope');
    const missing = await runCaptured(
      ['extract', '--transcript', join(root, 'none.jsonl'), '--dir', dir],
      io,
    );
    expect(missing.code).toBe(3);
    const garbage = join(root, 'notes.txt');
    await writeFile(garbage, 'just some notes\nnot a transcript\n');
    const bad = await runCaptured(['extract', '--transcript', garbage, '--dir', dir], io);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('no messages could be read');
    expect(server.requests).toHaveLength(0);
  });

  it('exits 1 when the model fails and reports the cursor unmoved', async () => {
    server.push({ error: { status: 400, message: 'bad request' } });
    const io = testIo({ env: modelEnv() });
    const run = await runCaptured(
      ['extract', '--transcript', transcript, '--dir', dir, '--json'],
      io,
    );
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      status: 'failed',
      reason: 'error',
      cursor: null,
    });
  });

  it('sends the transcript to the model without thinking blocks or their signatures', async () => {
    const signed = [
      line('u-1', null, 'user', { role: 'user', content: 'Stop adding try/catch.' }),
      line('a-1', 'u-1', 'assistant', {
        id: 'msg_1',
        role: 'assistant',
        content: [{ type: 'thinking', thinking: 'PRIVATE-REASONING', signature: 'SIG-OPUS' }],
      }),
      line('a-2', 'a-1', 'assistant', {
        id: 'msg_1',
        role: 'assistant',
        content: [{ type: 'text', text: 'Understood.' }],
      }),
    ].join('\n');
    await writeFile(transcript, signed);
    server.push({ text: 'Nothing to save.' });
    const io = testIo({ env: modelEnv() });
    await runCaptured(['extract', '--transcript', transcript, '--dir', dir, '--json'], io);
    expect(server.requests.length).toBeGreaterThan(0);
    for (const request of server.requests) {
      expect(request.rawBody).toContain('Stop adding try/catch.');
      expect(request.rawBody).not.toContain('PRIVATE-REASONING');
      expect(request.rawBody).not.toContain('SIG-OPUS');
    }
  });
});
