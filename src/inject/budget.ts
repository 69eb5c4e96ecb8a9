export interface BudgetLimits {
  maxPerTurn: number;
  maxSessionBytes: number;
}

export interface BudgetPlan {
  /** How many of the candidates (in order) to inject. */
  take: number;
  /** True when the session budget is spent: recall stops for the rest of the session. */
  exhausted: boolean;
  /** Session total after this turn's injection. */
  sessionBytesAfter: number;
}

/**
 * Take memories in rank order while both the per-turn count and the session byte budget allow.
 * The first memory that does not fit ends recall for the session: skipping ahead to smaller ones
 * would keep nibbling at a budget meant to say "enough". Never exceeds a cap. Pure.
 */
export function planInjectionBudget(
  sectionBytes: readonly number[],
  sessionBytes: number,
  limits: BudgetLimits,
): BudgetPlan {
  if (sessionBytes >= limits.maxSessionBytes) {
    return { take: 0, exhausted: true, sessionBytesAfter: sessionBytes };
  }
  let total = sessionBytes;
  let take = 0;
  for (const bytes of sectionBytes) {
    if (take >= limits.maxPerTurn) break;
    if (total + bytes > limits.maxSessionBytes) {
      return { take, exhausted: true, sessionBytesAfter: total };
    }
    total += bytes;
    take++;
  }
  return { take, exhausted: total >= limits.maxSessionBytes, sessionBytesAfter: total };
}
