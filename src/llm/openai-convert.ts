import { randomUUID } from 'node:crypto';
import type {
  ContentBlock,
  ConversationPrefix,
  Message,
  StopReason,
  ToolDefinition,
  Usage,
} from './types.js';

/** The OpenAI Chat Completions wire shapes we send and read. */
export interface OpenAIToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}
export type OpenAIMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: OpenAIToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };
export interface OpenAITool {
  type: 'function';
  function: { name: string; description?: string; parameters: Record<string, unknown> };
}

function resultText(content: string | Array<{ text: string }>): string {
  return typeof content === 'string' ? content : content.map((b) => b.text).join('\n');
}

/**
 * Neutral messages -> chat messages. A user message's tool results become `tool` messages placed
 * first (the API wants them right after the assistant's tool_calls), then its text, if any.
 * Thinking blocks have no chat equivalent and are dropped. Errors are marked in the text because
 * chat tool messages have no error flag.
 */
export function toOpenAIMessages(
  prefix: Pick<ConversationPrefix, 'system' | 'messages'>,
): OpenAIMessage[] {
  const out: OpenAIMessage[] = [];
  if (prefix.system !== undefined) {
    const text =
      typeof prefix.system === 'string'
        ? prefix.system
        : prefix.system.map((b) => b.text).join('\n\n');
    out.push({ role: 'system', content: text });
  }
  for (const message of prefix.messages) {
    const texts = message.content.filter((b) => b.type === 'text').map((b) => b.text);
    if (message.role === 'assistant') {
      const calls: OpenAIToolCall[] = [];
      for (const b of message.content) {
        if (b.type === 'tool_use')
          calls.push({
            id: b.id,
            type: 'function',
            function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) },
          });
      }
      const text = texts.join('\n');
      out.push(
        calls.length
          ? { role: 'assistant', content: text || null, tool_calls: calls }
          : { role: 'assistant', content: text },
      );
      continue;
    }
    for (const b of message.content) {
      if (b.type === 'tool_result') {
        const text = resultText(b.content);
        out.push({
          role: 'tool',
          tool_call_id: b.tool_use_id,
          content: b.is_error ? `Error: ${text}` : text,
        });
      }
    }
    if (texts.length) out.push({ role: 'user', content: texts.join('\n') });
  }
  return out;
}

export function toOpenAITools(tools: readonly ToolDefinition[]): OpenAITool[] {
  return tools.map((t) => ({
    type: 'function',
    function: {
      name: t.name,
      ...(t.description === undefined ? {} : { description: t.description }),
      parameters: t.input_schema,
    },
  }));
}

function parseArguments(raw: string): unknown {
  try {
    return raw.trim() === '' ? {} : JSON.parse(raw);
  } catch {
    // Small local models sometimes emit broken JSON; keep it so the tool reports a clear error.
    return { _unparsed_arguments: raw };
  }
}

/** A chat completion choice message -> neutral content blocks. */
export function fromOpenAIMessage(message: {
  content?: string | null;
  tool_calls?: ReadonlyArray<{
    id: string;
    type?: string;
    function?: { name: string; arguments: string };
  }> | null;
}): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  if (message.content) blocks.push({ type: 'text', text: message.content });
  for (const [index, call] of (message.tool_calls ?? []).entries()) {
    if (call.function)
      blocks.push({
        type: 'tool_use',
        // Some compatible servers send no id (or ""); results must still find their call.
        id: call.id || `call_${index}_${randomUUID().replaceAll('-', '')}`,
        name: call.function.name,
        input: parseArguments(call.function.arguments),
      });
  }
  return blocks;
}

/** Chat messages -> neutral messages (system messages are returned separately). */
export function fromOpenAIMessages(
  messages: readonly OpenAIMessage[],
  newId: () => string,
): { system?: string; messages: Message[] } {
  const result: { system?: string; messages: Message[] } = { messages: [] };
  const systems: string[] = [];
  for (const m of messages) {
    if (m.role === 'system') systems.push(m.content);
    else if (m.role === 'assistant')
      result.messages.push({ id: newId(), role: 'assistant', content: fromOpenAIMessage(m) });
    else {
      const block: ContentBlock =
        m.role === 'tool'
          ? { type: 'tool_result', tool_use_id: m.tool_call_id, content: m.content }
          : { type: 'text', text: m.content };
      const last = result.messages.at(-1);
      // Consecutive tool/user messages belong to one neutral user turn.
      if (last?.role === 'user') last.content.push(block);
      else result.messages.push({ id: newId(), role: 'user', content: [block] });
    }
  }
  if (systems.length) result.system = systems.join('\n\n');
  return result;
}

export function fromOpenAIFinishReason(reason: string | null | undefined): StopReason {
  switch (reason) {
    case 'stop':
      return 'end_turn';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'length':
      return 'max_tokens';
    case 'content_filter':
      return 'refusal';
    default:
      return 'other';
  }
}

export function fromOpenAIUsage(
  usage:
    | {
        prompt_tokens?: number;
        completion_tokens?: number;
        prompt_tokens_details?: { cached_tokens?: number } | null;
      }
    | null
    | undefined,
): Usage {
  const prompt = usage?.prompt_tokens ?? 0;
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  // OpenAI counts cached tokens inside prompt_tokens; ours keeps them apart, like Anthropic.
  return {
    inputTokens: Math.max(0, prompt - cached),
    outputTokens: usage?.completion_tokens ?? 0,
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  };
}
