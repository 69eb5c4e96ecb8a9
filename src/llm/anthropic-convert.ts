import type {
  ContentBlock,
  ConversationPrefix,
  Message,
  StopReason,
  TextBlock,
  ToolDefinition,
  Usage,
} from './types.js';

/** The Anthropic Messages wire shapes we send and read (JSON, independent of SDK type churn). */
export interface CacheControl {
  type: 'ephemeral';
}
export type AnthropicBlock =
  | { type: 'text'; text: string; cache_control?: CacheControl }
  | { type: 'tool_use'; id: string; name: string; input: unknown; cache_control?: CacheControl }
  | {
      type: 'tool_result';
      tool_use_id: string;
      content: string | Array<{ type: 'text'; text: string }>;
      is_error?: boolean;
      cache_control?: CacheControl;
    }
  | { type: 'thinking'; thinking: string; signature: string };
export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicBlock[];
}
export interface AnthropicTool extends ToolDefinition {
  cache_control?: CacheControl;
}
export interface AnthropicPrefixParams {
  system?: Array<{ type: 'text'; text: string; cache_control?: CacheControl }>;
  tools?: AnthropicTool[];
  messages: AnthropicMessage[];
}

const EPHEMERAL: CacheControl = { type: 'ephemeral' };

function toAnthropicBlock(block: ContentBlock): AnthropicBlock | undefined {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input ?? {} };
    case 'tool_result': {
      const content =
        typeof block.content === 'string'
          ? block.content
          : block.content.map((b) => ({ type: 'text' as const, text: b.text }));
      return block.is_error
        ? { type: 'tool_result', tool_use_id: block.tool_use_id, content, is_error: true }
        : { type: 'tool_result', tool_use_id: block.tool_use_id, content };
    }
    case 'thinking':
      // The API rejects thinking blocks without their signature; a transcript that lost it
      // cannot replay the block, so it is left out (deterministically, for cache stability).
      return block.signature === undefined
        ? undefined
        : { type: 'thinking', thinking: block.thinking, signature: block.signature };
  }
}

/** Neutral message -> Anthropic message (our `id` is stripped: the API has no such field). */
export function toAnthropicMessage(message: Message): AnthropicMessage {
  const content: AnthropicBlock[] = [];
  for (const block of message.content) {
    const converted = toAnthropicBlock(block);
    if (converted) content.push(converted);
  }
  return { role: message.role, content };
}

function markLastCacheable(message: AnthropicMessage): void {
  // Thinking blocks cannot carry cache_control; the breakpoint goes on the last block that can.
  for (let i = message.content.length - 1; i >= 0; i--) {
    const block = message.content[i];
    if (block && block.type !== 'thinking') {
      block.cache_control = EPHEMERAL;
      return;
    }
  }
}

/** Index of the last user message at or before `index`; `index` itself when there is none. */
function lastUserAtOrBefore(messages: readonly AnthropicMessage[], index: number): number {
  for (let i = index; i >= 0; i--) if (messages[i]?.role === 'user') return i;
  return index;
}

/** The API accepts at most this many cache_control markers in one request. */
export const MAX_CACHE_BREAKPOINTS = 4;

/**
 * The request prefix with cache breakpoints: last system block, last tool, then on the messages,
 * in this order while the API's four last: where the shared part's request ended (its last user
 * message: a main agent's request always ends with its question or its tool results), the
 * shared part's last message (the reply a host appended, when there is one), then the same two
 * for the whole request. The shared part is the messages up to `cacheBreakpointIndex` (a fork's
 * prefix end), or all of them (a main request). Markers inside the shared part depend only on
 * it, so a main request's `system`, `tools` and `messages` appear in a fork's body unchanged,
 * markers included — whether the main request ended at the user's message or carried the reply.
 */
export function toAnthropicPrefix(
  prefix: ConversationPrefix,
  cacheBreakpointIndex?: number,
): AnthropicPrefixParams {
  // Key order system, tools, messages mirrors the cache's prefix order, so the serialized body
  // of a fork starts with the same bytes as the main request's.
  const params = {} as AnthropicPrefixParams;
  // An empty system array is sent as no system at all (the API rejects an empty list).
  if (prefix.system !== undefined && prefix.system.length > 0) {
    const blocks: TextBlock[] =
      typeof prefix.system === 'string' ? [{ type: 'text', text: prefix.system }] : prefix.system;
    params.system = blocks.map((b, i) =>
      i === blocks.length - 1
        ? { type: 'text', text: b.text, cache_control: EPHEMERAL }
        : { type: 'text', text: b.text },
    );
  }
  if (prefix.tools.length > 0) {
    params.tools = prefix.tools.map((t, i) => {
      const tool: AnthropicTool = {
        name: t.name,
        ...(t.description === undefined ? {} : { description: t.description }),
        input_schema: t.input_schema,
      };
      if (i === prefix.tools.length - 1) tool.cache_control = EPHEMERAL;
      return tool;
    });
  }
  // Messages left empty by conversion (only unsigned thinking) are dropped: the API rejects empty
  // content. A breakpoint meant for a dropped message moves to the nearest kept one before it,
  // which is the same for the main request and its forks.
  const keptIndex: number[] = [];
  params.messages = [];
  for (const message of prefix.messages) {
    const converted = toAnthropicMessage(message);
    if (converted.content.length > 0) params.messages.push(converted);
    keptIndex.push(params.messages.length - 1);
  }
  const last = params.messages.length - 1;
  const ends =
    cacheBreakpointIndex === undefined ? [last] : [keptIndex[cacheBreakpointIndex] ?? -1, last];
  const wanted = ends.flatMap((end) => [lastUserAtOrBefore(params.messages, end), end]);
  let budget = MAX_CACHE_BREAKPOINTS - (params.system ? 1 : 0) - (params.tools ? 1 : 0);
  const marked = new Set<number>();
  for (const index of wanted) {
    const message = params.messages[index];
    if (budget <= 0 || !message || marked.has(index)) continue;
    markLastCacheable(message);
    marked.add(index);
    budget--;
  }
  return params;
}

/** Anthropic message -> neutral blocks (unknown block kinds such as server tools are dropped). */
export function fromAnthropicContent(
  content: ReadonlyArray<Record<string, unknown>>,
): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  for (const b of content) {
    if (b.type === 'text' && typeof b.text === 'string')
      blocks.push({ type: 'text', text: b.text });
    else if (b.type === 'tool_use')
      blocks.push({ type: 'tool_use', id: String(b.id), name: String(b.name), input: b.input });
    else if (b.type === 'thinking' && typeof b.thinking === 'string') {
      const block: ContentBlock = { type: 'thinking', thinking: b.thinking };
      if (typeof b.signature === 'string') block.signature = b.signature;
      blocks.push(block);
    } else if (b.type === 'tool_result') {
      const raw = b.content;
      const content =
        typeof raw === 'string'
          ? raw
          : Array.isArray(raw)
            ? raw
                .filter((c): c is { type: 'text'; text: string } => c?.type === 'text')
                .map((c) => ({ type: 'text' as const, text: c.text }))
            : '';
      const block: ContentBlock = {
        type: 'tool_result',
        tool_use_id: String(b.tool_use_id),
        content,
      };
      if (b.is_error === true) block.is_error = true;
      blocks.push(block);
    }
  }
  return blocks;
}

export function fromAnthropicStopReason(reason: string | null | undefined): StopReason {
  switch (reason) {
    case 'end_turn':
    case 'tool_use':
    case 'max_tokens':
    case 'stop_sequence':
    case 'refusal':
      return reason;
    case 'model_context_window_exceeded':
      return 'max_tokens';
    default:
      return 'other';
  }
}

export function fromAnthropicUsage(usage: Record<string, unknown> | null | undefined): Usage {
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  return {
    inputTokens: n(usage?.input_tokens),
    outputTokens: n(usage?.output_tokens),
    cacheReadTokens: n(usage?.cache_read_input_tokens),
    cacheWriteTokens: n(usage?.cache_creation_input_tokens),
  };
}

/**
 * An Anthropic request (as a host or proxy saw it) -> a neutral prefix a fork can continue.
 * cache_control marks are dropped: the provider places its own breakpoints.
 */
export function fromAnthropicRequest(
  request: {
    system?: string | ReadonlyArray<{ type: string; text?: string }>;
    tools?: ReadonlyArray<{
      name: string;
      description?: string;
      input_schema?: Record<string, unknown>;
    }>;
    messages: ReadonlyArray<{
      role: 'user' | 'assistant';
      content: string | ReadonlyArray<Record<string, unknown>>;
    }>;
  },
  newId: () => string,
): ConversationPrefix {
  const prefix: ConversationPrefix = {
    tools: (request.tools ?? []).map((t) => ({
      name: t.name,
      ...(t.description === undefined ? {} : { description: t.description }),
      input_schema: t.input_schema ?? { type: 'object' },
    })),
    messages: request.messages.map((m) => ({
      id: newId(),
      role: m.role,
      content:
        typeof m.content === 'string'
          ? [{ type: 'text', text: m.content }]
          : fromAnthropicContent(m.content),
    })),
  };
  if (typeof request.system === 'string') prefix.system = request.system;
  else if (request.system)
    prefix.system = request.system
      .filter((b) => b.type === 'text')
      .map((b) => ({ type: 'text', text: b.text ?? '' }));
  return prefix;
}
