/**
 * engram: memory for AI agents. The root entry is small on purpose: the runtime and its session
 * handle, the types a host needs, and a few documented building blocks (each listed, with what it
 * is for, in docs/runtime.md). Every layer's full surface is on its own subpath (`engram/memdir`,
 * `engram/recall`, …). The list is checked against api-report/root.api.txt by `npm test`.
 */

// Building blocks: models and the forked agent, one recall and its rendered bytes, background
// extraction and consolidation on their own, the memory tool on a runtime.
export { createDreamer } from './dream/dreamer.js';
export type { SessionLister, SessionRef } from './dream/index.js';
export { maybeDream } from './dream/maybe-dream.js';
export { createExtractor } from './extract/extractor.js';
// The runtime: one composition root, one session handle.
export {
  DEFAULT_CLOSE_TIMEOUT_MS,
  type Memory,
  type MemoryEvent,
  type OpenMemoryOptions,
  openMemory,
} from './facade/open-memory.js';
export { type Injection, renderInjection } from './inject/render.js';
export { createAnthropicModel } from './llm/anthropic-model.js';
export { runForkedAgent } from './llm/forked-agent.js';
export { createOpenAIModel } from './llm/openai-model.js';
export { type ModelResolution, resolveModel } from './llm/resolve-model.js';
// Host types: the conversation as engram reads it, and the model it may call.
export type {
  ContentBlock,
  ConversationPrefix,
  LanguageModel,
  Message,
  TextBlock,
  ThinkingBlock,
  ToolDefinition,
  ToolImplementation,
  ToolResultBlock,
  ToolUseBlock,
  Usage,
} from './llm/types.js';
export { createMemoryToolHandlers } from './memdir/memory-tool/handler.js';
export { memoryToolHandlersFor } from './memory-tool/for-runtime.js';
export { type RecallHandle, startRecall } from './recall/prefetch.js';
export { type RecallOptions, type RecallResult, recall } from './recall/recall.js';
export { createEngram } from './runtime/create-engram.js';
export { projectSessionLister } from './runtime/sessions.js';
export type {
  Engram,
  EngramDoctorOptions,
  EngramEvent,
  EngramOptions,
  EngramSession,
  OpenSessionOptions,
  RecallRequest,
  TurnOutcome,
} from './runtime/types.js';
export type { SessionCompaction } from './session/compact-session.js';
// The clock and errors every option and failure uses.
export { type Clock, fixedClock, systemClock } from './util/clock.js';
export { EngramError, type EngramErrorCode, isEngramError } from './util/errors.js';
