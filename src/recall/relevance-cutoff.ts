/**
 * The offline ranker's relevance cut-off: which ranked memories real recall may select. Injection is
 * not search (DESIGN principle 3): a wrong memory in context costs more than a missed one, so a
 * memory is selected only on evidence of its own, and zero is a valid answer. Pure.
 *
 * Evidence of its own means both:
 * - at least one distinctive shared word: not a weak or generic word ("need", "add", "user"), and
 *   not a word most of the memories hold (eight "service N" notes share "service"; it tells them
 *   apart from nothing);
 * - at least two thirds as many distinctive query words as the best-covered candidate matches
 *   (coordination level: a memory sharing one word of "deploy the billing service" is weaker
 *   evidence than one sharing three, however its score was lifted by type or recency; a prompt
 *   asking two things, "the visa photo and fee", keeps the memory answering each part);
 * - a relevance or score that is not a small fraction of the best candidate's (among those sharing
 *   no more words): a memory matching one side word of a query that another memory answers
 *   squarely is noise next to it.
 * The constants were chosen on the development labeled set (eval/recall-sets/coding-agent.json)
 * and checked on the held-out one (docs/eval.md has both results).
 */

export interface RelevanceCutoff {
  /** A term held by more than this share of the memories is common there ... */
  commonShare: number;
  /** ... as long as more than this many hold it (in a handful of memories every word is shared). */
  commonMinDocs: number;
  /** A candidate scoring below this fraction of the best candidate's score is not selected. */
  relativeFloor: number;
}

export const RELEVANCE_CUTOFF: Readonly<RelevanceCutoff> = Object.freeze({
  commonShare: 0.5,
  commonMinDocs: 2,
  relativeFloor: 0.75,
});

export interface CutoffCandidate {
  score: number;
  /** The match alone, before type weight and recency (they order memories, never admit one). */
  relevance: number;
  /** Non-weak query words the memory shares (see RankedMemory.overlap). */
  overlap: number;
  /** Of those, the distinctive ones (see RankedMemory.distinctive). */
  distinctive: number;
}

/** The candidates (sorted best first) that clear the cut-off, in the same order. */
export function selectRelevant<T extends CutoffCandidate>(
  ranked: readonly T[],
  cutoff: RelevanceCutoff,
): T[] {
  // When every shared word is common (twelve notes on "testing", asked about "testing"), commonness
  // cannot tell them apart: then the shared non-weak words themselves are the evidence.
  const anyDistinctive = ranked.some((r) => r.distinctive > 0 && r.score > 0);
  const evidence = (r: T) => (anyDistinctive ? r.distinctive : r.overlap);
  const eligible = ranked.filter((r) => evidence(r) > 0 && r.score > 0);
  let level = 0;
  for (const r of eligible) level = Math.max(level, evidence(r));
  const leveled = eligible.filter((r) => evidence(r) >= Math.ceil((level * 2) / 3));
  // Each candidate is measured against the best of those sharing no more words than it does: a
  // memory answering one part of a two-part prompt is not cut for the one answering the other.
  return leveled.filter((r) => {
    let bestRelevance = 0;
    let bestScore = 0;
    for (const o of leveled) {
      if (evidence(o) > evidence(r)) continue;
      bestRelevance = Math.max(bestRelevance, o.relevance);
      bestScore = Math.max(bestScore, o.score);
    }
    return (
      r.relevance >= cutoff.relativeFloor * bestRelevance ||
      r.score >= cutoff.relativeFloor * bestScore
    );
  });
}
