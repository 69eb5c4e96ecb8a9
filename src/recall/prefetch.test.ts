import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ScriptedModelServer,
  scriptedModel,
  startScriptedModelServer,
} from '../testing/index.js';
import { NOW, seedMemories, tempMemoryDir } from './__fixtures__/memdir.js';
import { startRecall } from './prefetch.js';
import { SELECT_TOOL_NAME } from './prompts.js';
import type { RecallResult } from './recall.js';

let server: ScriptedModelServer;
let dir: string;

beforeAll(async () => {
  server = await startScriptedModelServer({ fallback: null });
  dir = tempMemoryDir();
  await seedMemories(dir, [
    {
      file: 'migrations.md',
      description: 'Run database migrations with the lock held',
      type: 'project',
    },
  ]);
});
afterAll(() => server.close());

const ITERATION_MS = 250;
const ITERATIONS = 16; // 4 s of simulated agent work: the 2 s selector lands mid-turn, with room

/** A simulated agent loop: each iteration polls the prefetch, then "works" for a fixed time. */
async function agentTurn(poll: () => RecallResult | undefined) {
  const arrivals: number[] = [];
  let slowestPollMs = 0;
  const started = performance.now();
  for (let i = 0; i < ITERATIONS; i++) {
    const t = performance.now();
    const result = poll();
    slowestPollMs = Math.max(slowestPollMs, performance.now() - t);
    if (result) arrivals.push(i);
    await sleep(ITERATION_MS);
  }
  return { turnMs: performance.now() - started, arrivals, slowestPollMs };
}

describe('startRecall', () => {
  it('does not slow an agent loop down when the selector takes 2 s; memories arrive later', async () => {
    server.push({
      toolUse: [{ name: SELECT_TOOL_NAME, input: { files: ['migrations.md'] } }],
      delayMs: 2_000,
    });
    const handle = startRecall({
      dir,
      query: 'run the database migrations',
      model: scriptedModel(server),
      now: NOW,
    });
    let received: RecallResult | undefined;
    const turn = await agentTurn(() => {
      const r = handle.poll();
      if (r) received = r;
      return r;
    });
    handle.dispose();
    // The loop's own work is ITERATIONS × ITERATION_MS; the bound allows timer jitter on a loaded
    // 2-core machine, never the selector's 2 s.
    expect(turn.turnMs - ITERATIONS * ITERATION_MS).toBeLessThan(500);
    expect(turn.slowestPollMs).toBeLessThan(50);
    expect(turn.arrivals).toHaveLength(1); // consumed once, never twice
    expect(turn.arrivals[0]).toBeGreaterThanOrEqual(Math.floor(2_000 / ITERATION_MS));
    expect(received?.selected.map((m) => m.file)).toEqual(['migrations.md']);
    expect(received?.shape).toMatchObject({ selector: 'model', fallback: false });
  });

  it('settles a skipped recall at once and hands it out exactly once', async () => {
    const handle = startRecall({ dir, query: 'continue', now: NOW });
    expect(handle.poll()).toBeUndefined(); // never waits, even for a cheap answer
    await handle.done;
    expect(handle.settled).toBe(true);
    expect(handle.poll()?.shape.skipped).toBe('single_word');
    expect(handle.poll()).toBeUndefined();
  });

  it('cancels the selector call when disposed; nothing is handed out afterwards', async () => {
    server.push({ toolUse: [{ name: SELECT_TOOL_NAME, input: { files: [] } }], delayMs: 5_000 });
    const started = performance.now();
    const handle = startRecall({
      dir,
      query: 'run the database migrations',
      model: scriptedModel(server),
      now: NOW,
    });
    await sleep(100);
    handle[Symbol.dispose](); // what `using` calls when the turn's scope ends
    await handle.done;
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(handle.poll()).toBeUndefined();
    expect(handle.error).toMatchObject({ code: 'aborted' });
  });
});
