export {
  type AutoMemoryBefore,
  type AutoMemoryChange,
  autoMemoryOffByEnvironment,
  ensurePluginAutoMemoryOff,
  pluginSettingsPath,
  restoreClaudeAutoMemory,
  turnOffClaudeAutoMemory,
  withAutoMemoryOff,
  withAutoMemoryRestored,
} from './auto-memory.js';

export { claudeCodeMemoryDir, claudeProjectKey } from './claude-code-memory.js';

export {
  DEFAULT_RECALL_BUDGET_MS,
  HOOK_MEMORY_MAX_BYTES,
  type HookContext,
  PRE_COMPACT_BUDGET_MS,
  type PromptHookOptions,
  preCompactHook,
  sessionStartHook,
  userPromptSubmitHook,
} from './events.js';

export {
  HOOK_EVENTS,
  type HookCommandName,
  type HookEventName,
  type HookInput,
  parseHookInput,
} from './input.js';

export {
  NOTICES,
  type Notice,
  type NoticeKind,
  queueNotices,
  recallNotice,
  sessionNotice,
  takeNotice,
} from './notices.js';

export {
  capHookContext,
  contextOutput,
  HOOK_CONTEXT_MAX_CHARS,
  type HookOutput,
} from './output.js';

export { contextCutNote } from './prompts.js';

export {
  claudeSettingsPath,
  HOOK_TIMEOUTS,
  type HookInstallResult,
  installHooks,
  isEngramHook,
  readClaudeSettings,
  rewriteClaudeSettings,
  type SettingsScope,
  uninstallHooks,
  withEngramHooks,
  withoutEngramHooks,
} from './settings.js';

export { stopHook, transcriptFolderOf } from './stop.js';

export {
  type HookTranscript,
  historyForRecall,
  hookContextsIn,
  readHookTranscript,
} from './transcript.js';
