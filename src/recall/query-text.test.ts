import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RECALL_QUERY_EDGE_CHARS, recallQuery } from './query-text.js';

describe('the part of a prompt recall reads', () => {
  it('is the whole prompt up to twice the edge', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 2 * RECALL_QUERY_EDGE_CHARS }), (prompt) => {
        expect(recallQuery(prompt)).toBe(prompt);
      }),
      { numRuns: 50 },
    );
  });

  it("is a longer prompt's first and last edge on two lines, never a split character", () => {
    const edge = RECALL_QUERY_EDGE_CHARS;
    const prompt = `${'a'.repeat(edge - 1)}😀${'b'.repeat(50_000)}😀${'c'.repeat(edge - 1)}`;
    const read = recallQuery(prompt);
    expect(read.length).toBeLessThanOrEqual(2 * edge + 1);
    expect(read.startsWith('a'.repeat(edge - 1))).toBe(true);
    expect(read.endsWith('c'.repeat(edge - 1))).toBe(true);
    // Each emoji straddles a cut: it is kept whole or left out, never half.
    expect(
      /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(read),
    ).toBe(false);
    expect(read.split('\n')).toHaveLength(2);
  });
});
