/**
 * Character 4-grams of words, with word-boundary marks: a second, fuzzier view of the text that
 * still matches across spelling slips, compounds and derivations the stemmer does not join
 * ("persue"/"pursue", "mentorship"/"mentored").
 */
export const GRAM = 4;

export function charGrams(words: readonly string[]): string[] {
  const out: string[] = [];
  for (const word of words) {
    const marked = `^${word}$`;
    if (marked.length <= GRAM) {
      out.push(marked);
      continue;
    }
    for (let i = 0; i + GRAM <= marked.length; i++) out.push(marked.slice(i, i + GRAM));
  }
  return out;
}
