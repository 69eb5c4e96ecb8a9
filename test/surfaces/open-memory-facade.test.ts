import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { betaMemoryTool } from '@anthropic-ai/sdk/helpers/beta/memory';
import { openMemory } from 'engram';
import type { Message } from 'engram/llm';
import { createMemoryToolHandlers } from 'engram/memory-tool';
import { type RecordedRequest, type ScriptStep, startScriptedModelServer } from 'engram/test';
import { describe, expect, it } from 'vitest';
import { env, KUBE_MEMORY, root, run } from './support.js';

describe('openMemory facade (offline)', () => {
  it('systemPrompt is stable, beforeTurn + attachments inject the relevant memory, compact and close work', async () => {
    const cwd = join(root, 'facade-project');
    mkdirSync(cwd, { recursive: true });
    const fenv = { ...env };
    const memory = await openMemory({ cwd, env: fenv, homedir: env.HOME! });
    const first = await memory.systemPrompt();
    // A memory written during the session shows up next session, not in this prompt.
    const tool = betaMemoryTool(
      createMemoryToolHandlers({
        memoryDir: JSON.parse((await run(['path', '--cwd', cwd, '--json'])).stdout).path,
      }),
    );
    await tool.run({
      command: 'create',
      path: '/memories/canary-deploys.md',
      file_text: KUBE_MEMORY,
    } as never);
    expect(await memory.systemPrompt()).toBe(first);

    const history: Message[] = [
      {
        id: 'u1',
        role: 'user',
        content: [{ type: 'text', text: 'helm upgrade billing on kubernetes now' }],
      },
    ];
    await memory.beforeTurn('helm upgrade billing on kubernetes now', history);
    const attached = memory.attachments(history);
    expect(attached.join('\n')).toContain('billing-canary');
    memory.afterTurn(history);
    const compacted = await memory.compact(history);
    expect(['notes', 'summary', 'truncation']).toContain(compacted.method);
    await memory.close();

    const next = await openMemory({ cwd, env: fenv, homedir: env.HOME! });
    expect(await next.systemPrompt()).toContain('canary-deploys.md');
    await next.close();
  });
});

describe('examples/agent over three sessions (scripted model server)', () => {
  const AGENT = resolve(import.meta.dirname, '../../examples/agent/agent.mjs');
  const GO_RACE = `---
name: Go tests always run with the race detector
description: in the ingest repo, go test must always be run with -race; plain go test is not accepted
type: feedback
---
Run \`go test -race ./...\` in the ingest repo, never plain \`go test\`.
**Why:** a data race in the batch writer passed CI twice without -race.
**How to apply:** any time tests of the ingest Go packages are run or suggested.
`;
  const isMain = (r: RecordedRequest) =>
    JSON.stringify(r.body.tools ?? []).includes('memory_20250818');
  const injected = (r: RecordedRequest) =>
    (r.body.messages as Array<{ content: unknown }>)
      .flatMap((m) =>
        Array.isArray(m.content) ? (m.content as Array<{ type: string; text?: string }>) : [],
      )
      .filter((b) => b.type === 'text' && (b.text ?? '').includes('go test -race'))
      .filter((b) => !(b.text ?? '').startsWith('Run the'))
      .map((b) => b.text);

  it('a correction saved in session 1 is injected in session 3, and session 3 replays the same bytes', {
    timeout: 240_000,
  }, async () => {
    const project = join(root, 'ingest');
    mkdirSync(project, { recursive: true });
    const replies: ScriptStep[] = [];
    const server = await startScriptedModelServer({ fallback: null });
    const route = (r: RecordedRequest): ScriptStep =>
      isMain(r) ? (replies.shift() ?? { text: 'ok' }) : { text: 'Nothing to save.' };
    server.push(...Array.from({ length: 80 }, () => route));
    const agentEnv = {
      ...env,
      ANTHROPIC_API_KEY: 'acc-key',
      ANTHROPIC_BASE_URL: server.anthropicBaseURL,
      ENGRAM_MODEL: 'anthropic:acc-background',
    };
    const agent = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
        execFile(
          process.execPath,
          [AGENT, '--cwd', project, '--offline-recall', '--model', 'acc-main', ...args],
          { env: agentEnv, cwd: project },
          (error, stdout, stderr) =>
            done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
        );
      });
    try {
      // Session 1: the user corrects the agent; the model saves it with the memory tool.
      replies.push(
        {
          toolUse: [
            {
              name: 'memory',
              input: { command: 'create', path: '/memories/go-race.md', file_text: GO_RACE },
            },
          ],
        },
        { text: 'Understood: -race from now on.' },
      );
      const s1 = await agent([
        'No: in this repo go test always runs with -race, plain go test is not accepted.',
      ]);
      expect(s1.code, s1.stderr).toBe(0);
      expect(s1.stdout).toContain('Understood: -race from now on.');

      // Session 2: unrelated; nothing injected.
      let mark = server.requests.length;
      replies.push({ text: 'Updated the changelog.' });
      expect(
        (await agent(['Add a changelog entry for version 2.4 of the dashboard colours.'])).code,
      ).toBe(0);
      const s2 = server.requests.slice(mark).filter(isMain);
      expect(s2.length).toBeGreaterThan(0);
      expect(s2.flatMap(injected)).toEqual([]);

      // Session 3: Go test work recalls the correction.
      const sessionFile = join(root, 'ingest-s3.json');
      mark = server.requests.length;
      replies.push({ text: 'Running the ingest tests with the race detector.' });
      const s3 = await agent([
        '--session',
        sessionFile,
        'Run the go tests for the ingest batch writer package.',
      ]);
      expect(s3.code, s3.stderr).toBe(0);
      const first = server.requests.slice(mark).filter(isMain);
      const bytes = first.flatMap(injected);
      expect(bytes.length).toBe(1);
      expect(bytes[0]).toContain('a data race in the batch writer passed CI twice');

      // Replay: resuming session 3 resends exactly the same injected bytes.
      mark = server.requests.length;
      replies.push({ text: 'Done again.' });
      expect(
        (await agent(['--session', sessionFile, 'Now the same for the parser package.'])).code,
      ).toBe(0);
      const replay = server.requests.slice(mark).filter(isMain);
      expect(replay.length).toBeGreaterThan(0);
      expect(injected(replay[0]!)).toEqual(bytes);

      // Replay from scratch (a fresh run of session 3's message): the same bytes again.
      mark = server.requests.length;
      replies.push({ text: 'Running them.' });
      expect((await agent(['Run the go tests for the ingest batch writer package.'])).code).toBe(0);
      expect(server.requests.slice(mark).filter(isMain).flatMap(injected)).toEqual(bytes);
    } finally {
      await server.close();
    }
  });
});

describe('openMemory facade with a model', () => {
  it('compact() right after afterTurn() waits for the notes that turn queued and compacts with them', async () => {
    const cwd = join(root, 'facade-model');
    mkdirSync(cwd, { recursive: true });
    const notesPath = join(env.ENGRAM_HOME!, 'session-memory', 'facade-s1', 'notes.md');
    const route = (r: RecordedRequest): ScriptStep => {
      const messages = r.body.messages as Array<{ role: string; content: unknown }>;
      const last = JSON.stringify(messages.at(-1)?.content ?? '');
      if (last.includes('tool_result')) return { text: 'done' };
      if (!r.rawBody.includes(notesPath)) return { text: 'Nothing to save.' };
      const tools = (r.body.tools ?? []) as Array<{ name: string }>;
      const write = tools.find((t) => /write/i.test(t.name))!.name;
      const content = readFileSync(notesPath, 'utf8').replace(
        /(^#\s+Current State\n_.*_\n)/m,
        '$1Canary rollout of billing is half done.\n',
      );
      return { toolUse: [{ name: write, input: { path: notesPath, content } }] };
    };
    const server = await startScriptedModelServer({ fallback: null });
    server.push(...Array.from({ length: 30 }, () => route));
    const { scriptedModel } = await import('engram/test');
    const memory = await openMemory({
      cwd,
      env: { ...env },
      homedir: env.HOME!,
      model: scriptedModel(server),
      sessionId: 'facade-s1',
      modelRecall: false,
    });
    try {
      const history: Message[] = [
        {
          id: 'u0',
          role: 'user',
          content: [{ type: 'text', text: 'Roll billing out through canary.' }],
        },
      ];
      for (let i = 0; i < 6; i++) {
        history.push(
          {
            id: `a${i}`,
            role: 'assistant',
            content: [
              {
                type: 'text',
                text: `Step ${i}: ${'kubectl rollout status deploy/billing -n billing-canary '.repeat(150)}`,
              },
            ],
          },
          { id: `u${i + 1}`, role: 'user', content: [{ type: 'text', text: `ok ${i}` }] },
        );
      }
      history.push({
        id: 'a-last',
        role: 'assistant',
        content: [{ type: 'text', text: 'Canary is healthy.' }],
      });
      memory.afterTurn(history);
      const compacted = await memory.compact(history);
      expect(compacted.method).toBe('notes');
      expect(JSON.stringify(compacted.messages[0])).toContain(
        'Canary rollout of billing is half done.',
      );
    } finally {
      await memory.close({ timeoutMs: 5_000 });
      await server.close();
    }
  });
});
