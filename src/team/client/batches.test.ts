import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { packBatches } from './batches.js';

describe('push batches', () => {
  it('measures the body exactly as sent and never passes the cap', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.string({ minLength: 1, maxLength: 12 }).map((s) => `${s}.md`),
          fc.string({ maxLength: 400 }),
          {
            maxKeys: 40,
          },
        ),
        fc.integer({ min: 200, max: 3000 }),
        (dict, cap) => {
          const plan = packBatches(new Map(Object.entries(dict)), cap);
          for (const batch of plan.batches) {
            expect(batch.bytes).toBe(Buffer.byteLength(batch.body));
            expect(batch.bytes).toBeLessThanOrEqual(cap);
            expect(Object.keys(JSON.parse(batch.body).entries)).toEqual(batch.keys);
          }
          const sent = plan.batches.flatMap((b) => b.keys);
          expect([...sent, ...plan.tooLarge].sort()).toEqual(Object.keys(dict).sort());
        },
      ),
    );
  });

  it('forms identical batches for the same set whatever order it arrives in', () => {
    const entries = Array.from(
      { length: 120 },
      (_, i) => [`k${(i * 37) % 120}.md`, 'é"\n'.repeat(i)] as const,
    );
    const a = packBatches(new Map(entries), 2048);
    const b = packBatches(new Map([...entries].reverse()), 2048);
    expect(a.batches.length).toBeGreaterThan(3);
    expect(b).toEqual(a);
  });

  it('packs greedily: a batch is closed only when the next key would not fit', () => {
    const plan = packBatches(
      new Map([
        ['a.md', 'x'.repeat(30)],
        ['b.md', 'y'.repeat(30)],
        ['c.md', 'z'],
      ]),
      100,
    );
    expect(plan.batches.map((b) => b.keys)).toEqual([['a.md', 'b.md'], ['c.md']]);
    expect(packBatches(new Map([['big.md', 'x'.repeat(200)]]), 100).tooLarge).toEqual(['big.md']);
  });
});
