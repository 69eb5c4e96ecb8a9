import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildConceptTable,
  conceptStem,
  conceptStemInitial,
  DEFAULT_TAXONOMY,
  lazyConceptTable,
  relatedTerms,
} from './concepts.js';
import { IRREGULAR_FORMS } from './lemmas.js';

const words = (taxonomy: string) =>
  taxonomy
    .split(/[\s:]+/)
    .map((w) => w.replace(/^@/, ''))
    .filter(Boolean);

/** Every term the eager table knows, and words it does not, answered the same way, in order. */
function expectSameAnswers(taxonomy: string, extra: readonly string[] = []) {
  const eager = buildConceptTable(taxonomy);
  const lazy = lazyConceptTable(taxonomy);
  const terms = [...eager.keys(), ...words(taxonomy).map(conceptStem), ...extra];
  for (const term of terms) {
    expect([...lazy(term)], term).toEqual([...(eager.get(term) ?? [])]);
  }
}

describe('the concept table, computed per term', () => {
  it('starts every stem with the first letter of its (base) word, for every taxonomy word', () => {
    for (const word of [...words(DEFAULT_TAXONOMY), ...IRREGULAR_FORMS.keys(), 'Yelling', 'y']) {
      expect(conceptStem(word).charAt(0), word).toBe(conceptStemInitial(word));
    }
  });

  it('gives the built-in table, entry for entry and in the same order', () => {
    expectSameAnswers(DEFAULT_TAXONOMY, ['', 'zzz', '数据', 'kubelet', 'evict']);
    expect([...relatedTerms(conceptStem('install'))]).toEqual([
      ...(buildConceptTable(DEFAULT_TAXONOMY).get(conceptStem('install')) ?? []),
    ]);
  });

  it('gives the same answers for any taxonomy: references, cycles, repeats, irregular forms', () => {
    const vocabulary = [
      'went',
      'go',
      'running',
      'run',
      'ran',
      'cats',
      'cat',
      'yes',
      'ies',
      'a',
      '数据',
    ];
    const word = fc.oneof(fc.constantFrom(...vocabulary), fc.stringMatching(/^[a-z]{1,8}$/));
    const line = fc
      .tuple(
        fc.constantFrom('alpha', 'beta', 'gamma', 'went', 'cats'),
        fc.array(fc.oneof(word, fc.constantFrom('@alpha', '@beta', '@gamma', '@none')), {
          minLength: 1,
          maxLength: 6,
        }),
      )
      .map(([head, members]) => `${head}: ${members.join(' ')}`);
    fc.assert(
      fc.property(fc.array(line, { maxLength: 8 }), (lines) => {
        expectSameAnswers(`\n${lines.join('\n')}\n`, ['alpha', 'cat', 'go']);
      }),
      { numRuns: 200 },
    );
  });
});
