import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { appendOwnFileSync } from '../confine/index.js';
import { errnoCode } from '../util/errors.js';

/** A memory older than this many days counts as a stale hit when selected. */
export const DEFAULT_STALE_AFTER_DAYS = 30;
/** Where recall metrics go by default, inside the memory directory (dot folders are never scanned). */
export const RECALL_METRICS_FILE = '.engram/recall-metrics.jsonl';

export type RecallSkip = 'single_word' | 'session_budget_exhausted' | 'aborted';

/**
 * What one recall did, as plain data. Every failure mode of recall is silent, so
 * each turn records enough to notice them: nothing ever selected, always five, stale hits,
 * budget exhaustion, fallbacks.
 */
export interface RecallShape {
  /** The `now` recall ran with (ISO). */
  at: string;
  skipped: RecallSkip | null;
  selector: 'offline' | 'model';
  model: string | null;
  /** True when the model selector failed or timed out and the offline ranker answered instead. */
  fallback: boolean;
  /** The same as `fallback`, under the name the metric is known by ("fallback used"). */
  fallbackUsed: boolean;
  fallbackReason: string | null;
  /** Memory files in the directory. */
  total: number;
  /** Memories the selector chose from. */
  candidates: number;
  /** True when the directory was larger than the cap and the offline ranker prefiltered it. */
  prefiltered: boolean;
  /** Memories left out because the conversation already holds them. */
  surfacedExcluded: number;
  /** Memories the selector chose. */
  selected: number;
  /** Memories actually injected (fewer than selected when the budget ran out). */
  injected: number;
  injectedBytes: number;
  /** Session total after this turn, as derived from the history. */
  sessionCumulativeBytes: number;
  sessionBudgetBytes: number;
  budgetExhausted: boolean;
  droppedByBudget: number;
  /** Selected (injected) memories older than `staleAfterDays`: the age-based stale hits. */
  staleSelected: number;
  staleAfterDays: number;
  /** The memory files injected, in order (the doctor finds never-recalled memories from these). */
  files: string[];
  /** The layer each injected memory came from ('project', 'user', …), parallel to `files`. */
  layers?: string[];
  /**
   * The memory directory of each layer named in `layers`: a file's last-recalled time is read
   * only for the memory of that directory (the user layer's log is written from every repository).
   */
  layerDirs?: Record<string, string>;
  /** Injected memories whose claim verification was ready at selection time. */
  verifiedSelected: number;
  /** Injected memories with at least one claim the project contradicts. */
  contradictedSelected: number;
  /** contradictedSelected ÷ injected memories: the claim-based stale-hit ratio; null when none. */
  claimStaleHitRatio: number | null;
  /** Wall time of this recall, in milliseconds. */
  durationMs: number;
  /** The same as `durationMs`, under the name the metric is known by ("time spent"). */
  timeSpentMs: number;
}

/** The shape of a recall that has not done anything yet (every count zero). Pure. */
export function emptyRecallShape(start: {
  nowMs: number;
  sessionBudgetBytes: number;
  staleAfterDays: number;
  /** Memory bytes already in the history. */
  sessionBytes: number;
}): RecallShape {
  return {
    at: new Date(start.nowMs).toISOString(),
    skipped: null,
    selector: 'offline',
    model: null,
    fallback: false,
    fallbackUsed: false,
    fallbackReason: null,
    total: 0,
    candidates: 0,
    prefiltered: false,
    surfacedExcluded: 0,
    selected: 0,
    injected: 0,
    injectedBytes: 0,
    sessionCumulativeBytes: start.sessionBytes,
    sessionBudgetBytes: start.sessionBudgetBytes,
    budgetExhausted: false,
    droppedByBudget: 0,
    staleSelected: 0,
    staleAfterDays: start.staleAfterDays,
    files: [],
    verifiedSelected: 0,
    contradictedSelected: 0,
    claimStaleHitRatio: null,
    durationMs: 0,
    timeSpentMs: 0,
  };
}

export function metricsPathFor(memoryDir: string): string {
  return join(memoryDir, RECALL_METRICS_FILE);
}

/**
 * Append one shape as a JSON line (the directory is created when missing). Synchronous, as the
 * log's tail is read: one small append costs less than the open, write and close round trips to
 * the thread pool, which every MCP recall paid before answering. Still a promise (same contract:
 * a failure rejects, and recall reports it in its notes).
 */
export async function appendRecallMetrics(path: string, shape: RecallShape): Promise<void> {
  // Never through a link: a linked `.engram` folder or log would append every turn's line to
  // whatever file it points at.
  appendOwnFileSync(path, `${JSON.stringify(shape)}\n`);
}

/** Every shape in a log; unreadable lines are counted, not fatal. Missing file → empty. */
export async function readRecallMetrics(
  path: string,
): Promise<{ shapes: RecallShape[]; badLines: number }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return { shapes: [], badLines: 0 };
    throw error;
  }
  const shapes: RecallShape[] = [];
  let badLines = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value = JSON.parse(line) as RecallShape;
      if (typeof value === 'object' && value !== null && typeof value.selected === 'number') {
        shapes.push(value);
      } else badLines++;
    } catch {
      badLines++;
    }
  }
  return { shapes, badLines };
}
