/**
 * The offline ranker's relevance cut-off: which ranked memories real recall may select. Injection is
 * not search (DESIGN principle 3): a wrong memory in context costs more than a missed one, so a
 * memory is selected only on evidence of its own, and zero is a valid answer. Pure.
 *
 * Evidence of its own means:
 * - distinctive shared words: not weak or generic ("need", "add", "user"), not held by most of the
 *   memories (eight "service N" notes share "service"; it tells them apart from nothing), and
 *   worth half when they are everyday English ("name", "after", "ask": lexical/everyday.ts) in a
 *   prompt whose other specific words no memory knows: one such word alone selects nothing
 *   ("suggest a name for my new puppy" and a note on Kafka topic names); a two-word phrase
 *   shared as such ("hard-code") is specific;
 * - at least two thirds of the evidence of the best-covered candidate (coordination level: a
 *   memory sharing one word of "deploy the billing service" is weaker evidence than one sharing
 *   three, however its score was lifted by type or recency), unless it answers a part of the
 *   prompt of its own: a specific word that no memory selected before it matches ("schedule the
 *   cron for 9am Berlin time": the cron rule answers the schedule, the note on where the user
 *   works answers "Berlin");
 * - a relevance or score that is not a small fraction of the best candidate's (among those at
 *   the coordination level): a memory matching one side word of a query that another memory
 *   answers squarely is noise next to it;
 * - a memory adding nothing to what is already selected (every specific word it shares is one a
 *   memory selected before it answers) is kept only as a near tie with the best: a relevance of
 *   `redundantFloor` of the best relevance and a score of `relativeFloor` of the best score
 *   ("add a new column to the users table": the migrations rule answers "column" and "table";
 *   the note on integration tests against a real Postgres shares the same two words, weaker, and
 *   adds nothing the first did not).
 * The constants were chosen on the development labeled sets (eval/recall-sets/coding-agent.json and
 * heldout-platform.json) and measured on heldout-shop.json, never tuned on (docs/eval.md).
 */

export interface RelevanceCutoff {
  /** A term held by more than this share of the memories is common there ... */
  commonShare: number;
  /** ... as long as more than this many hold it (in a handful of memories every word is shared). */
  commonMinDocs: number;
  /** A candidate scoring below this fraction of the best candidate's score is not selected. */
  relativeFloor: number;
  /**
   * What a distinctive everyday word counts for, next to 1 for a specific word (default 0.5;
   * optional so that a cut-off written before it keeps its meaning).
   */
  everydayWeight?: number;
  /**
   * A candidate answering nothing the selected ones have not is kept only when its relevance is at
   * least this fraction of the best relevance (and its score `relativeFloor` of the best score);
   * default 0.9, optional so that a cut-off written before it keeps its meaning.
   */
  redundantFloor?: number;
}

const EVERYDAY_WEIGHT = 0.5;
const REDUNDANT_FLOOR = 0.9;

export const RELEVANCE_CUTOFF: Readonly<RelevanceCutoff> = Object.freeze({
  commonShare: 0.5,
  commonMinDocs: 2,
  relativeFloor: 0.75,
  everydayWeight: EVERYDAY_WEIGHT,
  redundantFloor: REDUNDANT_FLOOR,
});

export interface CutoffCandidate {
  score: number;
  /** The match alone, before type weight and recency (they order memories, never admit one). */
  relevance: number;
  /** Non-weak query words the memory shares (see RankedMemory.overlap). */
  overlap: number;
  /** Of those, the distinctive ones (see RankedMemory.distinctive). */
  distinctive: number;
  /** Of those, the ones that are not everyday English (see RankedMemory.specificWords). */
  specificWords: readonly string[];
  /** Query word pairs shared as such (see RankedMemory.phrases; default 0). */
  phrases?: number;
}

/**
 * How much a candidate's shared words are worth as evidence (1 = one specific word; an everyday
 * word counts `everydayWeight`; a shared phrase makes it one word at least). Pure.
 */
export function evidenceOf(candidate: CutoffCandidate, cutoff: RelevanceCutoff): number {
  const specific = candidate.specificWords.length;
  const weight = cutoff.everydayWeight ?? EVERYDAY_WEIGHT;
  const words = specific + weight * Math.max(0, candidate.distinctive - specific);
  // A shared phrase is worth one word at least, never an extra part ("visa application" next to
  // "visa" and "application" is no third thing asked).
  return (candidate.phrases ?? 0) > 0 ? Math.max(words, 1) : words;
}

/** The candidates (sorted best first) that clear the cut-off, in the same order. */
export function selectRelevant<T extends CutoffCandidate>(
  ranked: readonly T[],
  cutoff: RelevanceCutoff,
): T[] {
  // When every shared word is common (twelve notes on "testing", asked about "testing"), commonness
  // cannot tell them apart: then the shared non-weak words themselves are the evidence.
  const anyDistinctive = ranked.some((r) => r.distinctive > 0 && r.score > 0);
  const evidence = (r: T) => (anyDistinctive ? evidenceOf(r, cutoff) : r.overlap);
  // One word's worth at least: one specific word, everyday ones that corroborate each other, or a
  // shared phrase.
  const eligible = ranked.filter((r) => evidence(r) >= 1 && r.score > 0);
  let level = 0;
  for (const r of eligible) level = Math.max(level, evidence(r));
  const leveled = (r: T) => evidence(r) >= (level * 2) / 3 - 1e-9;
  // Near the best relevance or score of the candidates `among` admits.
  const nearBest = (r: T, among: (o: T) => boolean) => {
    let bestRelevance = 0;
    let bestScore = 0;
    for (const o of eligible) {
      if (!among(o)) continue;
      bestRelevance = Math.max(bestRelevance, o.relevance);
      bestScore = Math.max(bestScore, o.score);
    }
    return (
      r.relevance >= cutoff.relativeFloor * bestRelevance ||
      r.score >= cutoff.relativeFloor * bestScore
    );
  };
  // How many candidates hold each specific word: a word several hold tells none of them apart.
  const holders = new Map<string, number>();
  for (const r of eligible)
    for (const w of r.specificWords) holders.set(w, (holders.get(w) ?? 0) + 1);
  let bestRelevance = 0;
  let bestScore = 0;
  for (const o of eligible) {
    bestRelevance = Math.max(bestRelevance, o.relevance);
    bestScore = Math.max(bestScore, o.score);
  }
  const redundantFloor = cutoff.redundantFloor ?? REDUNDANT_FLOOR;
  const nearTie = (r: T) =>
    r.relevance >= redundantFloor * bestRelevance && r.score >= cutoff.relativeFloor * bestScore;
  const nearBestOf = (r: T) =>
    r.relevance >= redundantFloor * bestRelevance || r.score >= redundantFloor * bestScore;
  const answered = new Set<string>();
  const selected: T[] = [];
  for (const r of eligible) {
    // Adds nothing to what is selected (all its specific words answered, or none of its own):
    // only a near tie with the best is worth the room it takes in the context.
    const adds = r.specificWords.some((w) => !answered.has(w));
    if (selected.length > 0 && !adds && !nearTie(r)) continue;
    // One word of evidence is enough for the best memory, not for another beside it: a second
    // memory sharing one word of the prompt ("budget" in "ship the new budget insights screen",
    // beside the feature-flag rule that answers "new screens ship") is kept only near the best.
    if (selected.length > 0 && evidence(r) <= 1 && !nearBestOf(r)) continue;
    // A memory answering a part of the prompt of its own (a specific word that it alone holds and
    // no memory selected before it answers: the photo in "the visa photo and fee") is measured
    // against those answering no more of the prompt than it does, and below the coordination
    // level still kept when it is near the best ("Berlin" beside the cron rule); any other needs
    // the coordination level and to be near the best of those covering at least as much of the
    // prompt, never of one covering less (the CDC note holding "MySQL" and "Kafka" is not dropped
    // for a DAG-naming note that scores higher on "MySQL" alone).
    const ownPart = r.specificWords.some((w) => !answered.has(w) && holders.get(w) === 1);
    const kept = leveled(r)
      ? nearBest(
          r,
          ownPart
            ? (o) => leveled(o) && evidence(o) <= evidence(r)
            : (o) => leveled(o) && evidence(o) >= evidence(r),
        )
      : ownPart && nearBest(r, leveled);
    if (!kept) continue;
    selected.push(r);
    for (const w of r.specificWords) answered.add(w);
  }
  return selected;
}
