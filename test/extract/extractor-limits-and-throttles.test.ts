import { createExtractor, type ExtractionRun } from 'engram/extract';
import type { Message } from 'engram/llm';
import { scriptedModel } from 'engram/test';
import { describe, expect, it } from 'vitest';
import { ctx, fresh, lastUserText, msg, SYSTEM, startServer, turn } from './support.js';

describe('createExtractor against the scripted server: limits, doors and throttles', () => {
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
    await ex.drain();
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
    await a.drain();
    expect(a.state().cursor).toBe('a1');
    expect(b.state().cursor).toBeUndefined();
    server.push({ text: 'slow', delayMs: 5_000 });
    b.onTurnEnd(ctx(turn(7, 'beta')));
    expect(await b.drain(150)).toBe(false);
    b.abort();
    await b.drain();
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
    await ex.drain();
    expect(server.requests.length).toBe(0);
  });
});
