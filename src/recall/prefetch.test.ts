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

const ITERATION_MS = 100;
const MAX_ITERATIONS = 100; // a bound on the loop, not a time limit: the answer normally lands at ~8

/**
 * A simulated agent loop: each iteration polls the prefetch, then "works". It runs until the
 * memories arrive, then two more iterations, and records what each poll returned. How long a poll
 * takes is the benchmark's business; here a poll must return a value, never a promise.
 */
async function agentTurn(poll: () => RecallResult | undefined) {
  const arrivals: number[] = [];
  let thenables = 0;
  let iterations = 0;
  for (let i = 0; i < MAX_ITERATIONS && (arrivals.length === 0 || i <= arrivals[0]! + 2); i++) {
    iterations++;
    const result = poll();
    if (typeof (result as { then?: unknown } | undefined)?.then === 'function') thenables++;
    if (result) arrivals.push(i);
    await sleep(ITERATION_MS);
  }
  return { arrivals, thenables, iterations };
}

describe('startRecall', () => {
  it('never makes an agent loop wait for a slow selector; the memories arrive later, once', async () => {
    let answeredBeforeRequest = false;
    let handle: ReturnType<typeof startRecall> | undefined;
    server.push(() => {
      // The request has reached the model: nothing may have been handed out yet.
      answeredBeforeRequest = handle?.settled === true;
      return {
        toolUse: [{ name: SELECT_TOOL_NAME, input: { files: ['migrations.md'] } }],
        delayMs: 800,
      };
    });
    handle = startRecall({
      dir,
      query: 'run the database migrations',
      model: scriptedModel(server),
      now: NOW,
    });
    const started = handle;
    let received: RecallResult | undefined;
    const turn = await agentTurn(() => {
      const r = started.poll();
      if (r) received = r;
      return r;
    });
    started.dispose();
    expect(turn.thenables).toBe(0); // poll hands out a value or nothing; it never awaits
    expect(answeredBeforeRequest).toBe(false);
    expect(turn.arrivals).toHaveLength(1); // consumed once, never twice
    expect(turn.arrivals[0]).toBeGreaterThan(0); // the first polls found nothing yet
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
    const handle = startRecall({
      dir,
      query: 'run the database migrations',
      model: scriptedModel(server),
      now: NOW,
    });
    await sleep(100);
    handle[Symbol.dispose](); // what `using` calls when the turn's scope ends
    await handle.done;
    expect(handle.poll()).toBeUndefined();
    expect(handle.error).toMatchObject({ code: 'aborted' });
  });
});
