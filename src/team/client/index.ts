export { type Batch, type BatchPlan, packBatches, serializeBatch } from './batches.js';

export {
  resolveTeamConfig,
  sameTeamConfig,
  saveTeamLogin,
  TEAM_SETTINGS_KEY,
  type TeamClientConfig,
} from './config.js';

export {
  failureOf,
  isPermanentFailure,
  type PushFailure,
  type PushFailureKind,
  type RecoverySignal,
  recoveryFor,
} from './failure.js';

export {
  type FullView,
  type HashesView,
  type HttpResult,
  TeamHttpClient,
  type TeamHttpOptions,
} from './http-client.js';

export { pullTeam } from './pull.js';

export type { PullReport, PushReport, SkippedKey } from './reports.js';

export {
  loadSyncState,
  readAnySyncState,
  SYNC_STATE_FILE,
  type SyncState,
  saveSyncState,
} from './sync-state.js';

export {
  isTeamMemoryFile,
  type LocalTeamFiles,
  readLocalTeamFiles,
  type SafeWrite,
  TEAM_DIR_NAME,
  teamDirOf,
  writeTeamFile,
} from './team-files.js';

export {
  TeamSync,
  type TeamSyncOptions,
} from './team-sync.js';

export {
  DEFAULT_WATCH_DEBOUNCE_MS,
  type TeamFileEvent,
  TeamWatcher,
  type TeamWatcherOptions,
} from './watcher.js';
