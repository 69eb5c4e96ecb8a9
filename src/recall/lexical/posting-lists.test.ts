import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runSteps } from '../../util/steps.js';
import { createPostingLists } from './posting-lists.js';

describe('posting lists', () => {
  it('groups occurrences by term in order of first sight, documents ascending, weights summed', () => {
    const occurrence = fc.record({
      term: fc.constantFrom('a', 'b', 'c', 'dd', 'é', '部署'),
      weight: fc.constantFrom(1, 0.5),
    });
    fc.assert(
      fc.property(fc.array(fc.array(occurrence, { maxLength: 30 }), { maxLength: 40 }), (docs) => {
        const lists = createPostingLists();
        const want = new Map<string, { docs: number[]; freqs: number[] }>();
        docs.forEach((terms, d) => {
          for (const { term, weight } of terms) {
            lists.add(term, d, weight);
            const entry = want.get(term) ?? { docs: [], freqs: [] };
            want.set(term, entry);
            if (entry.docs.at(-1) === d) entry.freqs[entry.freqs.length - 1]! += weight;
            else {
              entry.docs.push(d);
              entry.freqs.push(weight);
            }
          }
        });
        const { ids, offsets, docs: postings, freqs } = runSteps(lists.finishSteps());
        expect([...ids.keys()]).toEqual([...want.keys()]);
        for (const [term, t] of ids) {
          const from = offsets[t]!;
          const to = offsets[t + 1]!;
          expect({
            docs: Array.from(postings.subarray(from, to)),
            freqs: Array.from(freqs.subarray(from, to)),
          }).toEqual(want.get(term));
        }
        expect(offsets[ids.size]).toBe(postings.length);
      }),
      { numRuns: 200 },
    );
  });
});
