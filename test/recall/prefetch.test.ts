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
      let thenables = 0;
      let arrivedAt = -1;
      let got: Awaited<ReturnType<typeof recall>> | undefined;
      // Iterate until the memories have arrived (at most 80 iterations), then one more.
      for (let i = 0; i < 80 && (arrivedAt < 0 || i <= arrivedAt + 1); i++) {
        const r = handle.poll();
        if (typeof (r as { then?: unknown } | undefined)?.then === 'function') thenables++;
        if (r && arrivedAt < 0) {
          arrivedAt = i;
          got = r;
        } else {
          expect(r).toBeUndefined();
        }
        await new Promise((res) => setTimeout(res, step)); // the model/tool work of one iteration
      }
      handle.dispose();
      // poll() hands out a value or nothing and never awaits; the first polls found nothing yet.
      expect(thenables).toBe(0);
      expect(arrivedAt).toBeGreaterThan(0);
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
      for (let i = 0; i < 3; i++) {
        expect(handle.poll()).toBeUndefined();
        await new Promise((res) => setTimeout(res, 50));
      }
      handle.dispose();
      await handle.done;
      expect(handle.poll()).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});
