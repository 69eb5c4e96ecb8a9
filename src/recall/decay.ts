/**
 * Per-type decay: how much a memory's age (and, for references, how long since it was last
 * recalled) lowers its place in recall. One half-life for everything treats "the user is a backend
 * engineer" like "the release is on Friday"; they age very differently.
 * - user: facts about the person barely decay (half-life a year);
 * - feedback: how to work, decays slowly (a quarter);
 * - project: state of the work, decays by age (a week, as the seed ranker's recency);
 * - reference: pointers stay good while they are used; one not recalled for 30 days loses weight.
 * The result multiplies nothing by itself: the ranker adds it as its recency bonus, so decay
 * reorders memories that match, and never lifts or removes one. Pure.
 */
import type { MemoryTypeOrUnknown } from '../memdir/types.js';

const DAY_MS = 86_400_000;

export interface DecayConstants {
  /** Days until a memory of this type counts half as fresh: weight = 1 / (1 + age / halfLife). */
  halfLifeDays: Record<'user' | 'feedback' | 'project' | 'unknown', number>;
  reference: {
    /** A reference recalled (or written) within this many days keeps full weight. */
    unusedAfterDays: number;
    /** Past that, it halves every this many more idle days. */
    halfLifeDays: number;
  };
}

export const DEFAULT_DECAY: DecayConstants = {
  halfLifeDays: { user: 365, feedback: 90, project: 7, unknown: 7 },
  reference: { unusedAfterDays: 30, halfLifeDays: 30 },
};

export interface DecayInput {
  type: MemoryTypeOrUnknown;
  mtimeMs: number;
  /** When recall last selected it (from the recall log); undefined when never. */
  lastRecalledMs?: number;
  nowMs: number;
}

/** A weight in (0, 1]: 1 for a fresh memory, lower as it ages by the rules of its type. */
export function decayWeight(input: DecayInput, constants: DecayConstants = DEFAULT_DECAY): number {
  const ageDays = Math.max(0, input.nowMs - input.mtimeMs) / DAY_MS;
  if (input.type === 'reference') {
    const usedMs = Math.max(input.mtimeMs, input.lastRecalledMs ?? Number.NEGATIVE_INFINITY);
    const idleDays = Math.max(0, input.nowMs - usedMs) / DAY_MS;
    const past = Math.max(0, idleDays - constants.reference.unusedAfterDays);
    return 1 / (1 + past / Math.max(Number.MIN_VALUE, constants.reference.halfLifeDays));
  }
  const halfLife = constants.halfLifeDays[input.type];
  return 1 / (1 + ageDays / Math.max(Number.MIN_VALUE, halfLife));
}

/**
 * The `recallDecay` setting over DEFAULT_DECAY, field by field:
 * `{"halfLifeDays": {"user": 365, "feedback": 90, "project": 7, "unknown": 7},
 *   "reference": {"unusedAfterDays": 30, "halfLifeDays": 30}}`, any part of it. Half-lives must be
 * positive numbers, `unusedAfterDays` zero or more; anything else keeps the default and is named
 * in `problems`. Pure.
 */
export function decayFromSettings(value: unknown): { decay: DecayConstants; problems: string[] } {
  const problems: string[] = [];
  const decay: DecayConstants = {
    halfLifeDays: { ...DEFAULT_DECAY.halfLifeDays },
    reference: { ...DEFAULT_DECAY.reference },
  };
  if (value === undefined) return { decay, problems };
  const object = (v: unknown, at: string): Record<string, unknown> | undefined => {
    if (v === undefined) return undefined;
    if (v !== null && typeof v === 'object' && !Array.isArray(v))
      return v as Record<string, unknown>;
    problems.push(`${at} must be an object`);
    return undefined;
  };
  const take = (
    from: Record<string, unknown> | undefined,
    key: string,
    at: string,
    min: 'positive' | 'zero',
    set: (n: number) => void,
  ) => {
    const v = from?.[key];
    if (v === undefined) return;
    const ok = typeof v === 'number' && Number.isFinite(v) && (min === 'positive' ? v > 0 : v >= 0);
    if (ok) set(v);
    else
      problems.push(
        `${at}.${key} must be a ${min === 'positive' ? 'positive' : 'non-negative'} number of days`,
      );
  };
  const root = object(value, 'recallDecay');
  const halfLives = object(root?.halfLifeDays, 'recallDecay.halfLifeDays');
  for (const type of ['user', 'feedback', 'project', 'unknown'] as const) {
    take(halfLives, type, 'recallDecay.halfLifeDays', 'positive', (n) => {
      decay.halfLifeDays[type] = n;
    });
  }
  const reference = object(root?.reference, 'recallDecay.reference');
  take(reference, 'unusedAfterDays', 'recallDecay.reference', 'zero', (n) => {
    decay.reference.unusedAfterDays = n;
  });
  take(reference, 'halfLifeDays', 'recallDecay.reference', 'positive', (n) => {
    decay.reference.halfLifeDays = n;
  });
  return { decay, problems };
}
