/**
 * Write path: background extraction after each turn. `createExtractor` is the entry point; the
 * pure policies (what counts as a main-agent memory write, when a run happens) are exported for
 * hosts that want to reason about them.
 */
export {
  DEFAULT_EXTRACTION_CONTEXT_TOKENS,
  type FittedContext,
  fitToContext,
} from './context-window.js';
export { createExtractor, DEFAULT_EXTRACTION_DRAIN_MS } from './extractor.js';
export { memoryWritesIn, type WritePathContext, writeTargets } from './memory-writes.js';
export {
  DEFAULT_EXTRACTION_EVERY_N_TURNS,
  DEFAULT_EXTRACTION_MAX_TURNS,
  decideExtraction,
  type ExtractionDecision,
  type ExtractionDecisionInput,
  isCompletedTurn,
  startAfterCursor,
} from './policy.js';
export {
  buildExtractionPrompt,
  EXTRACTION_HEADINGS,
  type ExtractionPromptOptions,
  formatSavedNotice,
} from './prompts.js';
export { checkSavedFiles, savedTopicFiles } from './saved-files.js';
export { EXTRACTION_MAX_CONTEXT_TOKENS, messagesSinceCursor } from './since-cursor.js';
export type {
  ExtractionContext,
  ExtractionRun,
  Extractor,
  ExtractorOptions,
  ExtractorState,
  FailureReason,
  SavedNotice,
  SkipReason,
  TriggerResult,
  TriggerStatus,
} from './types.js';
