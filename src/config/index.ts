/**
 * Configuration: where engram runs (cwd, env, home), `ENGRAM_HOME`, the managed folder, the git root a
 * project is keyed by, and the settings files in priority order. Below storage: memdir, instructions,
 * hooks, session and the CLI all read it; it reads nothing of theirs.
 */
export {
  AGENT_SCOPES,
  type AgentMemoryRoots,
  type AgentScope,
  agentLayerName,
  agentMemoryChain,
  agentMemoryDirs,
  agentNameProblem,
  agentSnapshotDir,
  mentionedAgents,
  validateAgentName,
} from './agent-memory.js';
export {
  checkoutRoot,
  defaultEnvironment,
  type EngramEnvironment,
  engramHome,
  managedDir,
  projectRoot,
} from './environment.js';
export {
  findGitLocation,
  type GitLocation,
  PROJECT_KEY_HASH_LENGTH,
  projectKey,
  sanitizeProjectPath,
} from './git-root.js';
export {
  layerForScope,
  type MemoryChainInput,
  type MemoryLayer,
  type MemoryLayerName,
  resolveMemoryChain,
  USER_LAYER_FOLDER,
  userMemoryDir,
} from './memory-chain.js';
export {
  loadSettings,
  mergedSettings,
  readSettingsFile,
  type SettingsFile,
  type SettingsSource,
  settingOrigin,
  settingsPaths,
} from './settings.js';
export {
  type IgnoredSetting,
  ignoredSettings,
  isTrustedSource,
  localSettingsDistrust,
  TRUSTED_ONLY_KEYS,
  trustedData,
} from './trust.js';
