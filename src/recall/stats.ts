import type { RecallShape } from './metrics.js';
import { MAX_RECALLED } from './offline-ranker.js';

/**
 * Below this many recalls that ran, a constant selection count is not yet an alarm: one or two
 * turns say nothing, while three in a row that all got nothing (or all five) already deserve a
 * look — a new user checking `engram stats` after a short first session should hear about it.
 */
export const STATS_MIN_RUNS_FOR_ALARMS = 3;

export interface RecallStats {
  /** Every logged recall. */
  recalls: number;
  /** Recalls skipped before selection, by reason. */
  skipped: Record<string, number>;
  /** Recalls that ran selection. */
  ran: number;
  /** How often 0, 1, … 5 memories were selected (index = count). */
  selectionCounts: number[];
  meanSelected: number;
  selectedTotal: number;
  /** Injected memories by the layer they came from (logs before layers count as 'project'). */
  injectedByLayer: Record<string, number>;
  staleSelected: number;
  /** Stale selected / selected; null when nothing was selected. The age-based ratio. */
  staleHitRatio: number | null;
  /** Memories that entered the context (selected minus those the budget dropped). */
  injectedTotal: number;
  /** Selected memories with a claim the project contradicted (claim verification). */
  contradictedSelected: number;
  /** Selected memories whose verification was ready when they were selected. */
  verifiedSelected: number;
  /** contradictedSelected / selected; null when nothing was selected. The claim-based ratio. */
  claimStaleHitRatio: number | null;
  /** Both ratios per UTC day, oldest first: drift shows as a trend, not a single number. */
  overTime: StaleHitDay[];
  /** Recalls in which the session budget ran out (or was already spent). */
  budgetExhausted: number;
  fallbacks: number;
  prefiltered: number;
  medianDurationMs: number | null;
  alarms: string[];
}

export interface StaleHitDay {
  /** YYYY-MM-DD (UTC), from each recall's `at`. */
  day: string;
  recalls: number;
  selected: number;
  staleSelected: number;
  contradictedSelected: number;
  staleHitRatio: number | null;
  claimStaleHitRatio: number | null;
}

/** Both stale-hit ratios per day. Older log lines without verification fields count as 0. Pure. */
export function staleHitsOverTime(shapes: readonly RecallShape[]): StaleHitDay[] {
  const days = new Map<string, StaleHitDay>();
  for (const s of shapes) {
    if (s.skipped !== null) continue;
    const day = typeof s.at === 'string' ? s.at.slice(0, 10) : 'unknown';
    const d = days.get(day) ?? {
      day,
      recalls: 0,
      selected: 0,
      staleSelected: 0,
      contradictedSelected: 0,
      staleHitRatio: null,
      claimStaleHitRatio: null,
    };
    d.recalls++;
    d.selected += injectedOf(s);
    d.staleSelected += s.staleSelected;
    d.contradictedSelected += s.contradictedSelected ?? 0;
    days.set(day, d);
  }
  return [...days.values()]
    .sort((a, b) => a.day.localeCompare(b.day))
    .map((d) => ({
      ...d,
      staleHitRatio: d.selected ? d.staleSelected / d.selected : null,
      claimStaleHitRatio: d.selected ? d.contradictedSelected / d.selected : null,
    }));
}

/** The memories that entered the context: both stale counts are taken over these. */
function injectedOf(s: RecallShape): number {
  return typeof s.injected === 'number' ? s.injected : s.selected;
}

/**
 * Summarise a recall log into the numbers that reveal silent failure: selection that never
 * fires (always 0) or never discriminates (always 5), stale hits, a spent budget. Pure.
 */
export function summarizeRecallMetrics(shapes: readonly RecallShape[]): RecallStats {
  const ranShapes = shapes.filter((s) => s.skipped === null);
  const selectionCounts = new Array<number>(MAX_RECALLED + 1).fill(0);
  const skipped: Record<string, number> = {};
  for (const s of shapes)
    if (s.skipped !== null) skipped[s.skipped] = (skipped[s.skipped] ?? 0) + 1;
  let selectedTotal = 0;
  let staleSelected = 0;
  let contradictedSelected = 0;
  let verifiedSelected = 0;
  let injectedTotal = 0;
  const injectedByLayer: Record<string, number> = {};
  for (const s of ranShapes) {
    (s.files ?? []).forEach((_, i) => {
      const layer = s.layers?.[i] ?? 'project';
      injectedByLayer[layer] = (injectedByLayer[layer] ?? 0) + 1;
    });
    contradictedSelected += s.contradictedSelected ?? 0;
    verifiedSelected += s.verifiedSelected ?? 0;
    injectedTotal += injectedOf(s);
    const n = Math.max(0, Math.min(MAX_RECALLED, s.selected));
    selectionCounts[n] = (selectionCounts[n] ?? 0) + 1;
    selectedTotal += s.selected;
    staleSelected += s.staleSelected;
  }
  const durations = ranShapes.map((s) => s.durationMs).sort((a, b) => a - b);
  const stats: RecallStats = {
    recalls: shapes.length,
    skipped,
    ran: ranShapes.length,
    selectionCounts,
    meanSelected: ranShapes.length ? selectedTotal / ranShapes.length : 0,
    selectedTotal,
    injectedByLayer,
    staleSelected,
    staleHitRatio: selectedTotal ? staleSelected / selectedTotal : null,
    injectedTotal,
    contradictedSelected,
    verifiedSelected,
    claimStaleHitRatio: injectedTotal ? contradictedSelected / injectedTotal : null,
    overTime: staleHitsOverTime(shapes),
    budgetExhausted: shapes.filter((s) => s.budgetExhausted).length,
    fallbacks: shapes.filter((s) => s.fallback).length,
    prefiltered: shapes.filter((s) => s.prefiltered).length,
    medianDurationMs: durations.length ? durations[Math.floor((durations.length - 1) / 2)]! : null,
    alarms: [],
  };
  stats.alarms = alarmsFor(stats);
  return stats;
}

function alarmsFor(s: RecallStats): string[] {
  const alarms: string[] = [];
  if (s.ran >= STATS_MIN_RUNS_FOR_ALARMS) {
    if (s.selectionCounts[0] === s.ran) {
      alarms.push(
        `recall selected nothing in all ${s.ran} runs: memories are never reaching the agent (check descriptions and the selector).`,
      );
    }
    if (s.selectionCounts[MAX_RECALLED] === s.ran) {
      alarms.push(
        `recall selected ${MAX_RECALLED} memories in all ${s.ran} runs: the selector is padding instead of choosing.`,
      );
    }
  }
  if (s.staleHitRatio !== null && s.staleHitRatio > 0.5 && s.selectedTotal >= 5) {
    alarms.push(
      `${Math.round(s.staleHitRatio * 100)}% of selected memories are stale: review or revoke old memories.`,
    );
  }
  if (s.claimStaleHitRatio !== null && s.claimStaleHitRatio > 0.2 && s.selectedTotal >= 5) {
    alarms.push(
      `${Math.round(s.claimStaleHitRatio * 100)}% of selected memories cite something the project contradicts: run \`engram doctor\` and revoke or fix them.`,
    );
  }
  if (s.budgetExhausted > 0) {
    alarms.push(
      `the session injection budget ran out ${s.budgetExhausted} time(s): later turns in those sessions got no memories.`,
    );
  }
  return alarms;
}
