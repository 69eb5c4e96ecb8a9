import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runSteps } from '../../util/steps.js';
import { RANKER_TUNING } from '../offline-ranker.js';
import { buildBm25Index, type WeightedTerms } from './bm25-index.js';
import { charGrams } from './char-grams.js';
import { createGramViewBuilder, type GramView, restoreGramView } from './gram-view.js';

type Doc = WeightedTerms[];

function gramView(docs: readonly Doc[]) {
  const builder = createGramViewBuilder(RANKER_TUNING.gram);
  for (const doc of docs) builder.add(doc);
  return runSteps(builder.finishSteps());
}

/** The index the view stands for: BM25 over every document's character grams. */
function gramIndex(docs: readonly Doc[]) {
  return buildBm25Index(
    docs.map((doc) => doc.map((f) => ({ terms: charGrams(f.terms), weight: f.weight }))),
    RANKER_TUNING.gram,
  );
}

function expectSameAsGramIndex(view: GramView, docs: readonly Doc[], probes: readonly string[]) {
  const index = gramIndex(docs);
  expect(view.size).toBe(index.size);
  for (const gram of probes) {
    const want = index.postings(gram);
    const got = view.postings(gram);
    expect(got && { docs: Array.from(got.docs), weights: Array.from(got.weights) }).toEqual(
      want && { docs: Array.from(want.docs), weights: Array.from(want.weights) },
    );
    expect(view.idf(gram)).toBe(index.idf(gram));
  }
}

const WEIGHTS = Object.values(RANKER_TUNING.fieldWeights);
// Short words (whole-word grams), repeated letters (a gram twice in one word), shared stems.
const word = fc.stringMatching(/^[a-e]{1,7}$/);
const doc = fc.array(
  fc.record({ terms: fc.array(word, { maxLength: 12 }), weight: fc.constantFrom(...WEIGHTS) }),
  { maxLength: 3 },
);

describe('gram view', () => {
  it('gives every gram the postings and idf of an index over all the grams', () => {
    fc.assert(
      fc.property(fc.array(doc, { maxLength: 20 }), (docs) => {
        const grams = docs.flatMap((d) => d.flatMap((f) => charGrams(f.terms)));
        // Grams no document holds, and substrings of words that are not grams of them.
        const absent = ['^zz$', 'zzzz', '^a', 'ab', '^abc$x', '$\n^a'];
        expectSameAsGramIndex(gramView(docs).view, docs, [...new Set(grams), ...absent]);
      }),
      { numRuns: 200 },
    );
  });

  it('holds words of other scripts and digits, and a field without words', () => {
    const docs: Doc[] = [
      [
        { terms: ['café', 'naïve', '10', '3'], weight: 1 },
        { terms: [], weight: 1 },
      ],
      [{ terms: ['pnpm', 'café', 'cafe', 'x'], weight: 0.5 }],
      [],
    ];
    const grams = docs.flatMap((d) => d.flatMap((f) => charGrams(f.terms)));
    expectSameAsGramIndex(gramView(docs).view, docs, [...new Set(grams), '^10$', '^x$']);
  });

  it('is restored from its snapshot, and refuses a malformed one', () => {
    const docs: Doc[] = [
      [{ terms: ['deploy', 'canary', 'rollback'], weight: 1 }],
      [{ terms: ['canary', 'a', 'deployment'], weight: 0.5 }],
    ];
    const { snapshot } = gramView(docs);
    const restored = restoreGramView(structuredClone(snapshot), RANKER_TUNING.gram);
    expect(restored).toBeDefined();
    expectSameAsGramIndex(restored!, docs, ['^can', 'anar', 'loy$', '^a$', 'depl', 'nope']);
    const broken = [
      { docs: snapshot.docs.map(() => 2) }, // a document past the last
      { docs: new Int32Array([0]) }, // postings of another length than the frequencies
      { offsets: snapshot.offsets.map((o, i) => (i === 1 ? 99 : o)) }, // out of order
      { words: snapshot.words.replaceAll('$', '#') }, // words not marked where they end
      { starts: snapshot.starts.subarray(1) },
      { lengths: snapshot.lengths.subarray(1) },
      { endian: snapshot.endian === 'LE' ? 'BE' : 'LE' },
    ];
    for (const change of broken) {
      expect(restoreGramView({ ...snapshot, ...change }, RANKER_TUNING.gram)).toBeUndefined();
    }
  });
});
