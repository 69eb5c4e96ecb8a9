import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as root from 'engram';
import { createExtractor, type ExtractionRun } from 'engram/extract';
import { FILE_TOOL_DEFINITIONS, type Message } from 'engram/llm';
import { scriptedModel } from 'engram/test';
import { describe, expect, it } from 'vitest';
import { ctx, fresh, lastUserText, msg, SYSTEM, startServer, TOPIC, turn } from './support.js';

describe('public names', () => {
  it('createExtractor is exported from engram/extract and from the root', () => {
    expect(typeof createExtractor).toBe('function');
    expect(typeof (root as Record<string, unknown>).createExtractor).toBe('function');
  });
});

describe('createExtractor against the scripted server', () => {
  it('a main-agent write into the memory directory: no fork request, cursor moves past it', async () => {
    const server = await startServer();
    const memoryDir = await fresh('mem');
    const runs: ExtractionRun[] = [];
    const ex = createExtractor({
      memoryDir,
      model: scriptedModel(server),
      onRun: (r) => runs.push(r),
    });
    const messages: Message[] = [
      msg('u1', 'user', 'Merk dir: heron logs go to journald, never to files.'),
      {
        id: 'a1',
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: 'toolu_w1',
            name: 'Write',
            input: { file_path: join(memoryDir, 'logging.md'), content: TOPIC },
          },
        ],
      },
      {
        id: 'u2',
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_w1', content: 'ok' }],
      },
      msg('a2', 'assistant', 'Saved it.'),
    ];
    ex.onTurnEnd(ctx(messages));
    expect(await ex.drain(5_000)).toBe(true);
    expect(server.requests.length).toBe(0);
    expect(ex.state().cursor).toBe('a2');
    expect(runs.at(-1)?.outcome).toBe('skipped');
  });

  it('a fork that errors leaves the cursor; the next trigger re-sends those messages', async () => {
    const server = await startServer();
    server.push({ error: { status: 400, message: 'kaputt' } });
    const memoryDir = await fresh('mem');
    const runs: ExtractionRun[] = [];
    const ex = createExtractor({
      memoryDir,
      model: scriptedModel(server),
      onRun: (r) => runs.push(r),
    });
    const first = turn(1, 'heron must never block on the UDP socket — the marker is ZEBRA-17.');
    ex.onTurnEnd(ctx(first));
    await ex.drain(5_000);
    expect(runs.at(-1)?.outcome).toBe('failed');
    expect(ex.state().cursor).toBeUndefined();
    const second = [...first, ...turn(2, 'Also: metrics names are snake_case.')];
    ex.onTurnEnd(ctx(second));
    await ex.drain(5_000);
    const retry = server.requests.at(-1)?.body;
    expect(JSON.stringify(retry.messages)).toContain('ZEBRA-17');
    // The instruction covers the first turn's messages again, not just the newest two.
    expect(runs.at(-1)?.newMessageCount).toBe(4);
    expect(lastUserText(retry)).toMatch(/last ~4 messages/);
    expect(ex.state().cursor).toBe('a2');
  });

  it('three triggers during one slow run give exactly one trailing run over the new messages', async () => {
    const server = await startServer();
    server.push({ text: 'nothing to save', delayMs: 600 });
    const memoryDir = await fresh('mem');
    const runs: ExtractionRun[] = [];
    const ex = createExtractor({
      memoryDir,
      model: scriptedModel(server),
      onRun: (r) => runs.push(r),
    });
    let messages = turn(1, 'first');
    expect(ex.onTurnEnd(ctx(messages)).status).toBe('started');
    for (let n = 2; n <= 4; n++) {
      messages = [...messages, ...turn(n, `later ${n}`)];
      expect(ex.onTurnEnd(ctx(messages)).status).toBe('queued');
    }
    expect(ex.state().hasPending).toBe(true);
    expect(await ex.drain(10_000)).toBe(true);
    expect(server.requests.length).toBe(2);
    const ran = runs.filter((r) => r.outcome !== 'skipped');
    expect(ran.length).toBe(2);
    expect(ran[1]?.trailing).toBe(true);
    expect(ran[1]?.newMessageCount).toBe(6);
    expect(lastUserText(server.requests[1]?.body)).toMatch(/last ~6 messages/);
    expect(ex.state().cursor).toBe('a4');
  });

  it('the first fork request carries the manifest and the main prefix byte for byte', async () => {
    const server = await startServer();
    const memoryDir = await fresh('mem');
    await writeFile(join(memoryDir, 'release-cadence.md'), TOPIC);
    await writeFile(
      join(memoryDir, 'MEMORY.md'),
      '- [Release cadence](release-cadence.md) — first Tuesday monthly\n',
    );
    const model = scriptedModel(server);
    const messages = turn(1, 'We moved the packager to Nix last week.');
    // The main agent's own last request (ending with the user's message), then its reply.
    await model.generate({
      system: SYSTEM,
      tools: FILE_TOOL_DEFINITIONS,
      messages: messages.slice(0, 1),
    });
    const main = server.requests[0]?.body;
    const ex = createExtractor({ memoryDir, model });
    ex.onTurnEnd(ctx(messages));
    await ex.drain(5_000);
    const fork = server.requests[1]?.body;
    expect(JSON.stringify(fork.system)).toBe(JSON.stringify(main.system));
    expect(JSON.stringify(fork.tools)).toBe(JSON.stringify(main.tools));
    expect(JSON.stringify(fork.messages.slice(0, 1))).toBe(JSON.stringify(main.messages));
    const instruction = lastUserText(fork);
    expect(instruction).toContain('release-cadence.md');
    expect(instruction).toContain('first Tuesday of each month');
  });

  it('escapes and deletes are refused; a two-step save writes file + index line; "Saved 1 memory"', async () => {
    const server = await startServer();
    const top = await fresh('proj');
    const memoryDir = join(top, 'memory');
    await mkdir(memoryDir);
    await writeFile(join(top, 'Cargo.toml'), '[package]\nname = "heron"\n');
    await writeFile(join(memoryDir, 'release-cadence.md'), TOPIC);
    await writeFile(
      join(memoryDir, 'MEMORY.md'),
      '- [Release cadence](release-cadence.md) — monthly\n',
    );
    const feedback = `---
name: no unwrap in daemon
description: never call unwrap() in the heron daemon; propagate errors with ?
type: feedback
---
Never call unwrap() in the daemon code.

**Why:** a panic kills telemetry for the whole host.
**How to apply:** use ? and anyhow::Context in src/daemon.
`;
    server.push(
      {
        toolUse: [
          { name: 'write', input: { path: join(top, 'Cargo.toml'), content: 'pwned' } },
          { name: 'write', input: { path: '../escaped.md', content: 'x' } },
          { name: 'delete', input: { path: 'release-cadence.md' } },
        ],
      },
      { toolUse: [{ name: 'read', input: { path: 'MEMORY.md' } }] },
      {
        toolUse: [
          { name: 'write', input: { path: 'no-unwrap.md', content: feedback } },
          {
            name: 'write',
            input: {
              path: 'MEMORY.md',
              content:
                '- [Release cadence](release-cadence.md) — monthly\n- [No unwrap](no-unwrap.md) — propagate errors with ?\n',
            },
          },
        ],
      },
      { text: 'done' },
    );
    const notices: string[] = [];
    const runs: ExtractionRun[] = [];
    const ex = createExtractor({
      memoryDir,
      model: scriptedModel(server),
      onSaved: (n) => notices.push(n.text),
      onRun: (r) => runs.push(r),
    });
    ex.onTurnEnd(ctx(turn(1, 'Stop using unwrap() in the daemon, a panic kills telemetry.')));
    expect(await ex.drain(5_000)).toBe(true);
    const refusals = runs.at(-1)?.toolCalls.slice(0, 3) ?? [];
    expect(refusals.map((c) => c.isError)).toEqual([true, true, true]);
    expect(JSON.stringify(server.requests[1]?.body.messages.at(-1))).toContain('"is_error":true');
    expect(readFileSync(join(top, 'Cargo.toml'), 'utf8')).toContain('name = "heron"');
    expect((await readdir(top)).sort()).toEqual(['Cargo.toml', 'memory']);
    expect(await readFile(join(memoryDir, 'release-cadence.md'), 'utf8')).toBe(TOPIC);
    expect(await readFile(join(memoryDir, 'no-unwrap.md'), 'utf8')).toBe(feedback);
    expect(await readFile(join(memoryDir, 'MEMORY.md'), 'utf8')).toContain('(no-unwrap.md)');
    expect(notices.length).toBe(1);
    expect(notices[0]).toMatch(/^Saved 1 memory\b/);
    expect(notices[0]).toContain('no-unwrap.md');
    expect(notices[0]).not.toContain('MEMORY.md');
    expect(runs.at(-1)?.saved).toEqual(['no-unwrap.md']);
  });

  it('a run that hits 5 turns stops and counts as a failure (cursor stays)', async () => {
    const server = await startServer({
      fallback: { toolUse: [{ name: 'list', input: { path: '.' } }] },
    });
    const memoryDir = await fresh('mem');
    const runs: ExtractionRun[] = [];
    const ex = createExtractor({
      memoryDir,
      model: scriptedModel(server),
      onRun: (r) => runs.push(r),
    });
    ex.onTurnEnd(ctx(turn(1, 'heron listens on port 9464.')));
    await ex.drain(5_000);
    expect(server.requests.length).toBe(5);
    expect(runs.at(-1)?.outcome).toBe('failed');
    expect(runs.at(-1)?.reason).toBe('max_turns');
    expect(ex.state().cursor).toBeUndefined();
  });

  it('two extractors in one process keep separate cursors; drain is bounded', async () => {
    const server = await startServer();
    const a = createExtractor({ memoryDir: await fresh('a'), model: scriptedModel(server) });
    const b = createExtractor({ memoryDir: await fresh('b'), model: scriptedModel(server) });
    a.onTurnEnd(ctx(turn(1, 'alpha')));
    await a.drain(5_000);
    expect(a.state().cursor).toBe('a1');
    expect(b.state().cursor).toBeUndefined();
    server.push({ text: 'slow', delayMs: 5_000 });
    b.onTurnEnd(ctx(turn(7, 'beta')));
    expect(await b.drain(150)).toBe(false);
    b.abort();
    await b.drain(5_000);
    expect(b.state().cursor).toBeUndefined();
  });

  it('the Anthropic memory tool writing /memories/... counts as a main-agent write', async () => {
    const server = await startServer();
    const ex = createExtractor({ memoryDir: await fresh('mem'), model: scriptedModel(server) });
    const messages: Message[] = [
      msg('u1', 'user', 'remember: heron config lives in /etc/heron.toml'),
      {
        id: 'a1',
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: 'toolu_m1',
            name: 'memory',
            input: { command: 'create', path: '/memories/config.md', file_text: 'x' },
          },
        ],
      },
      {
        id: 'u2',
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_m1', content: 'ok' }],
      },
      msg('a2', 'assistant', 'Noted.'),
    ];
    const trigger = ex.onTurnEnd({
      system: SYSTEM,
      tools: [
        { name: 'memory', type: 'memory_20250818', input_schema: { type: 'object' } } as never,
      ],
      messages,
    });
    expect(trigger.status).toBe('skipped');
    await ex.drain();
    expect(server.requests.length).toBe(0);
    expect(ex.state().cursor).toBe('a2');
  });

  it('two topic files in one run: "Saved 2 memories", the index not counted', async () => {
    const server = await startServer();
    const memoryDir = await fresh('mem');
    const topic = (n: string) => `---\nname: ${n}\ndescription: ${n} rule\ntype: user\n---\n${n}\n`;
    server.push(
      {
        toolUse: [
          { name: 'write', input: { path: 'editor.md', content: topic('editor') } },
          { name: 'write', input: { path: 'zeitzone.md', content: topic('zeitzone') } },
          {
            name: 'write',
            input: { path: 'MEMORY.md', content: '- [E](editor.md) — e\n- [Z](zeitzone.md) — z\n' },
          },
        ],
      },
      { text: 'ok' },
    );
    const notices: string[] = [];
    const ex = createExtractor({
      memoryDir,
      model: scriptedModel(server),
      onSaved: (n) => notices.push(n.text),
    });
    ex.onTurnEnd(ctx(turn(1, 'I use helix, and I am in Europe/Berlin.')));
    await ex.drain();
    expect(notices).toEqual(['Saved 2 memories: editor.md, zeitzone.md']);
  });

  it('the throttle runs every N completed turns (default 1)', async () => {
    const server = await startServer();
    const ex = createExtractor({
      memoryDir: await fresh('mem'),
      model: scriptedModel(server),
      everyNTurns: 2,
    });
    let messages = turn(1, 'one');
    expect(ex.onTurnEnd(ctx(messages)).status).toBe('skipped');
    expect(ex.state().turnsSinceLastRun).toBe(1);
    messages = [...messages, ...turn(2, 'two')];
    expect(ex.onTurnEnd(ctx(messages)).status).toBe('started');
    await ex.drain();
    expect(server.requests.length).toBe(1);
    expect(lastUserText(server.requests[0]?.body)).toMatch(/last ~4 messages/);
  });

  it('a turn that is not complete (assistant asked for a tool) does not trigger', async () => {
    const server = await startServer();
    const ex = createExtractor({ memoryDir: await fresh('mem'), model: scriptedModel(server) });
    const pending: Message[] = [
      msg('u1', 'user', 'check the build'),
      {
        id: 'a1',
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_x', name: 'list', input: { path: '.' } }],
      },
    ];
    expect(ex.onTurnEnd(ctx(pending)).status).toBe('ignored');
    await ex.drain(1_000);
    expect(server.requests.length).toBe(0);
  });
});
