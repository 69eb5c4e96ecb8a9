export {
  type CandidateOptions,
  type CandidateSet,
  isRecallable,
  loadCandidates,
  warmCandidates,
} from './candidates.js';

export {
  DEFAULT_DECAY,
  type DecayConstants,
  type DecayInput,
  decayFromSettings,
  decayWeight,
} from './decay.js';

export {
  LAST_RECALLED_TAIL_BYTES,
  lastRecalledAt,
  lastRecalledFrom,
  type RecalledLine,
  readLastRecalled,
  recalledKey,
} from './last-recalled.js';

export {
  appendRecallMetrics,
  DEFAULT_STALE_AFTER_DAYS,
  emptyRecallShape,
  metricsPathFor,
  RECALL_METRICS_FILE,
  type RecallShape,
  type RecallSkip,
  readRecallMetrics,
} from './metrics.js';

export {
  analyzeForRanking,
  analyzeForStorage,
  buildOfflineRanker,
  createOfflineRanker,
  MAX_RECALLED,
  type OfflineRanker,
  type OfflineRankerOptions,
  RANKER_ANALYSIS_VERSION,
  RANKER_TUNING,
  type RankableMemory,
  type RankedMemory,
  type RankerAnalysis,
  type RankerDocument,
  type RankOptions,
  rankerDocumentFrom,
  recencyOf,
  type StoredRankerDocument,
  TYPE_WEIGHTS,
} from './offline-ranker.js';

export { type RecallHandle, startRecall } from './prefetch.js';

export {
  SELECT_TOOL_NAME,
  SELECTOR_HEADINGS,
  SELECTOR_SYSTEM_PROMPT,
  type SelectorInput,
  selectorUserMessage,
  selectToolDefinition,
} from './prompts.js';

export {
  clearOfflineRankerCache,
  offlineRankerFor,
  RANKER_CACHE_SIZE,
  rankOffline,
} from './ranker-cache.js';

export { type RecalledMemory, type RecallOptions, type RecallResult, recall } from './recall.js';

export { successfulToolsSinceLastTurn } from './recent-tools.js';

export {
  type CutoffCandidate,
  RELEVANCE_CUTOFF,
  type RelevanceCutoff,
  selectRelevant,
} from './relevance-cutoff.js';

export {
  DEFAULT_SELECTOR_TIMEOUT_MS,
  keepKnown,
  type ModelSelectOptions,
  readSelection,
  selectWithModel,
} from './selector.js';

export { CJK_SINGLE_WORD_MAX_CHARS, isSingleWordPrompt } from './single-word.js';

export {
  type RecallStats,
  STATS_MIN_RUNS_FOR_ALARMS,
  type StaleHitDay,
  staleHitsOverTime,
  summarizeRecallMetrics,
} from './stats.js';

export { type AnalyzedText, analyze, isStopWord, stemWord, tokenize } from './tokenize.js';

export {
  type MemoryVerdict,
  type MemoryVerifier,
  type VerifyRequest,
  verdictsWithin,
} from './verification.js';
