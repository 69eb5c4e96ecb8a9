import { describe, expect, it } from 'vitest';
import { mapPool } from './pool.js';

describe('mapPool', () => {
  it('never has more than the limit in flight and keeps the input order', async () => {
    let inFlight = 0;
    let peak = 0;
    const items = Array.from({ length: 50 }, (_, i) => i);
    const out = await mapPool(items, 4, async (n) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, (n * 7) % 5));
      inFlight--;
      return n * 2;
    });
    expect(out).toEqual(items.map((n) => n * 2));
    expect(peak).toBe(4);
  });

  it('rejects with the first failure and starts nothing new after it', async () => {
    const started: number[] = [];
    await expect(
      mapPool([1, 2, 3, 4, 5, 6], 1, async (n) => {
        started.push(n);
        if (n === 2) throw new Error('boom');
        return n;
      }),
    ).rejects.toThrow('boom');
    expect(started).toEqual([1, 2]);
  });

  it('handles an empty list', async () => {
    expect(await mapPool([], 3, async () => 1)).toEqual([]);
  });
});
