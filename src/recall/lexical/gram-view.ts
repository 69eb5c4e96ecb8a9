import { endianness } from 'node:os';
import {
  type Bm25Index,
  type Bm25Params,
  idfOf,
  lengthNorms,
  type Posting,
  type RestoreOptions,
  saturated,
  type WeightedTerms,
} from './bm25-index.js';
import { GRAM } from './char-grams.js';
import { createPostingLists } from './posting-lists.js';

/**
 * The character-gram view of BM25F (see char-grams.ts), kept as the postings of whole words: a
 * gram's postings are made when a query asks for that gram, from the words that hold it. The same
 * numbers as a BM25 index over every document's grams (`buildBm25Index` of `charGrams`), for a
 * fraction of the work: a word is one posting where its grams were five or more, and a cold recall
 * built and saved every one of them (most of its index time, and most of the cache file) to look up
 * the thirty or so grams of one query.
 *
 * Exact: a gram's weighted frequency in a document is the sum, over the words holding it, of the
 * word's weighted frequency times how often the gram occurs in it. Every addend is a field weight
 * (1 or 0.5, RANKER_TUNING) times a count, so any order of addition gives the same double as
 * the grams' own index did.
 */
export type GramView = Pick<Bm25Index, 'size' | 'idf' | 'postings'>;

/**
 * A gram view as plain data (a cache file keeps it as is): every word marked as the grams mark it
 * (`^word$`), one after another with a `\n` after each, and each word's documents with its
 * weighted frequency there; the documents' weighted gram lengths.
 */
export interface GramViewSnapshot {
  size: number;
  endian: string;
  words: string;
  /** Where word w's marked form starts in `words`; one more entry, `words.length`. */
  starts: Int32Array;
  /** Where word w's postings start in `docs` and `freqs`; one more entry, their length. */
  offsets: Int32Array;
  docs: Int32Array;
  freqs: Float64Array;
  lengths: Float64Array;
}

export interface GramViewBuilder {
  /** Add the next document: per field its words (before stemming) and the field's weight. */
  add(fields: readonly WeightedTerms[]): void;
  /** The view, a slice of words per step, so a caller can pause while it is packed. */
  finishSteps(): Generator<void, { view: GramView; snapshot: GramViewSnapshot }>;
}

/** How many grams `charGrams` makes of one word. */
function gramCount(word: string): number {
  const marked = word.length + 2;
  return marked <= GRAM ? 1 : marked - GRAM + 1;
}

/** Words packed between two steps of `finishSteps`. */
const WORDS_PER_STEP = 4_096;

export function createGramViewBuilder(params: Bm25Params): GramViewBuilder {
  const lists = createPostingLists();
  const lengths: number[] = [];
  return {
    add(fields) {
      const d = lengths.length;
      let length = 0;
      for (const field of fields) {
        let grams = 0;
        for (const word of field.terms) {
          grams += gramCount(word);
          lists.add(word, d, field.weight);
        }
        // As the grams' index counts a field's length: its weight times its number of grams.
        length += field.weight * grams;
      }
      lengths.push(length);
    },
    *finishSteps() {
      const { ids, offsets, docs, freqs } = yield* lists.finishSteps();
      const starts = new Int32Array(ids.size + 1);
      const marked: string[] = [];
      let w = 0;
      let chars = 0;
      for (const word of ids.keys()) {
        if ((w & (WORDS_PER_STEP - 1)) === WORDS_PER_STEP - 1) yield;
        starts[w++] = chars;
        marked.push(`^${word}$\n`);
        chars += word.length + 3;
      }
      starts[w] = chars;
      const snapshot: GramViewSnapshot = {
        size: lengths.length,
        endian: endianness(),
        words: marked.join(''),
        starts,
        offsets,
        docs,
        freqs,
        lengths: Float64Array.from(lengths),
      };
      return { view: viewOver(snapshot, params), snapshot };
    },
  };
}

/** The view a snapshot holds; undefined for anything malformed. */
export function restoreGramView(
  snapshot: GramViewSnapshot,
  params: Bm25Params,
  options: RestoreOptions = {},
): GramView | undefined {
  if (typeof snapshot !== 'object' || snapshot === null || snapshot.endian !== endianness()) return;
  const { size, words, starts, offsets, docs, freqs, lengths } = snapshot;
  if (typeof words !== 'string' || !Number.isInteger(size)) return undefined;
  if (!(starts instanceof Int32Array) || !(offsets instanceof Int32Array)) return undefined;
  if (!(docs instanceof Int32Array) || !(freqs instanceof Float64Array)) return undefined;
  if (!(lengths instanceof Float64Array) || lengths.length !== size) return undefined;
  const count = starts.length - 1;
  if (count < 0 || offsets.length !== count + 1 || docs.length !== freqs.length) return undefined;
  if (starts[0] !== 0 || offsets[0] !== 0) return undefined;
  if (starts[count] !== words.length || offsets[count] !== docs.length) return undefined;
  if (options.checked === true) return viewOver(snapshot, params);
  // Every word marked and in range, every posting range in order, every document a document.
  for (let w = 0; w < count; w++) {
    const from = starts[w]!;
    const to = starts[w + 1]!;
    if (offsets[w]! > offsets[w + 1]! || to - from < 3) return undefined;
    if (words[from] !== '^' || words[to - 2] !== '$' || words[to - 1] !== '\n') return undefined;
  }
  for (let i = 0; i < docs.length; i++) if (docs[i]! < 0 || docs[i]! >= size) return undefined;
  return viewOver(snapshot, params);
}

/** Grams whose postings a view keeps made (a query has a few dozen). */
const POSTINGS_KEPT = 4_096;

function viewOver(snapshot: GramViewSnapshot, params: Bm25Params): GramView {
  const { size, words, starts, offsets, docs, freqs } = snapshot;
  const norms = lengthNorms(snapshot.lengths, params);
  const wordAt = (position: number): number => {
    let lo = 0;
    let hi = starts.length - 2;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (starts[mid]! <= position) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const made = new Map<string, Posting | undefined>();
  const make = (gram: string): Posting | undefined => {
    const f = new Float64Array(size);
    let held = 0;
    for (let at = words.indexOf(gram); at !== -1; at = words.indexOf(gram, at + 1)) {
      const w = wordAt(at);
      // The word's marked form, without its `\n`: the gram must lie inside it, and be one of its
      // grams (a short word's only gram is the whole marked word).
      const end = starts[w + 1]! - 1;
      if (at + gram.length > end) continue;
      const whole = end - starts[w]! <= GRAM;
      if (whole ? at !== starts[w] || at + gram.length !== end : gram.length !== GRAM) continue;
      for (let i = offsets[w]!; i < offsets[w + 1]!; i++) {
        if (f[docs[i]!] === 0) held++;
        f[docs[i]!]! += freqs[i]!;
      }
    }
    if (held === 0) return undefined;
    const postingDocs = new Int32Array(held);
    const weights = new Float64Array(held);
    let k = 0;
    for (let d = 0; d < size; d++) {
      if (f[d] === 0) continue;
      postingDocs[k] = d;
      weights[k++] = saturated(f[d]!, norms[d]!, params);
    }
    return { docs: postingDocs, weights };
  };
  const postings = (gram: string): Posting | undefined => {
    if (made.has(gram)) return made.get(gram);
    const posting = make(gram);
    if (made.size >= POSTINGS_KEPT) made.clear();
    made.set(gram, posting);
    return posting;
  };
  return { size, postings, idf: (gram) => idfOf(size, postings(gram)?.docs.length ?? 0) };
}
