import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runSteps } from '../../util/steps.js';
import { createPostingLists, type PostingLists } from './posting-lists.js';

type Grouped = ReturnType<PostingLists['finishSteps']> extends Generator<void, infer T> ? T : never;

/** Posting lists fed occurrences, beside the grouping they should make, computed naively. */
function fed() {
  const lists = createPostingLists();
  const want = new Map<string, { docs: number[]; freqs: number[] }>();
  const add = (term: string, d: number, weight: number) => {
    lists.add(term, d, weight);
    const entry = want.get(term) ?? { docs: [], freqs: [] };
    want.set(term, entry);
    if (entry.docs.at(-1) === d) entry.freqs[entry.freqs.length - 1]! += weight;
    else {
      entry.docs.push(d);
      entry.freqs.push(weight);
    }
  };
  const check = ({ ids, offsets, docs, freqs }: Grouped) => {
    expect([...ids.keys()]).toEqual([...want.keys()]);
    for (const [term, t] of ids) {
      const from = offsets[t]!;
      const to = offsets[t + 1]!;
      expect({
        docs: Array.from(docs.subarray(from, to)),
        freqs: Array.from(freqs.subarray(from, to)),
      }).toEqual(want.get(term));
    }
    expect(offsets[ids.size]).toBe(docs.length);
  };
  return { lists, add, check };
}

describe('posting lists', () => {
  it('groups occurrences by term in order of first sight, documents ascending, weights summed', () => {
    const occurrence = fc.record({
      term: fc.constantFrom('a', 'b', 'c', 'dd', 'é', '部署'),
      weight: fc.constantFrom(1, 0.5),
    });
    fc.assert(
      fc.property(fc.array(fc.array(occurrence, { maxLength: 30 }), { maxLength: 40 }), (docs) => {
        const { lists, add, check } = fed();
        docs.forEach((terms, d) => {
          for (const { term, weight } of terms) add(term, d, weight);
        });
        check(runSteps(lists.finishSteps()));
      }),
      { numRuns: 200 },
    );
  });

  it('groups the same when the grouping takes many steps (tens of thousands of occurrences)', () => {
    const { lists, add, check } = fed();
    // 40,000 occurrences in 2,000 documents, 300 terms, repeats within a document included.
    for (let d = 0; d < 2_000; d++) {
      for (let k = 0; k < 20; k++) add(`t${(d * 7 + k * k) % 300}`, d, k % 3 === 0 ? 0.5 : 1);
    }
    const steps = lists.finishSteps();
    let paused = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) paused++;
    expect(paused).toBeGreaterThan(2);
    check(step.value);
  });
});
