export {
  type AnthropicBlock,
  type AnthropicMessage,
  type AnthropicPrefixParams,
  type AnthropicTool,
  type CacheControl,
  fromAnthropicContent,
  fromAnthropicRequest,
  fromAnthropicStopReason,
  fromAnthropicUsage,
  MAX_CACHE_BREAKPOINTS,
  toAnthropicMessage,
  toAnthropicPrefix,
} from './anthropic-convert.js';

export {
  type AnthropicModelOptions,
  createAnthropicModel,
  DEFAULT_MAX_TOKENS,
} from './anthropic-model.js';

export {
  loadTranscriptFile,
  type ParseTranscriptOptions,
  parseClaudeCodeTranscript,
  type TranscriptReadResult,
  withoutThinking,
} from './claude-code-transcript.js';

export {
  createFileTools,
  DEFAULT_READ_LIMIT,
  FILE_TOOL_DEFINITIONS,
  type FileToolsOptions,
  MAX_GREP_MATCHES,
  MAX_LIST_ENTRIES,
} from './file-tools.js';

export {
  addUsage,
  type ForkedAgentOptions,
  type ForkedAgentResult,
  type ForkToolCall,
  runForkedAgent,
  type ToolPermissionCheck,
  ZERO_USAGE,
} from './forked-agent.js';

export { createHostFileTools } from './host-file-tools.js';

export {
  abortedError,
  isModelError,
  isRetryableStatus,
  ModelError,
  parseRetryAfter,
} from './model-error.js';

export {
  fromOpenAIFinishReason,
  fromOpenAIMessage,
  fromOpenAIMessages,
  fromOpenAIUsage,
  type OpenAIMessage,
  type OpenAITool,
  type OpenAIToolCall,
  toOpenAIMessages,
  toOpenAITools,
} from './openai-convert.js';

export { createOpenAIModel, type OpenAIModelOptions, SERVER_CHOSEN_MODEL } from './openai-model.js';

export { FILE_TOOL_DESCRIPTIONS, MODEL_CHECK_PROMPT } from './prompts.js';

export {
  ANTHROPIC_DEFAULT_BASE_URL,
  CONFIGURE_MODEL_HINT,
  DEFAULT_ANTHROPIC_MODEL,
  DEFAULT_OPENAI_MODEL,
  type ModelResolution,
  NO_MODEL_HINT,
  OPENAI_DEFAULT_BASE_URL,
  type ResolveModelOptions,
  resolveModel,
} from './resolve-model.js';

export {
  type CallPolicy,
  callWithRetries,
  DEFAULT_RETRY,
  DEFAULT_TIMEOUT_MS,
  type RetryOptions,
  retryDelayMs,
} from './retry.js';

export {
  classifyToolCall,
  directoryConfinement,
  directorySandbox,
  type SandboxOptions,
  singleFileConfinement,
  singleFileSandbox,
  type ToolAccess,
} from './sandbox.js';

export { classifySdkError } from './sdk-errors.js';

export {
  CHARS_PER_TOKEN,
  estimateMessagesTokens,
  estimateMessageTokens,
  estimateTextTokens,
  type UsageAnchor,
} from './tokens.js';

export type {
  CanUseTool,
  ContentBlock,
  ConversationPrefix,
  LanguageModel,
  Message,
  ModelRequest,
  ModelResponse,
  Role,
  StopReason,
  TextBlock,
  ThinkingBlock,
  ToolDecision,
  ToolDefinition,
  ToolImplementation,
  ToolResultBlock,
  ToolResultValue,
  ToolUseBlock,
  Usage,
} from './types.js';
