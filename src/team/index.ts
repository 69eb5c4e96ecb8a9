export { teamChecksum } from './checksum.js';

export {
  type Batch,
  type BatchPlan,
  DEFAULT_WATCH_DEBOUNCE_MS,
  type FullView,
  type HashesView,
  type HttpResult,
  isPermanentFailure,
  isTeamMemoryFile,
  type LocalTeamFiles,
  loadSyncState,
  type PullReport,
  type PushFailure,
  type PushFailureKind,
  type PushReport,
  packBatches,
  type RecoverySignal,
  readAnySyncState,
  readLocalTeamFiles,
  recoveryFor,
  resolveTeamConfig,
  type SafeWrite,
  type SkippedKey,
  SYNC_STATE_FILE,
  type SyncState,
  sameTeamConfig,
  saveSyncState,
  saveTeamLogin,
  serializeBatch,
  TEAM_DIR_NAME,
  TEAM_SETTINGS_KEY,
  type TeamClientConfig,
  type TeamFileEvent,
  TeamHttpClient,
  type TeamHttpOptions,
  TeamSync,
  type TeamSyncOptions,
  TeamWatcher,
  type TeamWatcherOptions,
  teamDirOf,
  writeTeamFile,
} from './client/index.js';

export { checkTeamKey, isTeamKey, type KeyCheck, MAX_KEY_LENGTH } from './keys.js';

export { pullTeamAtSessionStart, SESSION_START_PULL_MS, teamIndexSection } from './layer.js';

export { DEFAULT_TEAM_LIMITS, type TeamLimits } from './limits.js';

export {
  expectedFinalChecksums,
  runTeamLoad,
  type TeamLoadOptions,
  type TeamLoadResult,
} from './load/run-team-load.js';

export { type LocalTeamServer, startLocalTeamServer } from './local-team-server.js';

export { TEAM_INDEX_HEADING, teamIndexPromptSection } from './prompts.js';

export {
  redact,
  SECRET_RULES,
  type SecretFinding,
  type SecretRule,
  scanForSecrets,
  shannonEntropy,
} from './secrets/index.js';

export {
  type AuthDecision,
  authorize,
  createTeamApp,
  createTeamToken,
  DEFAULT_TEAM_HOST,
  DEFAULT_TEAM_PORT,
  hashToken,
  isRepoName,
  type RunningTeamServer,
  startTeamServer,
  TEAM_OPENAPI,
  type TeamAppOptions,
  type TeamRequestLog,
  type TeamServerOptions,
} from './server/index.js';

export { defaultTeamDbPath, isPostgresUrl, openTeamStore } from './storage/open-store.js';

export type {
  DeleteOutcome,
  PutOutcome,
  RepoEntries,
  RepoHashes,
  StoredEntry,
  TeamStore,
  TokenRecord,
} from './storage/types.js';
