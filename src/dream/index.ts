export {
  createDreamer,
  type DreamContext,
  type Dreamer,
  type DreamerOptions,
  type DreamOutcome,
  type DryRunReport,
  memoryScanThrottle,
  type ScanThrottleStore,
} from './dreamer.js';

export { fileScanThrottle } from './file-scan-throttle.js';

export {
  checkEnabledGate,
  checkScanThrottle,
  checkSessionGate,
  checkTimeGate,
  DEFAULT_DREAM_CONFIG,
  type DreamConfig,
  decideLock,
  type EnabledInput,
  GATE_NAMES,
  type GateDecision,
  type GateName,
  type LockState,
  type SessionRef,
  sessionsToReview,
} from './gates.js';

export { compareAudits, type DreamInvariants } from './invariants.js';

export {
  CONSOLIDATION_LOCK_FILE,
  completeConsolidationLock,
  consolidationLockPath,
  type HeldLock,
  type LockAcquisition,
  type LockOptions,
  readLastConsolidatedAt,
  readLockState,
  rollbackConsolidationLock,
  tryAcquireConsolidationLock,
} from './lock.js';

export {
  type ListSessionsTouchedSince,
  type MaybeDreamContext,
  maybeDream,
} from './maybe-dream.js';

export {
  applyTurn,
  type DreamProgress,
  formatProgress,
  initialProgress,
  type ToolCallRecord,
} from './progress.js';

export {
  buildDreamPrompt,
  DREAM_PROMPT_HEADINGS,
  DREAM_SYSTEM_PROMPT,
  type DreamPromptOptions,
  FIND_TOOL_DESCRIPTION,
  MAX_LISTED_SESSIONS,
  notAMemoryFileRefusal,
} from './prompts.js';

export { type DreamRunResult, type RunDreamOptions, runDream } from './run.js';

export {
  claudeCodeTranscriptDir,
  combineSessionListers,
  type SessionFolderOptions,
  type SessionLister,
  sessionFolderLister,
  type TranscriptDirectoryOptions,
  transcriptDirectoryLister,
} from './sessions.js';

export {
  createDreamTools,
  DREAM_TOOL_DEFINITIONS,
  dreamCanUseTool,
  FIND_TOOL_DEFINITION,
  MAX_FIND_RESULTS,
} from './tools.js';
