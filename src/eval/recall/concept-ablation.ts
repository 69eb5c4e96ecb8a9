/**
 * What each concept line is worth: the labeled sets scored with the whole table, then once per
 * line with that line left out. A line earns its place when leaving it out loses gold memories,
 * precision or silence on some set. Pure apart from the clock value passed in.
 *
 * Lines are judged under the hand-written cut-off alone. The learned veto (recall/learned-veto.ts)
 * was fitted afterwards on top of them and can only drop a selection: measured through it, a line
 * would be judged by how it moves the veto's features, one step removed from what the line does.
 */
import { buildConceptTable, DEFAULT_TAXONOMY } from '../../recall/lexical/concepts.js';
import { rankSetInMemory } from './in-memory.js';
import type { LabeledSet } from './labeled-set.js';
import { type RecallSetScore, scoreRecallSet } from './score.js';

export interface ConceptLineWorth {
  line: string;
  /** Per set: (score with the line) minus (score without it); positive means the line helps. */
  deltas: Array<{ set: string; precision: number; recall: number; silence: number }>;
  /** True when leaving the line out makes some set worse on some measure. */
  earnsPlace: boolean;
  /** True when leaving it out makes some set better on some measure. */
  hurts: boolean;
}

export function conceptLines(taxonomy: string = DEFAULT_TAXONOMY): string[] {
  return taxonomy
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.includes(':'));
}

const EPSILON = 1e-9;

/**
 * What a line is worth to one share; a share of nothing (null) counts as met, as selecting
 * nothing for a set that asks for nothing is not worse than a perfect selection.
 */
const delta = (full: number | null, without: number | null) => (full ?? 1) - (without ?? 1);

export function ablateConcepts(
  sets: readonly LabeledSet[],
  options: { nowMs: number; taxonomy?: string },
): { full: Array<{ set: string } & RecallSetScore>; lines: ConceptLineWorth[] } {
  const lines = conceptLines(options.taxonomy);
  const score = (taxonomy: string) => {
    const concepts = buildConceptTable(taxonomy);
    return sets.map((set) =>
      scoreRecallSet(rankSetInMemory(set, { nowMs: options.nowMs, concepts, veto: false })),
    );
  };
  const full = score(lines.join('\n'));
  const worth = lines.map((line, i) => {
    const without = score(lines.filter((_, j) => j !== i).join('\n'));
    const deltas = sets.map((set, s) => ({
      set: set.name,
      precision: delta(full[s]!.precision, without[s]!.precision),
      recall: delta(full[s]!.recall, without[s]!.recall),
      silence: delta(full[s]!.silence, without[s]!.silence),
    }));
    const values = deltas.flatMap((d) => [d.precision, d.recall, d.silence]);
    return {
      line,
      deltas,
      earnsPlace: values.some((v) => v > EPSILON),
      hurts: values.some((v) => v < -EPSILON),
    };
  });
  return { full: full.map((f, s) => ({ set: sets[s]!.name, ...f })), lines: worth };
}
