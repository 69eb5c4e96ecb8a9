/**
 * Runs rankers over LoCoMo: per conversation, its observations are the memories and its questions
 * the queries; every ranker returns its full order (no recall cap, no zero cut) so top-k is exact.
 */
import type { RankableMemory } from '../recall/offline-ranker.js';
import { createOfflineRanker } from '../recall/offline-ranker.js';
import { createBm25 } from './bm25.js';
import type { LocomoConversation } from './locomo.js';
import { conversationKey, splitOf } from './locomo.js';
import {
  type Breakdown,
  breakdown,
  type RankedQuestion,
  type Summary,
  summarize,
} from './metric.js';

/** Given one conversation's observations, returns a function ranking all of them for a query. */
export type EvalRanker = (conversation: LocomoConversation) => (query: string) => number[];

// Every observation gets the same age, so recency cannot reorder them; type weight is uniform too.
const EVAL_NOW = Date.UTC(2024, 0, 1);

export function observationFile(index: number): string {
  return `obs-${String(index).padStart(5, '0')}.md`;
}

export const engramRanker: EvalRanker = (conversation) => {
  const memories: RankableMemory[] = conversation.observations.map((o) => ({
    file: observationFile(o.index),
    type: 'user',
    description: o.text,
    body: o.text,
    mtimeMs: EVAL_NOW,
  }));
  const ranker = createOfflineRanker(memories);
  const byFile = new Map(memories.map((m, i) => [m.file, i]));
  return (query) =>
    ranker
      .rank(query, { nowMs: EVAL_NOW, limit: Number.POSITIVE_INFINITY, requireOverlap: false })
      .map((r) => byFile.get(r.file)!);
};

export const bm25Ranker: EvalRanker = (conversation) =>
  createBm25(conversation.observations.map((o) => o.text));

export interface QuestionRanking {
  sample: string;
  question: string;
  category: number;
  evidence: string[];
  /** Dialog ids of the top observations, one entry per observation ("D1:3", rarely "D4:1,D4:3"). */
  ranked: string[];
}

export interface RankerRun {
  splits: { dev: Breakdown; heldout: Breakdown; all: Breakdown };
  /** Each conversation on its own, all categories, keyed by sample id. */
  conversations: Record<string, Summary>;
  rankings: QuestionRanking[];
  /** Mean wall time to rank one question, in milliseconds (index build excluded). */
  msPerQuery: number;
}

export function runRanker(
  conversations: readonly LocomoConversation[],
  ranker: EvalRanker,
  ks: readonly number[],
): RankerRun {
  const maxK = Math.max(...ks);
  const scored: { sample: string; split: 'dev' | 'heldout'; q: RankedQuestion }[] = [];
  const rankings: QuestionRanking[] = [];
  let elapsed = 0;
  let queries = 0;
  for (const conversation of conversations) {
    const rank = ranker(conversation);
    const coverable = new Set(conversation.observations.flatMap((o) => o.diaIds));
    const split = splitOf(conversation.sample);
    for (const question of conversation.questions) {
      const started = performance.now();
      const order = rank(question.question);
      elapsed += performance.now() - started;
      queries++;
      const top = order.slice(0, maxK).map((i) => conversation.observations[i]!.diaIds);
      scored.push({
        sample: conversation.sample,
        split,
        q: { category: question.category, evidence: question.evidence, ranked: top, coverable },
      });
      rankings.push({
        sample: conversation.sample,
        question: question.question,
        category: question.category,
        evidence: question.evidence,
        ranked: top.map((ids) => ids.join(',')),
      });
    }
  }
  const pick = (s?: 'dev' | 'heldout') =>
    breakdown(
      scored.filter((x) => s === undefined || x.split === s).map((x) => x.q),
      ks,
    );
  const perConversation: Record<string, Summary> = {};
  for (const { sample } of conversations) {
    perConversation[conversationKey(sample)] = summarize(
      scored.filter((x) => x.sample === sample).map((x) => x.q),
      ks,
    );
  }
  return {
    splits: { dev: pick('dev'), heldout: pick('heldout'), all: pick() },
    conversations: perConversation,
    rankings,
    msPerQuery: queries === 0 ? 0 : elapsed / queries,
  };
}
