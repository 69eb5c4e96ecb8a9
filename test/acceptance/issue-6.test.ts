/**
 * Acceptance for issue 6 (background extraction), written from the issue text: `createExtractor`
 * from the public entry, the REAL Anthropic SDK against the scripted model server, real temp
 * directories; `engram extract` and the write-gate eval as child processes.
 */
import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as root from 'engram';
import { createExtractor, type ExtractionRun } from 'engram/extract';
import { FILE_TOOL_DEFINITIONS, type Message } from 'engram/llm';
import { type ScriptedModelServer, scriptedModel, startScriptedModelServer } from 'engram/test';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cliEnv, REPO, requireBuild, runNode, tempRoot } from './support.js';

const EVAL = join(REPO, 'dist/eval/extract/main.js');

let temp: Awaited<ReturnType<typeof tempRoot>>;
let server: ScriptedModelServer;

beforeAll(async () => {
  requireBuild();
  temp = await tempRoot('engram-acc6-');
});
afterAll(() => temp.cleanup());
afterEach(async () => {
  await server?.close();
});

const fresh = (name: string) => temp.fresh(name);
const node = runNode;

const msg = (id: string, role: 'user' | 'assistant', text: string): Message => ({
  id,
  role,
  content: [{ type: 'text', text }],
});

const SYSTEM = 'You help maintain a Rust telemetry daemon called "heron".';

/** A completed turn in which the user states a durable preference (German-English mix). */
function turn(n: number, say: string): Message[] {
  return [msg(`u${n}`, 'user', say), msg(`a${n}`, 'assistant', `Verstanden (${n}).`)];
}

const ctx = (messages: Message[]) => ({ system: SYSTEM, tools: FILE_TOOL_DEFINITIONS, messages });

/** The fork's instruction is the last message of its first request. */
function lastUserText(body: { messages: Array<{ content: unknown }> }): string {
  return JSON.stringify(body.messages.at(-1)?.content ?? '');
}

const TOPIC = `---
name: heron release cadence
description: heron ships on the first Tuesday of each month; no mid-month releases
type: project
---
heron ships on the first Tuesday of each month.

**Why:** the downstream packagers batch monthly.
**How to apply:** hold non-urgent fixes for the next release.
`;

describe('issue 6: public names', () => {
  it('createExtractor is exported from engram/extract and from the root', () => {
    expect(typeof createExtractor).toBe('function');
    expect(typeof (root as Record<string, unknown>).createExtractor).toBe('function');
  });
});

describe('issue 6: createExtractor against the scripted server', () => {
  it('a main-agent write into the memory directory: no fork request, cursor moves past it', async () => {
    server = await startScriptedModelServer();
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
    server = await startScriptedModelServer();
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
    server = await startScriptedModelServer();
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
    server = await startScriptedModelServer();
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
    server = await startScriptedModelServer();
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
    server = await startScriptedModelServer({
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
    server = await startScriptedModelServer();
    const a = createExtractor({ memoryDir: await fresh('a'), model: scriptedModel(server) });
    const b = createExtractor({ memoryDir: await fresh('b'), model: scriptedModel(server) });
    a.onTurnEnd(ctx(turn(1, 'alpha')));
    await a.drain(5_000);
    expect(a.state().cursor).toBe('a1');
    expect(b.state().cursor).toBeUndefined();
    server.push({ text: 'slow', delayMs: 5_000 });
    b.onTurnEnd(ctx(turn(7, 'beta')));
    const t0 = Date.now();
    expect(await b.drain(150)).toBe(false);
    expect(Date.now() - t0).toBeLessThan(2_000);
    b.abort();
    await b.drain(5_000);
    expect(b.state().cursor).toBeUndefined();
  });

  it('the Anthropic memory tool writing /memories/... counts as a main-agent write', async () => {
    server = await startScriptedModelServer();
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
    server = await startScriptedModelServer();
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
    server = await startScriptedModelServer();
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
    server = await startScriptedModelServer();
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

/** A Claude Code transcript: a user line, an assistant reply, then another exchange. */
function claudeTranscript(cwd: string): string {
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

const SAVE_STEPS = [
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

describe('issue 6: engram extract (child process)', () => {
  it('a Claude Code transcript: prints "Saved 1 memory" and the cursor; --since narrows', async () => {
    server = await startScriptedModelServer();
    const home = await fresh('home');
    const project = await fresh('project');
    const memoryDir = join(home, 'mem');
    const file = join(home, 'session.jsonl');
    await writeFile(file, claudeTranscript(project));
    // The fork writes with engram's file tools unless the transcript names others.
    server.push(...SAVE_STEPS);
    const env = cliEnv(home, { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'k' });
    const r = await node([CLI, 'extract', '--transcript', file, '--dir', memoryDir], env, project);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Saved 1 memory\b/);
    expect(r.stdout).toContain('no-unwrap.md');
    expect(await readFile(join(memoryDir, 'MEMORY.md'), 'utf8')).toContain('no-unwrap.md');
    const body = server.requests[0]?.body;
    expect(JSON.stringify(body.messages)).toContain('Never call unwrap()');

    // --since the second message: only the two after it are new.
    const j = await node(
      [
        CLI,
        'extract',
        '--transcript',
        file,
        '--since',
        '22222222-2222-4222-8222-222222222222',
        '--dir',
        memoryDir,
        '--json',
      ],
      env,
      project,
    );
    expect(j.code, j.stderr).toBe(0);
    const out = JSON.parse(j.stdout);
    expect(out.newMessageCount).toBe(2);
    expect(out.status).toBe('nothing_saved');
    expect(lastUserText(server.requests.at(-1)?.body)).toMatch(/last ~2 messages/);
  });

  it('a plain JSON message file works too (OpenAI-compatible endpoint)', async () => {
    server = await startScriptedModelServer();
    server.push(...SAVE_STEPS);
    const home = await fresh('home');
    const file = join(home, 'chat.json');
    await writeFile(
      file,
      JSON.stringify([
        msg('p1', 'user', 'Never call unwrap() in the daemon.'),
        msg('p2', 'assistant', 'OK.'),
      ]),
    );
    const env = cliEnv(home, {
      OPENAI_BASE_URL: `${server.url}/v1`,
      ENGRAM_MODEL: 'openai:local-qwen',
    });
    const r = await node(
      [CLI, 'extract', '--transcript', file, '--dir', join(home, 'mem'), '--json'],
      env,
      home,
    );
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.status).toBe('saved');
    expect(out.saved).toEqual(['no-unwrap.md']);
    expect(out.notice).toMatch(/^Saved 1 memory/);
    expect(server.requests[0]?.api).toBe('openai');
  });

  it('without a model: explains how to configure one and exits non-zero', async () => {
    const home = await fresh('home');
    const file = join(home, 'chat.json');
    await writeFile(
      file,
      JSON.stringify([msg('p1', 'user', 'hi'), msg('p2', 'assistant', 'hello')]),
    );
    const r = await node(
      [CLI, 'extract', '--transcript', file, '--dir', join(home, 'mem')],
      cliEnv(home, {}),
      home,
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/ANTHROPIC_API_KEY/);
  });
});

describe('issue 6: the write-gate eval', () => {
  it('npm run eval:extract exists and, without a model, reports "skipped: no model"', async () => {
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
    expect(pkg.scripts['eval:extract']).toContain('eval/extract');
    const home = await fresh('home');
    const r = await node([EVAL], cliEnv(home, {}), home);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/skipped: no model/);
  });

  it('pointed at a model (scripted: saves nothing), it scores every case and fails the ones needing a save', async () => {
    server = await startScriptedModelServer();
    const home = await fresh('home');
    const env = cliEnv(home, { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'k' });
    const r = await node([EVAL, '--json'], env, home);
    expect(r.code).toBe(1);
    expect(server.requests.length).toBeGreaterThanOrEqual(4);
    const text = r.stdout;
    for (const id of [
      'pr-list-snapshot',
      'derivable-tooling',
      'correction-feedback',
      'quiet-confirmation',
    ])
      expect(text).toContain(id);
  });
});
