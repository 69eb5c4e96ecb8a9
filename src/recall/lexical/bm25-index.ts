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
  docs: Int32Array;
  weights: Float64Array;
}

export function buildBm25Index(
  documents: readonly (readonly WeightedTerms[])[],
  params: Bm25Params,
): Bm25Index {
  const size = documents.length;
  const termFreqs: Map<string, number>[] = [];
  const lengths = new Float64Array(size);
  for (let d = 0; d < size; d++) {
    const tf = new Map<string, number>();
    for (const field of documents[d]!) {
      for (const term of field.terms) tf.set(term, (tf.get(term) ?? 0) + field.weight);
      lengths[d]! += field.weight * field.terms.length;
    }
    termFreqs.push(tf);
  }
  let total = 0;
  for (const l of lengths) total += l;
  const avgLength = size > 0 && total > 0 ? total / size : 1;

  const docLists = new Map<string, number[]>();
  for (let d = 0; d < size; d++) {
    for (const term of termFreqs[d]!.keys()) {
      const list = docLists.get(term);
      if (list) list.push(d);
      else docLists.set(term, [d]);
    }
  }
  const postings = new Map<string, Posting>();
  const idfs = new Map<string, number>();
  for (const [term, list] of docLists) {
    const weights = new Float64Array(list.length);
    list.forEach((d, i) => {
      const f = termFreqs[d]!.get(term)!;
      const norm = params.k1 * (1 - params.b + (params.b * lengths[d]!) / avgLength);
      weights[i] = (f * (params.k1 + 1)) / (f + norm);
    });
    postings.set(term, { docs: Int32Array.from(list), weights });
    idfs.set(term, Math.log(1 + (size - list.length + 0.5) / (list.length + 0.5)));
  }
  return {
    size,
    idf: (term) => idfs.get(term) ?? 0,
    postings: (term) => postings.get(term),
    termsOf: (doc) => termFreqs[doc]!,
    lengthOf: (doc) => lengths[doc]!,
  };
}

/** The idf of a term found in exactly one of `size` documents: the unit relevance is scaled to. */
export function singletonIdf(size: number): number {
  return Math.log(1 + (Math.max(1, size) - 0.5) / 1.5);
}
