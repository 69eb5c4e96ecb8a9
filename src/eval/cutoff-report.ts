/**
 * LoCoMo with the relevance cut-off on, as real recall runs: at most five observations selected
 * per question, zero allowed. Two numbers per category: the share of what was selected that is
 * evidence for the question (precision of an injection), and the share of questions answered with
 * nothing. The R@k table ranks everything; this shows what the cut-off does to the same questions.
 * Like the R@k averages it leaves out the few questions whose evidence names no dialog id (nothing
 * selected for them could count as evidence), and like real recall it ranks what a memory header
 * holds (the observation as its description), never a body.
 */
import { createOfflineRanker, MAX_RECALLED } from '../recall/offline-ranker.js';
import type { LocomoConversation } from './locomo.js';
import { observationFile } from './runner.js';

// The same fixed age and type as the R@k run (runner.ts), so only the cut-off differs.
const EVAL_NOW = Date.UTC(2024, 0, 1);

export interface CutoffCell {
  questions: number;
  /** Questions with at least one evidence id: the ones counted below. */
  scored: number;
  selected: number;
  /** Selected observations drawn from one of the question's evidence turns. */
  evidence: number;
  /** Questions for which nothing was selected. */
  nothing: number;
  /** evidence / selected, in % (0 when nothing was selected at all). */
  evidenceShare: number;
  /** nothing / scored, in %. */
  nothingShare: number;
}

export interface CutoffReport {
  maxSelected: number;
  all: CutoffCell;
  categories: Record<string, CutoffCell>;
}

const empty = () => ({ questions: 0, scored: 0, selected: 0, evidence: 0, nothing: 0 });
const round = (x: number) => Math.round(x * 10) / 10;

function finish(c: ReturnType<typeof empty>): CutoffCell {
  return {
    ...c,
    evidenceShare: c.selected === 0 ? 0 : round((100 * c.evidence) / c.selected),
    nothingShare: c.scored === 0 ? 0 : round((100 * c.nothing) / c.scored),
  };
}

export function cutoffReport(conversations: readonly LocomoConversation[]): CutoffReport {
  const all = empty();
  const byCategory = new Map<string, ReturnType<typeof empty>>();
  for (const conversation of conversations) {
    const memories = conversation.observations.map((o) => ({
      file: observationFile(o.index),
      type: 'user' as const,
      description: o.text,
      mtimeMs: EVAL_NOW,
    }));
    const ranker = createOfflineRanker(memories);
    const byFile = new Map(conversation.observations.map((o) => [observationFile(o.index), o]));
    for (const q of conversation.questions) {
      const key = String(q.category);
      const cell = byCategory.get(key) ?? empty();
      byCategory.set(key, cell);
      all.questions++;
      cell.questions++;
      if (q.evidence.length === 0) continue;
      const evidence = new Set(q.evidence);
      const selected = ranker.rank(q.question, { nowMs: EVAL_NOW, limit: MAX_RECALLED });
      const hits = selected.filter((r) =>
        (byFile.get(r.file)?.diaIds ?? []).some((id) => evidence.has(id)),
      ).length;
      for (const c of [all, cell]) {
        c.scored++;
        c.selected += selected.length;
        c.evidence += hits;
        if (selected.length === 0) c.nothing++;
      }
    }
  }
  const categories: Record<string, CutoffCell> = {};
  for (const key of [...byCategory.keys()].sort()) categories[key] = finish(byCategory.get(key)!);
  return { maxSelected: MAX_RECALLED, all: finish(all), categories };
}

export function formatCutoffReport(r: CutoffReport, names: Record<string, string>): string {
  const row = (label: string, c: CutoffCell) =>
    `  ${label.padEnd(25)}${String(c.scored).padStart(5)}${(c.selected / Math.max(1, c.scored)).toFixed(2).padStart(9)}${c.evidenceShare.toFixed(1).padStart(11)}${c.nothingShare.toFixed(1).padStart(10)}\n`;
  let out =
    `\nwith the relevance cut-off on (real recall: at most ${r.maxSelected} selected, zero allowed)\n` +
    `  ${'questions'.padEnd(25)}${'n'.padStart(5)}${'sel/q'.padStart(9)}${'evidence%'.padStart(11)}${'nothing%'.padStart(10)}\n`;
  out += row('all categories', r.all);
  for (const [c, cell] of Object.entries(r.categories)) {
    out += row(`${c} ${names[c] ?? ''}`.trimEnd(), cell);
  }
  return out;
}
