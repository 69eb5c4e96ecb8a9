/**
 * Textbook BM25 (k1 1.2, b 0.75, Lucene-style idf) over lower-cased alphanumeric words, with no
 * stop words and no stemming: the plain baseline every evaluation report shows beside engram.
 */

export interface Bm25Params {
  k1: number;
  b: number;
}

export const PLAIN_BM25: Bm25Params = { k1: 1.2, b: 0.75 };

export function plainTokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Indexes `docs`; the returned function ranks every doc for a query (ties by doc order). */
export function createBm25(
  docs: readonly string[],
  params: Bm25Params = PLAIN_BM25,
  tokens: (text: string) => string[] = plainTokens,
): (query: string) => number[] {
  const termFreqs = docs.map((d) => {
    const tf = new Map<string, number>();
    for (const t of tokens(d)) tf.set(t, (tf.get(t) ?? 0) + 1);
    return tf;
  });
  const lengths = docs.map((d) => tokens(d).length);
  const avgLength = lengths.reduce((a, b) => a + b, 0) / Math.max(1, docs.length);
  const df = new Map<string, number>();
  for (const tf of termFreqs) for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const n = docs.length;
  return (query) => {
    const scores = new Float64Array(n);
    for (const term of tokens(query)) {
      const d = df.get(term);
      if (!d) continue;
      const idf = Math.log(1 + (n - d + 0.5) / (d + 0.5));
      for (let i = 0; i < n; i++) {
        const f = termFreqs[i]!.get(term);
        if (!f) continue;
        const norm = params.k1 * (1 - params.b + (params.b * lengths[i]!) / (avgLength || 1));
        scores[i]! += (idf * f * (params.k1 + 1)) / (f + norm);
      }
    }
    return Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b);
  };
}
