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

describe('createExtractor against the scripted server: cursor, fork prefix and saves', () => {
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
    expect(await ex.drain()).toBe(true);
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
    await ex.drain();
    expect(runs.at(-1)?.outcome).toBe('failed');
    expect(ex.state().cursor).toBeUndefined();
    const second = [...first, ...turn(2, 'Also: metrics names are snake_case.')];
    ex.onTurnEnd(ctx(second));
    await ex.drain();
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
    expect(await ex.drain()).toBe(true);
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
    await ex.drain();
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
    expect(await ex.drain()).toBe(true);
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
});
