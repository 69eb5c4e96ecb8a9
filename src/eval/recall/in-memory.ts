/**
 * A labeled set ranked in memory, without a directory: the same offline ranker and cut-off real
 * recall uses (recall asks the ranker for its selection and keeps at most five; like recall it
 * ranks headers, never bodies), fast enough to
 * run once per concept line when measuring what each line is worth. Like recall over the chain, a
 * user-layer memory whose file name the project also uses is not seen.
 */
import type { ConceptTable } from '../../recall/lexical/concepts.js';
import {
  createOfflineRanker,
  MAX_RECALLED,
  type OfflineRanker,
} from '../../recall/offline-ranker.js';
import { type LabeledSet, labeledMemoryId } from './labeled-set.js';
import type { PromptOutcome } from './score.js';

const DAY_MS = 86_400_000;

/**
 * A labeled set's ranker over the memories recall would see (a user-layer memory whose file name
 * the project also uses is hidden), with each memory's labeled id.
 */
export function rankerOfSet(
  set: LabeledSet,
  options: { nowMs: number; concepts?: ConceptTable },
): { ranker: OfflineRanker; visible: LabeledSet['memories']; idOf: (file: string) => string } {
  const projectFiles = new Set(
    set.memories.filter((m) => m.scope === 'project').map((m) => m.file),
  );
  const visible = set.memories.filter((m) => m.scope === 'project' || !projectFiles.has(m.file));
  const ids = new Map(visible.map((m) => [m.file, labeledMemoryId(m.scope, m.file)]));
  const ranker = createOfflineRanker(
    visible.map((m) => ({
      file: m.file,
      type: m.type,
      name: m.name ?? m.file.replace(/\.md$/, ''),
      description: m.description,
      mtimeMs: options.nowMs - (m.ageDays ?? 1) * DAY_MS,
    })),
    undefined,
    options.concepts ? { concepts: options.concepts } : {},
  );
  return { ranker, visible, idOf: (file) => ids.get(file) ?? file };
}

export function rankSetInMemory(
  set: LabeledSet,
  options: {
    nowMs: number;
    concepts?: ConceptTable;
    /** False: the hand-written cut-off alone, without the learned veto (default true). */
    veto?: boolean;
  },
): PromptOutcome[] {
  const { ranker, idOf } = rankerOfSet(set, options);
  return set.prompts.map((p) => ({
    prompt: p.prompt,
    gold: p.gold,
    selected: ranker
      .rank(p.prompt, {
        nowMs: options.nowMs,
        limit: MAX_RECALLED,
        ...(options.veto === false ? { veto: false } : {}),
      })
      .map((r) => idOf(r.file)),
  }));
}
