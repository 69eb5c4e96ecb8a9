/**
 * English stems come from the `stemmer` package (Porter's algorithm): a well-kept implementation of
 * the same rules engram once carried by hand. Words of other scripts, digits and mixed tokens such
 * as "node20" pass through unchanged.
 */
import { stemmer } from 'stemmer';

/** The Porter stem of one lower-case word. */
export function stem(word: string): string {
  return stemmer(word);
}
