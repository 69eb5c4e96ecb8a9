/**
 * The LoCoMo retrieval metric (paper, Table 3): for a question, the fraction of its evidence ids
 * covered by the ids of the top-k retrieved observations, averaged over questions; plus hit-any@k
 * (at least one evidence id covered) and the ceiling a perfect ranker over the same observations
 * would reach (evidence that no observation was drawn from can never be covered).
 */

export interface RankedQuestion {
  category: number;
  /** Canonical evidence ids. Questions without any are reported as unscored, not averaged. */
  evidence: readonly string[];
  /** Dialog ids of each retrieved observation, best first. */
  ranked: readonly (readonly string[])[];
  /** Every dialog id any observation of the conversation covers. */
  coverable: ReadonlySet<string>;
}

export interface Summary {
  questions: number;
  scored: number;
  /** Percentages keyed by k. */
  recall: Record<string, number>;
  hitAny: Record<string, number>;
  ceiling: { recall: number; hitAny: number };
}

/** Fraction of `evidence` found among the ids of the first `k` ranked observations. */
export function evidenceRecall(
  evidence: readonly string[],
  ranked: readonly (readonly string[])[],
  k: number,
): number {
  if (evidence.length === 0) return 0;
  const seen = new Set<string>();
  for (const ids of ranked.slice(0, k)) for (const id of ids) seen.add(id);
  let covered = 0;
  for (const id of evidence) if (seen.has(id)) covered++;
  return covered / evidence.length;
}

function percent(sum: number, n: number): number {
  return n === 0 ? 0 : Math.round((10_000 * sum) / n) / 100;
}

export function summarize(questions: readonly RankedQuestion[], ks: readonly number[]): Summary {
  const scored = questions.filter((q) => q.evidence.length > 0);
  const recall: Record<string, number> = {};
  const hitAny: Record<string, number> = {};
  for (const k of ks) {
    let r = 0;
    let h = 0;
    for (const q of scored) {
      const fraction = evidenceRecall(q.evidence, q.ranked, k);
      r += fraction;
      if (fraction > 0) h++;
    }
    recall[String(k)] = percent(r, scored.length);
    hitAny[String(k)] = percent(h, scored.length);
  }
  let ceilingRecall = 0;
  let ceilingHit = 0;
  for (const q of scored) {
    const covered = q.evidence.filter((id) => q.coverable.has(id)).length;
    ceilingRecall += covered / q.evidence.length;
    if (covered > 0) ceilingHit++;
  }
  return {
    questions: questions.length,
    scored: scored.length,
    recall,
    hitAny,
    ceiling: {
      recall: percent(ceilingRecall, scored.length),
      hitAny: percent(ceilingHit, scored.length),
    },
  };
}

export interface Breakdown {
  /** All questions, as the paper averages. */
  overall: Summary;
  /** Categories 1–4 (adversarial questions left out). */
  answerable: Summary;
  categories: Record<string, Summary>;
}

export function breakdown(questions: readonly RankedQuestion[], ks: readonly number[]): Breakdown {
  const categories: Record<string, Summary> = {};
  const ids = [...new Set(questions.map((q) => q.category))].sort((a, b) => a - b);
  for (const c of ids) {
    categories[String(c)] = summarize(
      questions.filter((q) => q.category === c),
      ks,
    );
  }
  return {
    overall: summarize(questions, ks),
    answerable: summarize(
      questions.filter((q) => q.category >= 1 && q.category <= 4),
      ks,
    ),
    categories,
  };
}
