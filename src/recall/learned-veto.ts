/**
 * A learned veto on the relevance cut-off's choice (#19): of the memories the cut-off selects, one
 * whose probability of being what the prompt needs is below a threshold is dropped. Pure.
 *
 * The probability is a logistic regression over what the ranked list already says of each of its
 * ten best candidates (its rank, score and relevance and their ratios to the best, the gap to the
 * next one, the cut-off's word counts and evidence, how many candidates carry evidence, the
 * memory's type) and two facts about the prompt (a general question such as "what is the
 * difference between X and Y", which a project's memories rarely answer; CJK or not). The weights
 * were fitted on the development labeled sets (eval/recall-sets, never the blind sealed4-* wave) by
 * scripts/cutoff-learn.mjs, which also measured the veto leave-one-set-out before it was adopted
 * and prints these constants again (`--emit-veto`); docs/eval.md, "A learned cut-off", has the
 * figures. The veto can only drop a selection, never add one: zero remains a valid answer, and a
 * memory the hand-written rules refuse is never let in by a model.
 */
import type { MemoryTypeOrUnknown } from '../memdir/types.js';
import { type CutoffCandidate, evidenceOf, type RelevanceCutoff } from './relevance-cutoff.js';

/** How many of the ranked list's best candidates the features look at. */
export const VETO_TOP = 10;
/**
 * The veto judges only directories of at least this many memories. Its scores and relevances
 * grow with a directory's size (idf), and the sets it was fitted on held 26 to 48 memories: in a
 * directory of five it would drop the one memory whose description names the prompt's word.
 */
export const VETO_MIN_MEMORIES = 25;

export interface VetoCandidate extends CutoffCandidate {
  file: string;
  type: MemoryTypeOrUnknown;
}

/** One feature's weight per standard deviation, with the mean and deviation it was fitted at. */
export interface VetoFeatureWeight {
  feature: VetoFeatureName;
  mean: number;
  sd: number;
  weight: number;
}

export interface LearnedVeto {
  bias: number;
  /** A selected memory below this probability is dropped. */
  threshold: number;
  features: readonly VetoFeatureWeight[];
}

// A general question about a concept ("what is", "how does", "X vs Y", "区别", "とは", "차이").
const GENERAL_RE =
  /^(what('s| is| are| does)|whats|how (does|do|is)|explain|why (does|do|is)|difference between|when should|should i use|can you explain)\b|\b(vs\.?|versus|difference between|what is the difference)\b|什么是|是什么|区别|有什么不同|怎么理解|原理|とは|違い|って何|차이|뭐야|무엇|란\b|이란/iu;
const CJK_RE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** True when the prompt reads as a general question about a concept. Pure. */
export function isGeneralQuestion(prompt: string): boolean {
  return GENERAL_RE.test(prompt.trim());
}

const TYPES = ['user', 'feedback', 'project', 'reference'] as const;

export type VetoFeatureName =
  | 'rank'
  | 'logScore'
  | 'logRelevance'
  | 'scoreRatio'
  | 'relevanceRatio'
  | 'gapToNext'
  | 'overlap'
  | 'distinctive'
  | 'specific'
  | 'ownSpecific'
  | 'phrases'
  | 'evidence'
  | 'evidenceRatio'
  | 'eligible'
  | 'eligibleCandidates'
  | 'general'
  | 'cjk'
  | `type_${(typeof TYPES)[number]}`;

export type VetoFeatures = Record<VetoFeatureName, number>;

/**
 * The features of each of `top` (the ranked list's best, best first, at most VETO_TOP), as
 * scripts/cutoff-learn.mjs computes them for training. Pure.
 */
export function vetoFeatures(
  top: readonly VetoCandidate[],
  prompt: string,
  cutoff: RelevanceCutoff,
): VetoFeatures[] {
  const context = listContext(top, prompt, cutoff);
  return top.map((_, i) => featuresAt(context, i));
}

/** What every candidate's features read from the whole list, computed once per list. */
interface ListContext {
  top: readonly VetoCandidate[];
  bestScore: number;
  bestRelevance: number;
  evidence: number[];
  bestEvidence: number;
  eligible: number;
  holders: Map<string, number>;
  general: number;
  cjk: number;
}

function listContext(
  top: readonly VetoCandidate[],
  prompt: string,
  cutoff: RelevanceCutoff,
): ListContext {
  let bestRelevance = 1e-9;
  let bestEvidence = 1e-9;
  let eligible = 0;
  const evidence: number[] = [];
  const holders = new Map<string, number>();
  for (const r of top) {
    bestRelevance = Math.max(bestRelevance, r.relevance);
    const e = evidenceOf(r, cutoff);
    evidence.push(e);
    bestEvidence = Math.max(bestEvidence, e);
    if (e >= 1) eligible++;
    for (const w of r.specificWords) holders.set(w, (holders.get(w) ?? 0) + 1);
  }
  return {
    top,
    bestScore: top[0]?.score || 1,
    bestRelevance,
    evidence,
    bestEvidence,
    eligible,
    holders,
    general: isGeneralQuestion(prompt) ? 1 : 0,
    cjk: CJK_RE.test(prompt) ? 1 : 0,
  };
}

function featuresAt(c: ListContext, i: number): VetoFeatures {
  const r = c.top[i]!;
  const next = c.top[i + 1];
  const evidence = c.evidence[i]!;
  let ownSpecific = 0;
  for (const w of r.specificWords) if (c.holders.get(w) === 1) ownSpecific++;
  return {
    rank: i,
    logScore: Math.log1p(r.score),
    logRelevance: Math.log1p(r.relevance),
    scoreRatio: r.score / c.bestScore,
    relevanceRatio: r.relevance / c.bestRelevance,
    gapToNext: next ? (r.score - next.score) / c.bestScore : r.score / c.bestScore,
    overlap: r.overlap,
    distinctive: r.distinctive,
    specific: r.specificWords.length,
    ownSpecific,
    phrases: r.phrases ?? 0,
    evidence,
    evidenceRatio: evidence / c.bestEvidence,
    eligible: evidence >= 1 ? 1 : 0,
    eligibleCandidates: Math.log1p(c.eligible),
    general: c.general,
    cjk: c.cjk,
    type_user: r.type === 'user' ? 1 : 0,
    type_feedback: r.type === 'feedback' ? 1 : 0,
    type_project: r.type === 'project' ? 1 : 0,
    type_reference: r.type === 'reference' ? 1 : 0,
  };
}

/** The veto's probability that a candidate with these features is what the prompt needs. Pure. */
export function vetoProbability(features: VetoFeatures, veto: LearnedVeto = LEARNED_VETO): number {
  let s = veto.bias;
  for (const f of veto.features) s += (f.weight * (features[f.feature] - f.mean)) / f.sd;
  return 1 / (1 + Math.exp(-s));
}

/**
 * The cut-off's selection without what the veto drops, in the same order: a selected memory is
 * kept when it is among `top` (the ranked list's VETO_TOP best, best first) and its probability
 * clears the threshold. Pure.
 */
export function applyLearnedVeto<T extends { file: string }>(
  selected: readonly T[],
  top: readonly VetoCandidate[],
  prompt: string,
  cutoff: RelevanceCutoff,
  veto: LearnedVeto = LEARNED_VETO,
): T[] {
  if (selected.length === 0) return [];
  const listed = top.length > VETO_TOP ? top.slice(0, VETO_TOP) : top;
  const context = listContext(listed, prompt, cutoff);
  // Only the selected are judged; the list around them gives their context.
  return selected.filter((r) => {
    const i = listed.findIndex((t) => t.file === r.file);
    if (i < 0) return false;
    // The veto was fitted on selections made on evidence of their own (one specific word's worth
    // at least); one the cut-off made on shared common words alone (twelve notes on "testing",
    // asked about "testing") is outside what it knows, so it abstains.
    if (context.evidence[i]! < 1) return true;
    return vetoProbability(featuresAt(context, i), veto) >= veto.threshold;
  });
}

/** Fitted by `node scripts/cutoff-learn.mjs --emit-veto` on the seventeen development sets. */
export const LEARNED_VETO: Readonly<LearnedVeto> = Object.freeze({
  bias: -4.778140218701179,
  threshold: 0.17,
  features: Object.freeze(
    [
      {
        feature: 'rank',
        mean: 4.5000000000000515,
        sd: 2.8722813232690108,
        weight: -0.0012817887528855341,
      },
      {
        feature: 'logScore',
        mean: 0.615910251791285,
        sd: 0.5284337865851911,
        weight: -0.4101814944350464,
      },
      {
        feature: 'logRelevance',
        mean: 0.5139223966142601,
        sd: 0.4573379402959918,
        weight: 0.9446063756533081,
      },
      {
        feature: 'scoreRatio',
        mean: 0.3093913261203803,
        sd: 0.32226030778386733,
        weight: 0.2751805604318669,
      },
      {
        feature: 'relevanceRatio',
        mean: 0.3153976169614364,
        sd: 0.32626225369937706,
        weight: 0.4602335525597584,
      },
      {
        feature: 'gapToNext',
        mean: 0.0968271334792121,
        sd: 0.16207086352154426,
        weight: 0.1760230275053713,
      },
      {
        feature: 'overlap',
        mean: 0.46455142231949637,
        sd: 0.6755753412214379,
        weight: 0.08431517836219836,
      },
      {
        feature: 'distinctive',
        mean: 0.46455142231949637,
        sd: 0.6755753412214379,
        weight: 0.08431517836219836,
      },
      {
        feature: 'specific',
        mean: 0.23501094091904287,
        sd: 0.5129820675529095,
        weight: 0.06701595054215087,
      },
      {
        feature: 'ownSpecific',
        mean: 0.06794310722100691,
        sd: 0.2982089736228924,
        weight: 0.15028969987348173,
      },
      {
        feature: 'phrases',
        mean: 0.016630196936542708,
        sd: 0.1345517763998067,
        weight: 0.0710155084780284,
      },
      {
        feature: 'evidence',
        mean: 0.35065645514223437,
        sd: 0.5528072441223787,
        weight: 0.3369955338325681,
      },
      {
        feature: 'evidenceRatio',
        mean: 0.2563020996144725,
        sd: 0.37459381242739426,
        weight: 0.2707488323707886,
      },
      {
        feature: 'eligible',
        mean: 0.21433260393873668,
        sd: 0.410358549109882,
        weight: 0.20815320230843648,
      },
      {
        feature: 'eligibleCandidates',
        mean: 0.8545089849290611,
        sd: 0.7506613991906131,
        weight: -0.30391669564281676,
      },
      {
        feature: 'general',
        mean: 0.17724288840262845,
        sd: 0.38187412443543994,
        weight: -0.5206460863031565,
      },
      {
        feature: 'cjk',
        mean: 0.3971553610503498,
        sd: 0.48930867582669996,
        weight: -0.1805653558616551,
      },
      {
        feature: 'type_user',
        mean: 0.14091903719912421,
        sd: 0.3479380148158744,
        weight: 0.11636391086024846,
      },
      {
        feature: 'type_feedback',
        mean: 0.40415754923415786,
        sd: 0.49072825945847354,
        weight: 0.01615494997357405,
      },
      {
        feature: 'type_project',
        mean: 0.35459518599564155,
        sd: 0.4783904681997102,
        weight: -0.13638016647775783,
      },
      {
        feature: 'type_reference',
        mean: 0.10032822757111508,
        sd: 0.30043713872215666,
        weight: 0.05601122798255554,
      },
    ].map((f) => Object.freeze(f as VetoFeatureWeight)),
  ),
});
