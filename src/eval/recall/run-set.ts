/**
 * Runs a labeled set through real recall: the memories are written to a temporary directory with
 * the normal save path (file + index line, mtimes set to their ages), then every prompt is recalled
 * with the offline ranker exactly as a turn would be, and what it selected is scored.
 */
import { mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { saveMemory } from '../../memdir/memory-file.js';
import { recall } from '../../recall/recall.js';
import type { LabeledSet } from './labeled-set.js';
import {
  DEFAULT_RECALL_SET_TARGETS,
  missedTargets,
  type PromptOutcome,
  type RecallSetScore,
  type RecallSetTargets,
  scoreRecallSet,
} from './score.js';

const DAY_MS = 86_400_000;

export interface RecallSetReport extends RecallSetScore {
  set: string;
  memories: number;
  targets: RecallSetTargets;
  /** Targets missed: 'precision', 'recall', 'silence'. */
  missed: string[];
  pass: boolean;
  /** Prompts whose selection differs from their gold: what was missed and what was extra. */
  mistakes: Array<{ prompt: string; gold: string[]; selected: string[] }>;
  outcomes: PromptOutcome[];
}

export interface RunRecallSetOptions {
  /** The time recall runs at (default now); memory ages are relative to it. */
  nowMs?: number;
  targets?: RecallSetTargets;
}

export async function runRecallSet(
  set: LabeledSet,
  options: RunRecallSetOptions = {},
): Promise<RecallSetReport> {
  const nowMs = options.nowMs ?? Date.now();
  const dir = await mkdtemp(join(tmpdir(), 'engram-eval-recall-'));
  try {
    for (const m of set.memories) {
      await saveMemory(dir, {
        file: m.file,
        name: m.name ?? m.file.replace(/\.md$/, ''),
        description: m.description,
        type: m.type,
        body: m.body ?? m.description,
      });
      const seconds = (nowMs - (m.ageDays ?? 1) * DAY_MS) / 1000;
      await utimes(join(dir, m.file), seconds, seconds);
    }
    const outcomes: PromptOutcome[] = [];
    for (const p of set.prompts) {
      const result = await recall({ dir, query: p.prompt, now: nowMs });
      outcomes.push({
        prompt: p.prompt,
        gold: p.gold,
        selected: result.selected.map((s) => s.file),
      });
    }
    const score = scoreRecallSet(outcomes);
    const targets = options.targets ?? DEFAULT_RECALL_SET_TARGETS;
    const missed = missedTargets(score, targets);
    const mistakes = outcomes
      .filter((o) => [...o.selected].sort().join() !== [...o.gold].sort().join())
      .map((o) => ({ prompt: o.prompt, gold: [...o.gold], selected: [...o.selected] }));
    return {
      set: set.name,
      memories: set.memories.length,
      ...score,
      targets,
      missed,
      pass: missed.length === 0,
      mistakes,
      outcomes,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export function formatRecallSetReport(r: RecallSetReport): string {
  let out =
    `recall set ${r.set}: ${r.memories} memories, ${r.relevantPrompts} relevant and ${r.unrelatedPrompts} unrelated prompts\n` +
    `  precision of what was selected  ${r.precision.toFixed(3)}  (${r.correct}/${r.selected}; target ≥ ${r.targets.precision})\n` +
    `  gold memories recalled          ${pct(r.recall)}  (${r.goldRecalled}/${r.goldTotal}; target ≥ ${pct(r.targets.recall)})\n` +
    `  unrelated prompts → nothing     ${pct(r.silence)}  (${r.unrelatedSilent}/${r.unrelatedPrompts}; target ${pct(r.targets.silence)})\n` +
    `  ${r.pass ? 'PASS' : `MISSED: ${r.missed.join(', ')}`}\n`;
  if (r.mistakes.length > 0) {
    out += '\nprompts whose selection differs from gold:\n';
    for (const m of r.mistakes) {
      out += `  "${m.prompt}"\n    gold: ${m.gold.join(', ') || '(nothing)'}\n    selected: ${m.selected.join(', ') || '(nothing)'}\n`;
    }
  }
  return out;
}
