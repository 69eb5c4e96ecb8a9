/**
 * The three numbers a labeled recall set is judged by. Pure.
 * - precision: of everything selected (for every prompt, unrelated ones included), the share that
 *   is gold; a prompt that selects nothing adds nothing to it.
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
  /** correct / selected; 1 when nothing was selected at all. */
  precision: number;
  goldTotal: number;
  goldRecalled: number;
  /** goldRecalled / goldTotal; 1 when the set has no gold. */
  recall: number;
  unrelatedSilent: number;
  /** unrelatedSilent / unrelatedPrompts; 1 when there are none. */
  silence: number;
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
    precision: selected === 0 ? 1 : correct / selected,
    goldTotal,
    goldRecalled,
    recall: goldTotal === 0 ? 1 : goldRecalled / goldTotal,
    unrelatedSilent: silent,
    silence: unrelated === 0 ? 1 : silent / unrelated,
  };
}

/** Which targets a score misses (empty when it meets them all). Pure. */
export function missedTargets(
  score: RecallSetScore,
  targets: RecallSetTargets = DEFAULT_RECALL_SET_TARGETS,
): string[] {
  const missed: string[] = [];
  if (score.precision < targets.precision) missed.push('precision');
  if (score.recall < targets.recall) missed.push('recall');
  if (score.silence < targets.silence) missed.push('silence');
  return missed;
}
