/**
 * Offline recall ranker: picks the memories most related to a query without any model call.
 *
 * Relevance is BM25F over stemmed words and word pairs (name and description weigh more than the
 * body), with the query widened by a small concept thesaurus and by pseudo-relevance feedback from
 * its own best matches, blended with a character 4-gram view that forgives spelling and derivation.
 * The seed formula's type weights and a recency bonus stay on top, as multipliers:
 * score = relevance × (1 + 0.5 × decay) × type weight, where decay is per type (decay.ts: user facts
 * barely age, project state by the week, references by disuse), relevance in units of "one rare word
 * matched". Multipliers (rather than the seed's added recency) mean freshness can reorder relevant
 * memories but never lift an irrelevant one.
 *
 * Deterministic (same query + same memories → same order, ties by file name), so injected recall
 * stays byte-stable across turns and does not break the prompt cache.
 */
import type { MemoryTypeOrUnknown } from '../memdir/types.js';
import { runSteps } from '../util/steps.js';
import { type DecayConstants, type DecayInput, decayWeight } from './decay.js';
import { applyLearnedVeto, VETO_MIN_MEMORIES, VETO_TOP } from './learned-veto.js';
import {
  type Bm25Index,
  type Bm25Snapshot,
  createBm25Builder,
  type RestoreOptions,
  restoreBm25,
  singletonIdf,
  snapshotBm25Steps,
  type WeightedTerms,
} from './lexical/bm25-index.js';
import { charGrams } from './lexical/char-grams.js';
import { type ConceptTable, relatedTerms } from './lexical/concepts.js';
import { isEverydayWord } from './lexical/everyday.js';
import { isGenericTerm } from './lexical/generic-words.js';
import {
  createGramViewBuilder,
  type GramView,
  type GramViewSnapshot,
  restoreGramView,
} from './lexical/gram-view.js';
import { isWeakTerm } from './lexical/weak-words.js';
import { matchedWords, type WordMark } from './matched-words.js';
import { RELEVANCE_CUTOFF, type RelevanceCutoff, selectRelevant } from './relevance-cutoff.js';
import {
  type AnalyzedText,
  analyze,
  cjkBigramChains,
  codeWords,
  identifierParts,
  isSingleCjkTerm,
  normalized,
  stemWord,
} from './tokenize.js';

/** Real recall injects at most this many memories per turn. */
export const MAX_RECALLED = 5;

/** Explicit and explainable: who the user is outranks how-to notes about external references. */
export const TYPE_WEIGHTS: Record<MemoryTypeOrUnknown, number> = {
  user: 1.4,
  feedback: 1.2,
  project: 1.0,
  reference: 0.7,
  // A memory without a valid type is the least trusted: same weight as the lowest known type.
  unknown: 0.7,
};

export interface RankableMemory {
  file: string;
  type: MemoryTypeOrUnknown;
  description?: string;
  name?: string;
  body?: string;
  mtimeMs: number;
}

export interface RankOptions {
  nowMs: number;
  /** Default MAX_RECALLED; pass Infinity for evaluation only. */
  limit?: number;
  /**
   * Default true: the relevance cut-off applies (see `selectRelevant`): a memory is selected only
   * on evidence of its own. False ranks every memory (evaluation and prefiltering only).
   */
  requireOverlap?: boolean;
  /** The cut-off's constants (default RELEVANCE_CUTOFF). */
  cutoff?: RelevanceCutoff;
  /**
   * Rank only these files (the rest still shape the statistics). Recall passes the memories that
   * may still be chosen, so one already in the conversation never sets the cut-off's bar.
   */
  only?: ReadonlySet<string>;
  /**
   * Default true: the learned veto (learned-veto.ts) may drop what the cut-off selected. False:
   * the hand-written cut-off alone (evaluation, to measure what the veto is worth).
   */
  veto?: boolean;
  /** Per-type decay constants (default DEFAULT_DECAY). */
  decay?: DecayConstants;
  /** When recall last selected each file (from the recall log), for the reference rule. */
  lastRecalled?: ReadonlyMap<string, number>;
}

export interface RankedMemory {
  file: string;
  score: number;
  /** The query match alone, before the type weight and recency multiply it into `score`. */
  relevance: number;
  /** Distinct non-weak query words found in the memory, directly or through a related concept (a
   * match through a weak word, "work" reached from "job", is none). */
  overlap: number;
  /**
   * Of those, the words that are distinctive here: not weak or generic, and not held by most of
   * the memories. Zero means the memory shares only common words with the query.
   */
  distinctive: number;
  /**
   * The distinctive query words (stems) matched through a term that is not everyday English either
   * (see lexical/everyday.ts): "latenc", "kafka", "部署", not "name" or "after". The cut-off reads
   * them as the memory's own evidence.
   */
  specificWords: readonly string[];
  /** Adjacent query word pairs it shares as such ("hard code" in "never hard-code colours"). */
  phrases: number;
}

export interface OfflineRanker {
  rank(query: string, options: RankOptions): RankedMemory[];
}

const DAY_MS = 86_400_000;
const NO_WORDS: readonly string[] = Object.freeze([]);
const RECENCY_BONUS = 0.5;
/** Memory texts a ranker keeps for CJK runs (a long-running host ranks many queries). */
const TEXTS_KEPT = 256;

/**
 * Ranking constants, chosen on the LoCoMo dev conversations (docs/eval.md) and kept in one place
 * so an evaluation can show what each one is worth.
 */
export const RANKER_TUNING = deepFreeze({
  // Name and description are what a memory is about; the body also carries detail and asides.
  fieldWeights: { name: 1, description: 1, body: 0.5 },
  word: { k1: 0.9, b: 0.75 },
  gram: { k1: 1.2, b: 0.4 },
  /** Weight of a word pair ("road trip") relative to a single word. */
  pairWeight: 0.5,
  /** Share of the character-gram view in the blend (the word view counts 1). */
  gramShare: 0.4,
  /** Pseudo-relevance feedback: terms from the best few matches, each worth a fraction of a word. */
  feedback: { docs: 3, terms: 10, weight: 0.2 },
  /** Whether the concept thesaurus widens the query. */
  concepts: true,
});

function deepFreeze<T extends object>(value: T): Readonly<T> {
  for (const v of Object.values(value)) if (typeof v === 'object' && v !== null) deepFreeze(v);
  return Object.freeze(value);
}

/** Smooth one-week decay: no memory jumps in or out of recall at a hard age boundary. */
export function recencyOf(mtimeMs: number, nowMs: number): number {
  const ageDays = Math.max(0, nowMs - mtimeMs) / DAY_MS;
  return 1 / (1 + ageDays / 7);
}

/** One query word with its alternatives; a memory scores the best alternative it contains. */
interface QueryGroup {
  /** The query word itself (stemmed). */
  head: string;
  weight: number;
  alternatives: ReadonlyMap<string, number>;
  /** Counts toward overlap (a word of the query, not a pair or a feedback term). */
  counts: boolean;
  /** A pair of adjacent query words ("hard code"): shared as such, it is specific evidence. */
  phrase: boolean;
  /** The query word is everyday English (lexical/everyday.ts): weaker evidence alone. */
  everyday: boolean;
  /** The query word is generic software vocabulary (lexical/generic-words.ts): weaker evidence. */
  generic?: boolean;
}

function byFile(a: { file: string }, b: { file: string }): number {
  return a.file < b.file ? -1 : a.file > b.file ? 1 : 0;
}

/**
 * Bump when `analyzeForRanking` makes something else of the same text: caches keep its output with
 * each memory and reuse it while this (and a probe analysis, see cached-ranker.ts) is unchanged.
 */
export const RANKER_ANALYSIS_VERSION = 2;

/** What the index holds for one memory; a cache may keep it while the memory is unchanged. */
export interface RankerDocument {
  /** Per field: its index terms (stems, CJK bigrams, word pairs). */
  words: WeightedTerms[];
  /** Per field: its words before stemming, which the character-gram view is made of. */
  bases: WeightedTerms[];
}

/**
 * A memory's analysis as a cache keeps it: per field its weight, its index terms and its words
 * (space-joined, as no term holds a space; an array otherwise). Character grams are not kept: they
 * follow from the words and cost less to redo than to store and parse.
 */
export type StoredRankerDocument = Array<
  [weight: number, terms: string | string[], words: string | string[]]
>;

const joined = (xs: readonly string[]): string | string[] =>
  xs.some((x) => x === '' || x.includes(' ')) ? [...xs] : xs.join(' ');
const split = (x: string | string[]): string[] =>
  Array.isArray(x) ? x : x === '' ? [] : x.split(' ');

/**
 * Tokenize one memory's fields: the analysis in the form a cache keeps, and the index's document
 * made from the same arrays (not by splitting the kept strings again). Pure.
 */
export function analyzeForIndex(memory: RankableMemory): {
  stored: StoredRankerDocument;
  document: RankerDocument;
} {
  const stored: StoredRankerDocument = [];
  const words: WeightedTerms[] = [];
  const bases: WeightedTerms[] = [];
  for (const field of ['name', 'description', 'body'] as const) {
    const text = memory[field];
    if (!text) continue;
    const a = analyze(text);
    const weight = RANKER_TUNING.fieldWeights[field];
    const terms = a.terms.concat(a.pairs);
    stored.push([weight, joined(terms), joined(a.words)]);
    words.push({ terms, weight });
    bases.push({ terms: a.words, weight });
  }
  return { stored, document: { words, bases } };
}

/** Tokenize one memory's fields, in the form a cache keeps. Pure. */
export function analyzeForStorage(memory: RankableMemory): StoredRankerDocument {
  return analyzeForIndex(memory).stored;
}

/** What the index takes from a stored analysis (the same as analyzing the memory again). Pure. */
export function rankerDocumentFrom(stored: StoredRankerDocument): RankerDocument {
  const words: WeightedTerms[] = [];
  const bases: WeightedTerms[] = [];
  for (const [weight, terms, fieldWords] of stored) {
    words.push({ terms: split(terms), weight });
    bases.push({ terms: split(fieldWords), weight });
  }
  return { words, bases };
}

/** Tokenize one memory's fields for the index. Pure. */
export function analyzeForRanking(memory: RankableMemory): RankerDocument {
  return analyzeForIndex(memory).document;
}

/**
 * Where a ranker's documents come from: `analyzeForRanking` by default; a cache hands back kept
 * ones, and returns undefined for a memory it has no time left to analyze (left out of the index).
 */
export type RankerAnalysis<M extends RankableMemory = RankableMemory> = (
  memory: M,
) => RankerDocument | undefined;

export interface OfflineRankerOptions {
  /** The concept table queries are widened with (default: the built-in one; evaluation swaps it). */
  concepts?: ConceptTable;
}

/** Tokenizes and indexes the memories once, so each query only pays for scoring. */
export function createOfflineRanker(
  memories: readonly RankableMemory[],
  analysis: RankerAnalysis = analyzeForRanking,
  rankerOptions: OfflineRankerOptions = {},
): OfflineRanker {
  return runSteps(buildOfflineRanker(memories, analysis, rankerOptions));
}

/**
 * The same ranker, built one memory per step: a long-running host pauses between steps so its
 * event loop never waits for the whole index.
 */
export function* buildOfflineRanker<M extends RankableMemory>(
  memories: readonly M[],
  analysis: RankerAnalysis<M> = analyzeForRanking,
  rankerOptions: OfflineRankerOptions = {},
): Generator<void, OfflineRanker> {
  const all = [...memories].sort(byFile);
  yield; // the sort is a step of its own, not one with the first memory's analysis
  const sorted: M[] = [];
  // The index does not keep each memory's terms (its grams are most of a host's memory): the few
  // documents feedback looks into are analyzed again (from the cache's kept analysis, if any).
  const again = (d: number) => analysis(sorted[d]!) ?? analyzeForRanking(sorted[d]!);
  const wordBuilder = createBm25Builder(RANKER_TUNING.word, (d) => again(d).words);
  const gramBuilder = createGramViewBuilder(RANKER_TUNING.gram);
  for (const memory of all) {
    const doc = analysis(memory);
    if (doc === undefined) continue;
    sorted.push(memory);
    wordBuilder.add(doc.words);
    gramBuilder.add(doc.bases);
    yield;
  }
  const wordIndex = yield* wordBuilder.finishSteps();
  const grams = yield* gramBuilder.finishSteps();
  return rankerOver(sorted, wordIndex, grams.view, grams.snapshot, rankerOptions);
}

/** A built ranker as plain data: its memories' files in index order and both indexes. */
export interface OfflineRankerSnapshot {
  files: string[];
  word: Bm25Snapshot;
  gram: GramViewSnapshot;
}

const snapshotters = new WeakMap<
  OfflineRanker,
  () => Generator<void, OfflineRankerSnapshot | undefined>
>();

const matchers = new WeakMap<
  OfflineRanker,
  (query: string, cutoff: RelevanceCutoff) => Generator<void, unknown>
>();

/**
 * Compute what `query` matches in steps, ahead of `ranker.rank(query, …)` with the same cut-off
 * (default RELEVANCE_CUTOFF), which then only scores: a host runs these steps in slices so that a
 * new query never stalls its loop for the whole match. Changes no result.
 */
export function* prepareRankSteps(
  ranker: OfflineRanker,
  query: string,
  cutoff: RelevanceCutoff = RELEVANCE_CUTOFF,
): Generator<void, void> {
  const matcher = matchers.get(ranker);
  if (matcher) yield* matcher(query, cutoff);
}

/** The ranker as data a cache can keep (undefined if it cannot be kept). */
export function snapshotOfflineRanker(ranker: OfflineRanker): OfflineRankerSnapshot | undefined {
  return runSteps(snapshotOfflineRankerSteps(ranker));
}

/** The same snapshot in steps, so a long-running host can pause while it is made. */
export function* snapshotOfflineRankerSteps(
  ranker: OfflineRanker,
): Generator<void, OfflineRankerSnapshot | undefined> {
  const snapshotter = snapshotters.get(ranker);
  return snapshotter ? yield* snapshotter() : undefined;
}

/**
 * The ranker a snapshot holds, over these memories (the same set it was built from; undefined
 * otherwise). It ranks exactly as the ranker that was saved. `documentOf` gives a memory's
 * analysis, needed only for the few documents query feedback looks into.
 */
export function restoreOfflineRanker<M extends RankableMemory>(
  snapshot: OfflineRankerSnapshot,
  memories: readonly M[],
  documentOf: (memory: M) => RankerDocument,
  rankerOptions: OfflineRankerOptions = {},
  restore: RestoreOptions = {},
): OfflineRanker | undefined {
  if (!Array.isArray(snapshot?.files) || snapshot.files.length !== memories.length) return;
  const byName = new Map(memories.map((m) => [m.file, m]));
  const sorted: M[] = [];
  for (const file of snapshot.files) {
    const memory = byName.get(file);
    if (memory === undefined) return undefined;
    sorted.push(memory);
  }
  const word = restoreBm25(snapshot.word, (d) => documentOf(sorted[d]!).words, restore);
  const gram = restoreGramView(snapshot.gram, RANKER_TUNING.gram, restore);
  if (!word || !gram || word.size !== sorted.length || gram.size !== sorted.length) return;
  return rankerOver(sorted, word, gram, snapshot.gram, rankerOptions);
}

function rankerOver(
  sorted: readonly RankableMemory[],
  wordIndex: Bm25Index,
  gramIndex: GramView,
  gramSnapshot: GramViewSnapshot,
  rankerOptions: OfflineRankerOptions,
): OfflineRanker {
  const unit = singletonIdf(sorted.length);
  const n = sorted.length;
  // The query's match against every memory, kept for the next call with the same query: one
  // recall ranks twice (the prefilter, then the choice among what it kept).
  let last: (QueryMatch & { query: string; commonAbove: number }) | undefined;
  let docOfFile: Map<string, number> | undefined;
  /** The index's documents of these files, ascending (files it does not hold are left out). */
  const docsOf = (files: ReadonlySet<string>): number[] => {
    docOfFile ??= new Map(sorted.map((m, d) => [m.file, d]));
    const out: number[] = [];
    for (const file of files) {
      const d = docOfFile.get(file);
      if (d !== undefined) out.push(d);
    }
    return out.sort((a, b) => a - b);
  };
  // A memory's text as the tokenizer reads it, for the few a CJK run must be found in as written.
  const texts = new Map<number, string>();
  const textOf = (d: number): string => {
    let text = texts.get(d);
    if (text === undefined) {
      const m = sorted[d]!;
      text = normalized([m.name, m.description, m.body].filter(Boolean).join('\n'));
      if (texts.size >= TEXTS_KEPT) texts.clear();
      texts.set(d, text);
    }
    return text;
  };
  // Per memory, the words it writes as code ("sync.Once", "dw_") and those it writes only in an
  // example, made when first asked (for the memories matching a specific word of a prompt) and
  // kept: few memories have either, so most entries are null.
  const code = new Map<number, ReadonlySet<string> | null>();
  const codeOf = (d: number) => kept(code, d, () => codeWords(textOf(d)));
  const examples = new Map<number, ReadonlySet<string> | null>();
  const exampleOf = (d: number) => kept(examples, d, () => exampleOnlyTerms(sorted[d]!));
  // In steps, so a host can compute a new query's match in slices before ranking with it (in a
  // host's first turn, with the code not yet compiled, one match was a long stall of its loop).
  const matchSteps = function* (query: string, commonAbove: number): Generator<void, QueryMatch> {
    if (last?.query === query && last.commonAbove === commonAbove) return last;
    const analyzed = analyze(query);
    const groups = everydayOnlyBesideTheUnknown(
      queryGroups(analyzed, rankerOptions.concepts),
      wordIndex,
    );
    yield;
    const words = new Float64Array(n);
    const overlap = new Int32Array(n);
    const distinctive = new Int32Array(n);
    const specific: (string[] | undefined)[] = new Array(n);
    const phrases = new Int32Array(n);
    const tally: Tally = {
      marks: new Array(n),
      phrases,
      isCommon: (t: string) => (wordIndex.postings(t)?.docs.length ?? 0) > commonAbove,
    };
    scoreGroups(wordIndex, groups, words, tally);
    yield;
    const queryTerms = new Set(groups.flatMap((g) => [...g.alternatives.keys()]));
    scoreGroups(wordIndex, feedbackGroups(wordIndex, words, queryTerms), words, tally);
    const chains = cjkBigramChains(query);
    const shortCjkIsWeak = holdsTheUnknown(groups, chains, wordIndex);
    const parts = identifierParts(query);
    for (let d = 0; d < n; d++) {
      const marks = tally.marks[d];
      if (!marks) continue;
      const matched = matchedWords(marks, chains, {
        isGeneric: isGenericTerm,
        shortIsWeak: shortCjkIsWeak,
        holds: (word) => textOf(d).includes(word),
        // A part of an identifier the prompt writes ("sync" of "sync.Once") is half a word, unless
        // the memory writes it as code too; so is a word the memory writes only in an example.
        isPart: (word) =>
          (parts.has(word) && !codeOf(d)?.has(word)) || (exampleOf(d)?.has(word) ?? false),
      });
      overlap[d] = matched.overlap;
      distinctive[d] = matched.distinctive;
      if (matched.specific.length > 0) specific[d] = matched.specific;
    }
    const queryGrams = charGrams(analyzed.words);
    // The view makes a gram's postings when first asked: one gram per step.
    for (const gram of queryGrams) {
      yield;
      gramIndex.postings(gram);
    }
    const grams = scoreTerms(gramIndex, queryGrams);
    last = { query, commonAbove, words, grams, overlap, distinctive, specific, phrases };
    return last;
  };
  const matchOf = (query: string, commonAbove: number) => runSteps(matchSteps(query, commonAbove));
  const commonAboveFor = (cutoff: RelevanceCutoff) =>
    Math.max(cutoff.commonMinDocs, cutoff.commonShare * n);
  const ranker: OfflineRanker = {
    rank(query, options) {
      const limit = options.limit ?? MAX_RECALLED;
      const requireOverlap = options.requireOverlap ?? true;
      if (n === 0 || limit <= 0) return [];
      const cutoff = options.cutoff ?? RELEVANCE_CUTOFF;
      const { words, grams, overlap, distinctive, specific, phrases } = matchOf(
        query,
        commonAboveFor(cutoff),
      );

      const maxWords = maxOf(words);
      const maxGrams = maxOf(grams);
      // Blend both views relative to their best match, then express it in word-match units.
      const scale = maxWords > 0 ? maxWords / unit : 1;
      const kept: number[] = [];
      const unmatched: number[] = [];
      const scores = new Float64Array(n);
      const relevances = new Float64Array(n);
      // One decay input, refilled per memory: a prefilter ranks every memory of a large directory
      // each turn, and an object per memory was most of that ranking's garbage.
      const decayInput: DecayInput = { type: 'unknown', mtimeMs: 0, nowMs: options.nowMs };
      // A few files asked for out of many (the choice among a prefilter's 200 of 10,000): visit
      // those, in index order as the full loop would, instead of looking every memory up.
      const docs = options.only && options.only.size * 4 < n ? docsOf(options.only) : undefined;
      const count = docs ? docs.length : n;
      const score = (d: number) => {
        const blend =
          (maxWords > 0 ? words[d]! / maxWords : 0) +
          (maxGrams > 0 ? (RANKER_TUNING.gramShare * grams[d]!) / maxGrams : 0);
        const memory = sorted[d]!;
        decayInput.type = memory.type;
        decayInput.mtimeMs = memory.mtimeMs;
        decayInput.lastRecalledMs = options.lastRecalled?.get(memory.file);
        const recency = decayWeight(decayInput, options.decay);
        const relevance = blend * scale;
        scores[d] = relevance * (1 + RECENCY_BONUS * recency) * TYPE_WEIGHTS[memory.type];
        relevances[d] = relevance;
      };
      for (let i = 0; i < count; i++) {
        const d = docs ? docs[i]! : i;
        if (!docs && options.only && !options.only.has(sorted[d]!.file)) continue;
        if (requireOverlap && overlap[d] === 0) {
          // Never selected, yet the veto reads the ten best of all: scored only if it runs. One
          // matching nothing at all scores 0 and changes no feature of those ahead of it.
          if (words[d] !== 0 || grams[d] !== 0) unmatched.push(d);
          continue;
        }
        score(d);
        kept.push(d);
      }
      // Without the cut-off only the best `limit` are wanted: select them, do not sort them all.
      const chosen =
        !requireOverlap && limit < kept.length ? bestOf(kept, limit, scores, sorted) : kept;
      const rankedOf = (d: number): RankedMemory => ({
        file: sorted[d]!.file,
        score: scores[d]!,
        relevance: relevances[d]!,
        overlap: overlap[d]!,
        distinctive: distinctive[d]!,
        specificWords: specific[d] ?? NO_WORDS,
        phrases: phrases[d]!,
      });
      const byScore = (a: RankedMemory, b: RankedMemory) => b.score - a.score || byFile(a, b);
      const ranked = chosen.map(rankedOf).sort(byScore);
      if (!requireOverlap) return ranked.slice(0, limit);
      const selected = selectRelevant(ranked, cutoff);
      if (options.veto === false || selected.length === 0 || n < VETO_MIN_MEMORIES)
        return selected.slice(0, limit);
      // The learned veto (learned-veto.ts) reads the ten best of every memory ranked, matched or not.
      for (const d of unmatched) score(d);
      const top = bestOf(
        unmatched.length > 0 ? kept.concat(unmatched) : kept,
        VETO_TOP,
        scores,
        sorted,
      )
        .map((d) => Object.assign(rankedOf(d), { type: sorted[d]!.type }))
        .sort(byScore);
      return applyLearnedVeto(selected, top, query, cutoff).slice(0, limit);
    },
  };
  matchers.set(ranker, (query, cutoff) => matchSteps(query, commonAboveFor(cutoff)));
  snapshotters.set(ranker, function* () {
    const word = yield* snapshotBm25Steps(wordIndex);
    return word ? { files: sorted.map((m) => m.file), word, gram: gramSnapshot } : undefined;
  });
  return ranker;
}

// Where a memory starts an example. "such as" is left out: the list after it is often what the
// note is about ("databases such as Postgres and MySQL").
const EXAMPLE_RE = /\b(?:e\.g\.|for example|for instance)/giu;

/**
 * The terms a memory writes only in examples: the text after "e.g." or "for example" up to the
 * end of its sentence or bracket. Null when it gives no example (most memories). Pure.
 */
function exampleOnlyTerms(memory: RankableMemory): ReadonlySet<string> | null {
  const text = [memory.name, memory.description, memory.body].filter(Boolean).join('\n');
  if (text.search(EXAMPLE_RE) < 0) return null;
  const main: string[] = [];
  const example: string[] = [];
  let at = 0;
  for (const m of text.matchAll(EXAMPLE_RE)) {
    const start = m.index!;
    if (start < at) continue;
    main.push(text.slice(at, start));
    const open = text.lastIndexOf('(', start) > text.lastIndexOf(')', start);
    const rest = text.slice(start + m[0].length);
    const stop = open ? rest.search(/\)|\n/) : rest.search(/[.;!?]\s|\n/);
    const end = stop < 0 ? rest.length : stop;
    example.push(rest.slice(0, end));
    at = start + m[0].length + end;
  }
  main.push(text.slice(at));
  const kept = new Set(analyze(main.join(' ')).terms);
  const only = new Set(analyze(example.join(' ')).terms.filter((t) => !kept.has(t)));
  return only.size > 0 ? only : null;
}

/** `map`'s value for `d`, made by `make` when missing and kept. */
function kept<V>(map: Map<number, V>, d: number, make: () => V): V {
  let value = map.get(d);
  if (value === undefined) {
    value = make();
    map.set(d, value);
  }
  return value;
}

const isNumber = (word: string) => /^[0-9]+$/.test(word);

function queryGroups(analyzed: AnalyzedText, concepts: ConceptTable | undefined): QueryGroup[] {
  const { terms, pairs } = analyzed;
  // A query stem is everyday when every word the prompt wrote for it is (CJK terms never are).
  // A bare number counts as one too: "100" in "the toggle has been at 100% for a month" is not
  // what the prompt is about, and shared alone (with "100 requests per minute") it selects nothing.
  const everyday = new Map<string, boolean>();
  for (const word of analyzed.words) {
    const term = stemWord(word);
    everyday.set(term, (everyday.get(term) ?? true) && (isEverydayWord(word) || isNumber(word)));
  }
  const counts = new Map<string, { weight: number; isWord: boolean }>();
  for (const t of terms) {
    const c = counts.get(t);
    counts.set(t, { weight: (c?.weight ?? 0) + 1, isWord: true });
  }
  for (const p of pairs) {
    const c = counts.get(p);
    counts.set(p, {
      weight: (c?.weight ?? 0) + RANKER_TUNING.pairWeight,
      isWord: c?.isWord ?? false,
    });
  }
  const groups: QueryGroup[] = [];
  for (const [term, { weight, isWord }] of counts) {
    const alternatives = new Map<string, number>([[term, 1]]);
    if (isWord && RANKER_TUNING.concepts) {
      for (const [related, w] of relatedTerms(term, concepts)) {
        if (!counts.has(related)) alternatives.set(related, w);
      }
    }
    // A weak word ("need", "know") still scores but cannot make a memory eligible alone.
    groups.push({
      head: term,
      weight,
      alternatives,
      // One CJK character left between particles ("和", "里", "上") is in every sentence, and one
      // Latin letter is what is left of "C#" or "C++" or a list item "a)".
      counts: isWord && !isWeakTerm(term) && !isSingleCjkTerm(term) && term.length > 1,
      phrase: !isWord,
      everyday: everyday.get(term) ?? false,
      generic: isGenericTerm(term),
    });
  }
  return groups;
}

/**
 * Everyday words are weak evidence only when the prompt also holds a specific word that no memory
 * knows: "suggest a name for my new puppy" is about the puppy, and a note on Kafka topic names
 * shares nothing but "name" with it. A prompt made only of everyday words ("how many kids does
 * the user have") has nothing better to go by, so there its words count in full.
 */
function everydayOnlyBesideTheUnknown(groups: QueryGroup[], index: Bm25Index): QueryGroup[] {
  const elsewhere = groups.some(
    (g) => g.counts && !g.everyday && ![...g.alternatives.keys()].some((t) => index.postings(t)),
  );
  return elsewhere ? groups : groups.map((g) => (g.everyday ? { ...g, everyday: false } : g));
}

/**
 * Whether the prompt holds something no memory knows: a specific Latin word, or a CJK piece
 * (between particles) none of whose bigrams any memory holds ("三次握手" in "解释一下 TCP 三次握手").
 * Then a two-character CJK word it shares with a memory ("解释", explain) is as weak as an everyday
 * word beside the unknown (see `everydayOnlyBesideTheUnknown`); without it ("我的牙医在哪里") the
 * two characters are all the prompt says and count in full. Bigrams are not enough on their own:
 * one straddling two words ("付房" in "要付房租") is unknown everywhere.
 */
function holdsTheUnknown(
  groups: readonly QueryGroup[],
  chains: readonly (readonly string[])[],
  index: Bm25Index,
): boolean {
  const unknownLatin = groups.some(
    (g) =>
      g.counts &&
      !g.everyday &&
      !g.generic &&
      !CJK_TERM_RE.test(g.head) &&
      ![...g.alternatives.keys()].some((t) => index.postings(t)),
  );
  return (
    unknownLatin ||
    chains.some(
      (chain) => !isGenericTerm(chainWord(chain)) && chain.every((b) => !index.postings(b)),
    )
  );
}

/** The text a chain of overlapping bigrams spells. */
const chainWord = (chain: readonly string[]) =>
  chain[0]! +
  chain
    .slice(1)
    .map((b) => Array.from(b).at(-1))
    .join('');

const CJK_TERM_RE = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

interface Tally {
  /** Per document, the query words it matches and what each is worth (undefined: none). */
  marks: (Map<string, WordMark> | undefined)[];
  /** Per document, how many query word pairs it shares as such. */
  phrases: Int32Array;
  isCommon: (term: string) => boolean;
}

/**
 * Adds each group's best alternative per document into `scores`; counts overlapping words, and
 * among them the distinctive ones (matched through a term most memories do not share).
 */
function scoreGroups(
  index: Bm25Index,
  groups: readonly QueryGroup[],
  scores: Float64Array,
  tally: Tally,
): void {
  const best = new Float64Array(index.size);
  const rare = new Uint8Array(index.size);
  const touched: number[] = [];
  for (const group of groups) {
    for (const [term, w] of group.alternatives) {
      const posting = index.postings(term);
      if (!posting) continue;
      const idf = index.idf(term) * w;
      // What the match is worth: 0, nothing (through a weak word: "work", reached from "job");
      // 1, an overlap (a word most memories hold); 2, distinctive; 3, distinctive and not
      // everyday English either.
      const judged = group.counts || group.phrase;
      const mark =
        !judged || isWeakTerm(term)
          ? 0
          : tally.isCommon(term)
            ? 1
            : group.everyday || group.generic
              ? 2
              : 3;
      for (let i = 0; i < posting.docs.length; i++) {
        const d = posting.docs[i]!;
        const v = idf * posting.weights[i]!;
        if (best[d] === 0) touched.push(d);
        if (v > best[d]!) best[d] = v;
        if (mark > rare[d]!) rare[d] = mark;
      }
    }
    for (const d of touched) {
      scores[d]! += group.weight * best[d]!;
      if (group.counts && rare[d]! >= 1) {
        let marks = tally.marks[d];
        if (!marks) {
          marks = new Map();
          tally.marks[d] = marks;
        }
        marks.set(group.head, rare[d] as WordMark);
      }
      if (group.phrase && rare[d] === 3) tally.phrases[d]! += 1;
      best[d] = 0;
      rare[d] = 0;
    }
    touched.length = 0;
  }
}

/** Terms characteristic of the best-scoring documents, as extra low-weight query groups. */
function feedbackGroups(
  index: Bm25Index,
  scores: Float64Array,
  queryTerms: ReadonlySet<string>,
): QueryGroup[] {
  const top = topDocuments(scores, RANKER_TUNING.feedback.docs);
  const candidates = new Map<string, number>();
  for (const d of top) {
    const length = index.lengthOf(d) || 1;
    for (const [term, tf] of index.termsOf(d)) {
      // A term only that memory holds cannot find anything new; it would only re-boost it.
      if (queryTerms.has(term) || (index.postings(term)?.docs.length ?? 0) < 2) continue;
      candidates.set(term, (candidates.get(term) ?? 0) + (tf / length) * index.idf(term));
    }
  }
  const chosen = [...candidates]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, RANKER_TUNING.feedback.terms);
  const max = chosen[0]?.[1] ?? 1;
  return chosen.map(([term, w]) => ({
    head: term,
    weight: (RANKER_TUNING.feedback.weight * w) / max,
    alternatives: new Map([[term, 1]]),
    counts: false,
    phrase: false,
    everyday: false,
  }));
}

// A loop, not Math.max(...scores): a prefiltered directory can hold more memories than a call
// may take arguments.
/** What a query matches in each memory, before recency, type and the cut-off. */
interface QueryMatch {
  words: Float64Array;
  grams: Float64Array;
  overlap: Int32Array;
  distinctive: Int32Array;
  /** Per memory, the query words it matches specifically (see RankedMemory.specificWords). */
  specific: readonly (readonly string[] | undefined)[];
  phrases: Int32Array;
}

/**
 * The `k` best of `docs` by score, ties by file, as a full sort would put them first (in no
 * particular order; the caller sorts these few). A bounded heap: n log k, not n log n. Pure.
 */
function bestOf(
  docs: readonly number[],
  k: number,
  scores: Float64Array,
  sorted: readonly { file: string }[],
): number[] {
  // `worse(a, b)`: a ranks after b. The heap's root is the worst of the best so far.
  const worse = (a: number, b: number) =>
    scores[a]! < scores[b]! || (scores[a] === scores[b] && sorted[a]!.file > sorted[b]!.file);
  const heap: number[] = [];
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && worse(heap[l]!, heap[m]!)) m = l;
      if (r < heap.length && worse(heap[r]!, heap[m]!)) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m]!, heap[i]!];
      i = m;
    }
  };
  for (const d of docs) {
    if (heap.length < k) {
      heap.push(d);
      for (let i = heap.length - 1; i > 0; ) {
        const p = (i - 1) >> 1;
        if (!worse(heap[i]!, heap[p]!)) break;
        [heap[i], heap[p]] = [heap[p]!, heap[i]!];
        i = p;
      }
    } else if (worse(heap[0]!, d)) {
      heap[0] = d;
      down(0);
    }
  }
  return heap;
}

function maxOf(scores: Float64Array): number {
  let max = 0;
  for (const v of scores) if (v > max) max = v;
  return max;
}

/** Indices of the `k` best positive scores, best first, ties by index (no full sort). */
function topDocuments(scores: Float64Array, k: number): number[] {
  const top: number[] = [];
  for (let d = 0; d < scores.length; d++) {
    const v = scores[d]!;
    if (v <= 0) continue;
    let i = top.length;
    while (i > 0 && scores[top[i - 1]!]! < v) i--;
    if (i < k) {
      top.splice(i, 0, d);
      if (top.length > k) top.pop();
    }
  }
  return top;
}

function scoreTerms(index: GramView, terms: readonly string[]): Float64Array {
  const scores = new Float64Array(index.size);
  const counts = new Map<string, number>();
  for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
  for (const [term, qtf] of counts) {
    const posting = index.postings(term);
    if (!posting) continue;
    const idf = index.idf(term) * qtf;
    for (let i = 0; i < posting.docs.length; i++)
      scores[posting.docs[i]!]! += idf * posting.weights[i]!;
  }
  return scores;
}
