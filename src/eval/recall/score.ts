/**
 * The three numbers a labeled recall set is judged by. Pure.
 * - precision: of everything selected (for every prompt, unrelated ones included), the share that
 *   is gold; a prompt that selects nothing adds nothing to it.
 * Each is null when its whole is zero (nothing selected, no gold, no unrelated prompt).
 * - gold recall: of every gold memory, the share that was selected for its prompt.
 * - silence: of the unrelated prompts, the share answered with nothing.
 */
export interface PromptOutcome {
  prompt: string;
  gold: readonly string[];
  selected: readonly string[];
}

export interface RecallSetScore {
  prompts: number;
  relevantPrompts: number;
  unrelatedPrompts: number;
  selected: number;
  correct: number;
  /** correct / selected; null when nothing was selected at all (the precision of nothing is undefined). */
  precision: number | null;
  goldTotal: number;
  goldRecalled: number;
  /** goldRecalled / goldTotal; null when the set has no gold. */
  recall: number | null;
  unrelatedSilent: number;
  /** unrelatedSilent / unrelatedPrompts; null when there are none. */
  silence: number | null;
}

export interface RecallSetTargets {
  precision: number;
  recall: number;
  silence: number;
}

/** The acceptance targets: precision ≥ 0.9, ≥ 90 % of gold recalled, every unrelated prompt silent. */
export const DEFAULT_RECALL_SET_TARGETS: RecallSetTargets = {
  precision: 0.9,
  recall: 0.9,
  silence: 1,
};

/** A share of nothing is undefined, not perfect: 0/0 printed as 1.000 passed a set that selected nothing. */
const ratio = (part: number, whole: number): number | null => (whole === 0 ? null : part / whole);

export function scoreRecallSet(outcomes: readonly PromptOutcome[]): RecallSetScore {
  let selected = 0;
  let correct = 0;
  let goldTotal = 0;
  let goldRecalled = 0;
  let unrelated = 0;
  let silent = 0;
  for (const o of outcomes) {
    const gold = new Set(o.gold);
    const chosen = new Set(o.selected);
    selected += chosen.size;
    for (const f of chosen) if (gold.has(f)) correct++;
    goldTotal += gold.size;
    for (const g of gold) if (chosen.has(g)) goldRecalled++;
    if (gold.size === 0) {
      unrelated++;
      if (chosen.size === 0) silent++;
    }
  }
  return {
    prompts: outcomes.length,
    relevantPrompts: outcomes.length - unrelated,
    unrelatedPrompts: unrelated,
    selected,
    correct,
    precision: ratio(correct, selected),
    goldTotal,
    goldRecalled,
    recall: ratio(goldRecalled, goldTotal),
    unrelatedSilent: silent,
    silence: ratio(silent, unrelated),
  };
}

/** Which targets a score misses (empty when it meets them all); an undefined share misses none. Pure. */
export function missedTargets(
  score: RecallSetScore,
  targets: RecallSetTargets = DEFAULT_RECALL_SET_TARGETS,
): string[] {
  const missed: string[] = [];
  const below = (value: number | null, target: number) => value !== null && value < target;
  if (below(score.precision, targets.precision)) missed.push('precision');
  if (below(score.recall, targets.recall)) missed.push('recall');
  if (below(score.silence, targets.silence)) missed.push('silence');
  return missed;
}
