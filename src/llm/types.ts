/**
 * The neutral message model, close to the Anthropic Messages API. Every layer that talks to a
 * model (recall selection, extraction, session notes, consolidation) speaks this; providers convert.
 */
export type Role = 'user' | 'assistant';

export interface TextBlock {
  type: 'text';
  text: string;
}

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string | TextBlock[];
  is_error?: boolean;
}

export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature?: string;
}

export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock | ThinkingBlock;

/** One message. `id` is stable across re-renders (a transcript uuid or message id); providers strip it. */
export interface Message {
  id: string;
  role: Role;
  content: ContentBlock[];
}

export interface ToolDefinition {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** What the main agent sent: a fork must reuse it byte for byte so the provider's prompt cache hits. */
export interface ConversationPrefix {
  system?: string | TextBlock[];
  tools: ToolDefinition[];
  messages: Message[];
}

export interface ModelRequest extends ConversationPrefix {
  maxTokens?: number;
  temperature?: number;
  signal?: AbortSignal;
  /** Per-request timeout in ms. */
  timeoutMs?: number;
  /**
   * Index in `messages` of the last message shared with another request (a fork's prefix end).
   * Anthropic keeps the breakpoints of that shared part where the main request had them (its last
   * user message and its last message), so the shared portion is serialized identically in the
   * main request and in every fork request.
   */
  cacheBreakpointIndex?: number;
}

export type StopReason =
  | 'end_turn'
  | 'tool_use'
  | 'max_tokens'
  | 'stop_sequence'
  | 'refusal'
  | 'other';

export interface ModelResponse {
  /** The assistant message (with a fresh id). */
  message: Message;
  stopReason: StopReason;
  usage: Usage;
  /** The model id the provider reported. */
  model: string;
}

/** A provider: one call, one assistant message. Retries, timeouts and abort are the provider's job. */
export interface LanguageModel {
  readonly provider: 'anthropic' | 'openai' | (string & {});
  readonly modelId: string;
  generate(request: ModelRequest): Promise<ModelResponse>;
}

export type ToolDecision = { behavior: 'allow' } | { behavior: 'deny'; message: string };

/** Least privilege at execution time: the tool list stays as the main agent sent it. */
export type CanUseTool = (toolName: string, input: unknown) => ToolDecision | Promise<ToolDecision>;

export interface ToolResultValue {
  content: string;
  isError?: boolean;
}

/** An executor for a tool the model may call. */
export interface ToolImplementation {
  definition: ToolDefinition;
  execute(input: unknown, context: { signal?: AbortSignal }): Promise<ToolResultValue>;
}
