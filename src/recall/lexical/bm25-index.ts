import { endianness } from 'node:os';

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

interface Entry {
  docs: number[];
  /** Weighted term frequency while building; the saturated weight afterwards. */
  weights: number[];
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
}

/** The same index, one document at a time, so a caller can pause between documents. */
export function createBm25Builder(params: Bm25Params): Bm25Builder {
  const documents: (readonly WeightedTerms[])[] = [];
  const lengthList: number[] = [];
  const entries = new Map<string, Entry>();
  return {
    add(fields) {
      const d = documents.length;
      documents.push(fields);
      let length = 0;
      for (const field of fields) {
        for (const term of field.terms) {
          let entry = entries.get(term);
          if (entry === undefined) {
            entry = { docs: [], weights: [] };
            entries.set(term, entry);
          }
          const last = entry.docs.length - 1;
          if (entry.docs[last] === d) entry.weights[last]! += field.weight;
          else {
            entry.docs.push(d);
            entry.weights.push(field.weight);
          }
        }
        length += field.weight * field.terms.length;
      }
      lengthList.push(length);
    },
    finish: () => finishIndex(documents, Float64Array.from(lengthList), entries, params),
  };
}

function finishIndex(
  documents: readonly (readonly WeightedTerms[])[],
  lengths: Float64Array,
  entries: Map<string, Entry>,
  params: Bm25Params,
): Bm25Index {
  const size = documents.length;
  let total = 0;
  for (const l of lengths) total += l;
  const avgLength = size > 0 && total > 0 ? total / size : 1;
  const norms = lengths.map((l) => params.k1 * (1 - params.b + (params.b * l) / avgLength));
  for (const { docs, weights } of entries.values()) {
    for (let i = 0; i < docs.length; i++) {
      const f = weights[i]!;
      weights[i] = (f * (params.k1 + 1)) / (f + norms[docs[i]!]!);
    }
  }
  return indexFrom(size, lengths, entries, (doc) => documents[doc] ?? []);
}

const internals = new WeakMap<
  Bm25Index,
  { entries: Map<string, Posting>; lengths: Float64Array }
>();

function indexFrom(
  size: number,
  lengths: Float64Array,
  entries: Map<string, Posting>,
  documentOf: (doc: number) => readonly WeightedTerms[],
): Bm25Index {
  const idf = (term: string): number => {
    const n = entries.get(term)?.docs.length ?? 0;
    return n === 0 ? 0 : Math.log(1 + (size - n + 0.5) / (n + 0.5));
  };
  const termMaps = new Map<number, ReadonlyMap<string, number>>();
  const termsOf = (doc: number): ReadonlyMap<string, number> => {
    let tf = termMaps.get(doc);
    if (tf === undefined) {
      const map = new Map<string, number>();
      for (const field of documentOf(doc)) {
        for (const term of field.terms) map.set(term, (map.get(term) ?? 0) + field.weight);
      }
      termMaps.set(doc, map);
      tf = map;
    }
    return tf;
  };
  const index: Bm25Index = {
    size,
    idf,
    postings: (term) => entries.get(term),
    termsOf,
    lengthOf: (doc) => lengths[doc]!,
  };
  internals.set(index, { entries, lengths });
  return index;
}

/**
 * A built index as plain data: its terms, and its postings and lengths as base64 typed arrays (the
 * exact doubles, so a restored index scores bit for bit as the built one). A cache file keeps it, so
 * a one-shot process does not rebuild the index while nothing changed.
 */
export interface Bm25Snapshot {
  size: number;
  endian: string;
  terms: string;
  counts: string;
  docs: string;
  weights: string;
  lengths: string;
}

const base64 = (a: Int32Array | Float64Array) =>
  Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');

export function snapshotBm25(index: Bm25Index): Bm25Snapshot | undefined {
  const own = internals.get(index);
  if (!own) return undefined;
  const terms: string[] = [];
  let total = 0;
  for (const [term, posting] of own.entries) {
    // A term holding the separator cannot be stored this way (none does: terms are letters and digits).
    if (term.includes('\n')) return undefined;
    terms.push(term);
    total += posting.docs.length;
  }
  const counts = new Int32Array(terms.length);
  const docs = new Int32Array(total);
  const weights = new Float64Array(total);
  let at = 0;
  let t = 0;
  for (const posting of own.entries.values()) {
    counts[t++] = posting.docs.length;
    for (let i = 0; i < posting.docs.length; i++) {
      docs[at] = posting.docs[i]!;
      weights[at++] = posting.weights[i]!;
    }
  }
  return {
    size: index.size,
    endian: endianness(),
    terms: terms.join('\n'),
    counts: base64(counts),
    docs: base64(docs),
    weights: base64(weights),
    lengths: base64(own.lengths),
  };
}

function decode<T extends Int32Array | Float64Array>(
  text: unknown,
  Type: { new (buffer: ArrayBuffer): T; BYTES_PER_ELEMENT: number },
): T | undefined {
  if (typeof text !== 'string') return undefined;
  const bytes = Buffer.from(text, 'base64');
  if (bytes.byteLength % Type.BYTES_PER_ELEMENT !== 0) return undefined;
  // A copy: typed arrays need their element alignment, which a Buffer's offset does not promise.
  return new Type(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

/** The index a snapshot holds; undefined for anything malformed. `documentOf` serves termsOf. */
export function restoreBm25(
  snapshot: Bm25Snapshot,
  documentOf: (doc: number) => readonly WeightedTerms[],
): Bm25Index | undefined {
  if (typeof snapshot !== 'object' || snapshot === null || snapshot.endian !== endianness()) return;
  const counts = decode(snapshot.counts, Int32Array);
  const docs = decode(snapshot.docs, Int32Array);
  const weights = decode(snapshot.weights, Float64Array);
  const lengths = decode(snapshot.lengths, Float64Array);
  if (!counts || !docs || !weights || !lengths || typeof snapshot.terms !== 'string') return;
  const terms = snapshot.terms === '' ? [] : snapshot.terms.split('\n');
  if (terms.length !== counts.length || docs.length !== weights.length) return undefined;
  if (lengths.length !== snapshot.size) return undefined;
  const entries = new Map<string, Posting>();
  let at = 0;
  for (let t = 0; t < terms.length; t++) {
    const end = at + counts[t]!;
    if (end > docs.length) return undefined;
    entries.set(terms[t]!, { docs: docs.subarray(at, end), weights: weights.subarray(at, end) });
    at = end;
  }
  if (at !== docs.length) return undefined;
  return indexFrom(snapshot.size, lengths, entries, documentOf);
}

/** The idf of a term found in exactly one of `size` documents: the unit relevance is scaled to. */
export function singletonIdf(size: number): number {
  return Math.log(1 + (Math.max(1, size) - 0.5) / 1.5);
}
