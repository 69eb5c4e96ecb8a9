import { performance } from 'node:perf_hooks';
import { createAnthropicModel, type recall, startRecall } from 'engram';
import { startScriptedModelServer } from 'engram/test';
import { describe, expect, it } from 'vitest';
import { kitchen, sandbox } from './support.js';

describe('prefetch', () => {
  it('a 2-second selector does not slow a simulated agent loop; memories arrive later', async () => {
    const s = sandbox();
    kitchen(s.dir);
    const server = await startScriptedModelServer({
      steps: [{ text: '["knife-sharpening.md"]', delayMs: 2000 }],
    });
    try {
      const model = createAnthropicModel({
        apiKey: 'k',
        baseURL: server.anthropicBaseURL,
        model: 'claude-haiku-4-5',
      });
      const handle = startRecall({ dir: s.dir, query: 'sharpen the chef knife', model });
      const step = 250;
      const pollTimes: number[] = [];
      let arrivedAt = -1;
      let got: Awaited<ReturnType<typeof recall>> | undefined;
      const loopStart = performance.now();
      // Iterate until the memories have arrived (at most 40 iterations, 10 s), then one more.
      let iterations = 0;
      for (let i = 0; i < 40 && (arrivedAt < 0 || i <= arrivedAt + 1); i++) {
        iterations++;
        const p0 = performance.now();
        const r = handle.poll();
        pollTimes.push(performance.now() - p0);
        if (r && arrivedAt < 0) {
          arrivedAt = i;
          got = r;
        } else {
          expect(r).toBeUndefined();
        }
        await new Promise((res) => setTimeout(res, step)); // the model/tool work of one iteration
      }
      const loopMs = performance.now() - loopStart;
      handle.dispose();
      // poll() never waits, so the loop costs its own work and nothing more.
      expect(Math.max(...pollTimes)).toBeLessThan(20);
      expect(loopMs).toBeLessThan(iterations * step + 1500);
      expect(arrivedAt).toBeGreaterThanOrEqual(4); // not before the selector's 2 s
      expect(got!.selected.map((m) => m.file)).toEqual(['knife-sharpening.md']);
      expect(handle.poll()).toBeUndefined(); // consumed once
      expect(server.requests).toHaveLength(1); // once per user turn
    } finally {
      await server.close();
    }
  });

  it('a turn that ends first gets no memories and disposing does not throw', async () => {
    const s = sandbox();
    kitchen(s.dir);
    const server = await startScriptedModelServer({
      steps: [{ text: '["knife-sharpening.md"]', delayMs: 2000 }],
    });
    try {
      const model = createAnthropicModel({
        apiKey: 'k',
        baseURL: server.anthropicBaseURL,
        model: 'm',
      });
      const handle = startRecall({ dir: s.dir, query: 'sharpen the chef knife', model });
      const t0 = performance.now();
      for (let i = 0; i < 3; i++) {
        expect(handle.poll()).toBeUndefined();
        await new Promise((res) => setTimeout(res, 50));
      }
      handle.dispose();
      expect(performance.now() - t0).toBeLessThan(1500);
      await handle.done;
      expect(handle.poll()).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});
