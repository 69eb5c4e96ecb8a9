import { endianness } from 'node:os';
import { runSteps } from '../../util/steps.js';
import { createPostingLists, type PostingLists } from './posting-lists.js';

/**
 * A small in-memory BM25F index: each document is a set of weighted fields, term frequencies and
 * lengths are weight-summed across fields, and the saturated term weight of every posting is
 * computed once at build time, so a query only adds precomputed numbers.
 */

export interface WeightedTerms {
  terms: readonly string[];
  weight: number;
}

export interface Bm25Params {
  k1: number;
  b: number;
}

export interface Bm25Index {
  readonly size: number;
  /** Robertson/Lucene idf, 0 for an unknown term. */
  idf(term: string): number;
  /** Documents holding `term` and each one's saturated term weight (idf not applied). */
  postings(term: string): Posting | undefined;
  /** Per document: its terms with their weighted frequency, and its weighted length. */
  termsOf(doc: number): ReadonlyMap<string, number>;
  lengthOf(doc: number): number;
}

export interface Posting {
  /** Documents holding the term, ascending. */
  docs: ArrayLike<number>;
  /** Each one's saturated term weight, in the same order. */
  weights: ArrayLike<number>;
}

/**
 * Built on every cold recall (a hook runs in a fresh process each turn), so it takes one pass over
 * the terms with a single map and plain arrays; per-document term maps are only made for the few
 * documents pseudo-relevance feedback asks about.
 */
export function buildBm25Index(
  documents: readonly (readonly WeightedTerms[])[],
  params: Bm25Params,
): Bm25Index {
  const builder = createBm25Builder(params);
  for (const doc of documents) builder.add(doc);
  return builder.finish();
}

export interface Bm25Builder {
  /** Add the next document (its number is the count added before it). */
  add(fields: readonly WeightedTerms[]): void;
  finish(): Bm25Index;
  /** The same, a slice of postings per step, so a caller can pause while it is computed. */
  finishSteps(): Generator<void, Bm25Index>;
}

/**
 * The same index, one document at a time, so a caller can pause between documents. With
 * `documentOf`, the index does not keep the documents added: it asks for one again when
 * `termsOf` needs it (pseudo-relevance feedback looks into a few per query), which is most of
 * the memory a long-running host would otherwise keep for it.
 */
export function createBm25Builder(
  params: Bm25Params,
  documentOf?: (doc: number) => readonly WeightedTerms[],
): Bm25Builder {
  const documents: (readonly WeightedTerms[])[] = [];
  const lengthList: number[] = [];
  const lists = createPostingLists();
  return {
    add(fields) {
      const d = lengthList.length;
      if (!documentOf) documents.push(fields);
      let length = 0;
      for (const field of fields) {
        for (const term of field.terms) lists.add(term, d, field.weight);
        length += field.weight * field.terms.length;
      }
      lengthList.push(length);
    },
    finish() {
      return runSteps(this.finishSteps());
    },
    finishSteps: () =>
      finishIndex(
        Float64Array.from(lengthList),
        lists,
        params,
        documentOf ?? ((doc) => documents[doc] ?? []),
      ),
  };
}

/** Per-document term maps an index keeps for feedback (a few are read per query). */
const TERM_MAPS_KEPT = 256;

/** Postings weighed between two steps of `finishSteps` (a power of two; small for the reason in posting-lists.ts). */
const POSTINGS_PER_STEP = 8_192;

/**
 * The saturated weights, packed: one array of documents and one of weights for all terms, a term
 * being an offset in them (a long-running host keeps this index; two arrays per term cost more
 * than the numbers they hold).
 */
function* finishIndex(
  lengths: Float64Array,
  lists: PostingLists,
  params: Bm25Params,
  documentOf: (doc: number) => readonly WeightedTerms[],
): Generator<void, Bm25Index> {
  const size = lengths.length;
  const norms = lengthNorms(lengths, params);
  yield;
  const { ids, offsets, docs, freqs } = yield* lists.finishSteps();
  // Saturated in place: the frequencies become the weights.
  const weights = freqs;
  for (let i = 0; i < docs.length; i++) {
    if ((i & (POSTINGS_PER_STEP - 1)) === POSTINGS_PER_STEP - 1) yield;
    weights[i] = saturated(freqs[i]!, norms[docs[i]!]!, params);
  }
  const postingOf = (t: number): Posting => ({
    docs: docs.subarray(offsets[t]!, offsets[t + 1]!),
    weights: weights.subarray(offsets[t]!, offsets[t + 1]!),
  });
  const postings = (term: string): Posting | undefined => {
    const t = ids.get(term);
    return t === undefined ? undefined : postingOf(t);
  };
  const index = indexOver(size, lengths, postings, documentOf);
  internals.set(index, { packed: { ids, offsets, docs, weights, lengths } });
  return index;
}

const internals = new WeakMap<
  Bm25Index,
  {
    /** A built index's packed postings: its snapshot holds them as they are. */
    packed?: {
      ids: Map<string, number>;
      offsets: Int32Array;
      docs: Int32Array;
      weights: Float64Array;
      lengths: Float64Array;
    };
    /** A restored index is its snapshot. */
    snapshot?: Bm25Snapshot;
  }
>();

function indexOver(
  size: number,
  lengths: Float64Array,
  postings: (term: string) => Posting | undefined,
  documentOf: (doc: number) => readonly WeightedTerms[],
): Bm25Index {
  const idf = (term: string): number => idfOf(size, postings(term)?.docs.length ?? 0);
  const termMaps = new Map<number, ReadonlyMap<string, number>>();
  const termsOf = (doc: number): ReadonlyMap<string, number> => {
    let tf = termMaps.get(doc);
    if (tf === undefined) {
      const map = new Map<string, number>();
      for (const field of documentOf(doc)) {
        for (const term of field.terms) map.set(term, (map.get(term) ?? 0) + field.weight);
      }
      termMaps.set(doc, map);
      // Feedback reads a few documents per query: a long-running host keeps the recent ones only.
      if (termMaps.size > TERM_MAPS_KEPT) termMaps.delete(termMaps.keys().next().value!);
      tf = map;
    }
    return tf;
  };
  return { size, idf, postings, termsOf, lengthOf: (doc) => lengths[doc]! };
}

/**
 * A built index as plain data: its terms in the index's order (one string, `\n` after each) with
 * where each starts, a hash table to find them, and its postings and lengths as typed arrays (the
 * exact doubles, so a restored index scores bit for bit as the built one). A cache file keeps it,
 * so a one-shot process does not rebuild the index while nothing changed; restoring it builds no
 * map of every term, a query's terms are looked up in the table. (Sorted terms and a binary search
 * did the same, but sorting tens of thousands of terms was most of a cold recall's snapshot.)
 */
export interface Bm25Snapshot {
  size: number;
  endian: string;
  terms: string;
  /** Where term t starts in `terms`; one more entry, past the end of the last term plus one. */
  starts: Int32Array;
  /** Where term t's postings start in `docs` and `weights`; one more entry, their length. */
  offsets: Int32Array;
  docs: Int32Array;
  weights: Float64Array;
  lengths: Float64Array;
  /**
   * Open addressing: a power-of-two number of slots holding a term's number or -1; a term sits at
   * the first free slot from its hash (`termHash`) on.
   */
  table: Int32Array;
}

/** FNV-1a over a term's UTF-16 code units: where the table holds it. Pure. */
function termHash(term: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < term.length; i++) hash = Math.imul(hash ^ term.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** Terms placed in the table between two steps of a snapshot (a power of two). */
const TERMS_PER_STEP = 4_096;

/**
 * The snapshot in steps (placing tens of thousands of terms in the table), to pause between. The
 * postings are the index's own packed arrays: nothing is copied.
 */
export function* snapshotBm25Steps(index: Bm25Index): Generator<void, Bm25Snapshot | undefined> {
  const own = internals.get(index);
  if (own?.snapshot) return own.snapshot;
  if (!own?.packed) return undefined;
  const { ids, offsets, docs, weights, lengths } = own.packed;
  const count = ids.size;
  let slots = 2;
  while (slots < 2 * count) slots *= 2;
  const table = new Int32Array(slots).fill(-1);
  const starts = new Int32Array(count + 1);
  const parts: string[] = [];
  let chars = 0;
  let t = 0;
  // The map's order is term number order: the packed postings' order.
  for (const term of ids.keys()) {
    // A term holding the separator cannot be stored this way (none does: terms are letters and digits).
    if (term.includes('\n')) return undefined;
    if ((t & (TERMS_PER_STEP - 1)) === TERMS_PER_STEP - 1) yield;
    starts[t] = chars;
    chars += term.length + 1;
    parts.push(term, '\n');
    let slot = termHash(term) & (slots - 1);
    while (table[slot] !== -1) slot = (slot + 1) & (slots - 1);
    table[slot] = t++;
  }
  starts[count] = chars;
  return {
    size: index.size,
    endian: endianness(),
    terms: parts.join(''),
    starts,
    offsets,
    docs,
    weights,
    lengths,
    table,
  };
}

/**
 * `checked`: the snapshot was made by this process's own code (handed over by a worker thread,
 * not read from a file), so the per-posting checks that guard against a corrupt file are skipped.
 */
export interface RestoreOptions {
  checked?: boolean;
}

/** The index a snapshot holds; undefined for anything malformed. `documentOf` serves termsOf. */
export function restoreBm25(
  snapshot: Bm25Snapshot,
  documentOf: (doc: number) => readonly WeightedTerms[],
  options: RestoreOptions = {},
): Bm25Index | undefined {
  if (typeof snapshot !== 'object' || snapshot === null || snapshot.endian !== endianness()) return;
  const { size, terms, starts, offsets, docs, weights, lengths, table } = snapshot;
  if (typeof terms !== 'string' || !Number.isInteger(size)) return undefined;
  if (!(starts instanceof Int32Array) || !(offsets instanceof Int32Array)) return undefined;
  if (!(docs instanceof Int32Array) || !(weights instanceof Float64Array)) return undefined;
  if (!(lengths instanceof Float64Array) || lengths.length !== size) return undefined;
  if (!(table instanceof Int32Array)) return undefined;
  const count = starts.length - 1;
  if (count < 0 || offsets.length !== count + 1 || docs.length !== weights.length) return undefined;
  if (starts[0] !== 0 || offsets[0] !== 0) return undefined;
  if (starts[count] !== terms.length || offsets[count] !== docs.length) return undefined;
  const slots = table.length;
  if (slots === 0 || (slots & (slots - 1)) !== 0 || slots <= count) return undefined;
  if (options.checked !== true) {
    // Every posting and term boundary in range and in order, every document number a document.
    for (let t = 0; t < count; t++) {
      if (offsets[t]! > offsets[t + 1]! || starts[t]! >= starts[t + 1]!) return undefined;
      if (terms.charCodeAt(starts[t + 1]! - 1) !== 10) return undefined;
    }
    for (let i = 0; i < docs.length; i++) if (docs[i]! < 0 || docs[i]! >= size) return undefined;
    // Slots a power of two, each empty or a term, and some empty (a probe must end).
    let empty = 0;
    for (const t of table) {
      if (t === -1) empty++;
      else if (t < 0 || t >= count) return undefined;
    }
    if (empty === 0) return undefined;
  }
  const isTerm = (t: number, term: string) =>
    starts[t + 1]! - 1 - starts[t]! === term.length && terms.startsWith(term, starts[t]!);
  const postingAt = (t: number): Posting => ({
    docs: docs.subarray(offsets[t]!, offsets[t + 1]!),
    weights: weights.subarray(offsets[t]!, offsets[t + 1]!),
  });
  const found = new Map<string, Posting | undefined>();
  const postings = (term: string): Posting | undefined => {
    if (found.has(term)) return found.get(term);
    let hit: Posting | undefined;
    for (
      let slot = termHash(term) & (slots - 1);
      table[slot] !== -1;
      slot = (slot + 1) & (slots - 1)
    ) {
      if (isTerm(table[slot]!, term)) {
        hit = postingAt(table[slot]!);
        break;
      }
    }
    found.set(term, hit);
    return hit;
  };
  const index = indexOver(size, lengths, postings, documentOf);
  internals.set(index, { snapshot });
  return index;
}

/** Robertson/Lucene idf of a term held by `n` of `size` documents (0 for none). Pure. */
export function idfOf(size: number, n: number): number {
  return n === 0 ? 0 : Math.log(1 + (size - n + 0.5) / (n + 0.5));
}

/** Each document's length term of BM25's saturation, `k1 × (1 − b + b × length / average)`. Pure. */
export function lengthNorms(lengths: Float64Array, params: Bm25Params): Float64Array {
  let total = 0;
  for (const l of lengths) total += l;
  const avgLength = lengths.length > 0 && total > 0 ? total / lengths.length : 1;
  return lengths.map((l) => params.k1 * (1 - params.b + (params.b * l) / avgLength));
}

/** The saturated weight of weighted frequency `f` in a document of length norm `norm`. Pure. */
export function saturated(f: number, norm: number, params: Bm25Params): number {
  return (f * (params.k1 + 1)) / (f + norm);
}

/** The idf of a term found in exactly one of `size` documents: the unit relevance is scaled to. */
export function singletonIdf(size: number): number {
  return Math.log(1 + (Math.max(1, size) - 0.5) / 1.5);
}
