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
  docs: readonly number[];
  /** Each one's saturated term weight, in the same order. */
  weights: readonly number[];
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
  const idf = (term: string): number => {
    const n = entries.get(term)?.docs.length ?? 0;
    return n === 0 ? 0 : Math.log(1 + (size - n + 0.5) / (n + 0.5));
  };
  const termMaps = new Map<number, ReadonlyMap<string, number>>();
  const termsOf = (doc: number): ReadonlyMap<string, number> => {
    let tf = termMaps.get(doc);
    if (tf === undefined) {
      const map = new Map<string, number>();
      for (const field of documents[doc] ?? []) {
        for (const term of field.terms) map.set(term, (map.get(term) ?? 0) + field.weight);
      }
      termMaps.set(doc, map);
      tf = map;
    }
    return tf;
  };
  return {
    size,
    idf,
    postings: (term) => entries.get(term),
    termsOf,
    lengthOf: (doc) => lengths[doc]!,
  };
}

/** The idf of a term found in exactly one of `size` documents: the unit relevance is scaled to. */
export function singletonIdf(size: number): number {
  return Math.log(1 + (Math.max(1, size) - 0.5) / 1.5);
}
