import { randomUUID } from 'node:crypto';
import { EngramError, isEngramError } from '../util/errors.js';
import { abortedError } from './model-error.js';
import { resolveModel } from './resolve-model.js';
import type {
  CanUseTool,
  ContentBlock,
  ConversationPrefix,
  LanguageModel,
  Message,
  ToolDecision,
  ToolImplementation,
  ToolResultBlock,
  ToolUseBlock,
  Usage,
} from './types.js';

export interface ForkedAgentOptions {
  /**
   * The model to continue with: the main conversation's own, for its prompt cache. Omitted, the
   * configured one (`resolveModel()` from the environment); with none, the run ends `error`.
   */
  model?: LanguageModel;
  /** Exactly what the main agent last sent (system, tools, messages). */
  prefix: ConversationPrefix;
  /** The fork's own instruction, appended as a new user message after the prefix. */
  prompt: string;
  /** Executors, matched by name to the tool calls the model makes. */
  tools: ToolImplementation[];
  /**
   * Checked when a call executes; a denial becomes an error result and the loop goes on. A plain
   * `true`/`false` is accepted too; anything that is not an allow is a denial (fail closed).
   */
  canUseTool: CanUseTool | ToolPermissionCheck;
  maxTurns: number;
  signal?: AbortSignal;
  maxTokens?: number;
  onTurn?: (event: { turn: number; toolCalls: ForkToolCall[] }) => void;
}

/** A permission check written as a predicate (`(name) => name !== 'write'`). */
export type ToolPermissionCheck = (
  toolName: string,
  input: unknown,
) => ToolDecision | boolean | Promise<ToolDecision | boolean>;

export interface ForkToolCall {
  name: string;
  input: unknown;
  allowed: boolean;
  isError: boolean;
  result: string;
}

export interface ForkedAgentResult {
  status: 'completed' | 'max_turns' | 'aborted' | 'error';
  /** Model calls made. */
  turns: number;
  /** The fork's own messages: its prompt first, then assistant turns and tool results. */
  messages: Message[];
  toolCalls: ForkToolCall[];
  usage: Usage;
  /** Text of the last assistant message. */
  finalText: string;
  error?: EngramError;
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
}

export const ZERO_USAGE: Usage = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
};

function noModel(reason: string): ForkedAgentResult {
  return {
    status: 'error',
    turns: 0,
    messages: [],
    toolCalls: [],
    usage: ZERO_USAGE,
    finalText: '',
    error: new EngramError('no_model', reason),
  };
}

function messageText(message: Message | undefined): string {
  if (!message) return '';
  return message.content
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('\n');
}

/**
 * Tool calls in the prefix's last assistant message that never got a result (the main agent was
 * mid-turn). The API rejects a user turn that does not answer them, so the fork's first message
 * answers them as "not run" before its instruction.
 */
function unansweredToolUses(prefix: ConversationPrefix): ToolUseBlock[] {
  const last = prefix.messages.at(-1);
  if (last?.role !== 'assistant') return [];
  return last.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
}

/**
 * Least privilege must not depend on the caller's return style: `true` or `{ behavior: 'allow' }`
 * allows; `false`, a deny, or anything unrecognised (undefined from a forgotten return) denies.
 */
async function decide(
  canUseTool: CanUseTool | ToolPermissionCheck,
  name: string,
  input: unknown,
): Promise<ToolDecision> {
  try {
    const decision: unknown = await canUseTool(name, input);
    if (decision === true) return { behavior: 'allow' };
    const d = decision as { behavior?: unknown; message?: unknown } | null | undefined;
    if (d && typeof d === 'object' && d.behavior === 'allow') return { behavior: 'allow' };
    const message =
      d && typeof d === 'object' && typeof d.message === 'string' && d.message !== ''
        ? d.message
        : `Permission denied: "${name}" is not allowed in this background task.`;
    return { behavior: 'deny', message };
  } catch (error) {
    return {
      behavior: 'deny' as const,
      message: `permission check failed: ${(error as Error).message}`,
    };
  }
}

async function runTool(call: ToolUseBlock, options: ForkedAgentOptions): Promise<ForkToolCall> {
  const base = { name: call.name, input: call.input };
  // Permission first: a refused delete should read "use a revocation", not "no such tool".
  const decision = await decide(options.canUseTool, call.name, call.input);
  if (decision.behavior === 'deny')
    return { ...base, allowed: false, isError: true, result: decision.message };
  const tool = options.tools.find((t) => t.definition.name === call.name);
  if (!tool) {
    const result = `Tool "${call.name}" is not available in this background task.`;
    return { ...base, allowed: false, isError: true, result };
  }
  try {
    const value = await tool.execute(call.input, options.signal ? { signal: options.signal } : {});
    return { ...base, allowed: true, isError: value.isError === true, result: value.content };
  } catch (error) {
    // A failing tool is something the model reads and works around, not a crash of the loop.
    return {
      ...base,
      allowed: true,
      isError: true,
      result: `Tool failed: ${(error as Error).message}`,
    };
  }
}

/**
 * Continue the main conversation in the background: same system, same tool list, same messages
 * (so the provider's prompt cache serves the prefix), plus the fork's instruction. Loops model ->
 * tool calls -> results until the model stops calling tools or `maxTurns` model calls were made.
 * Resolves with a status; it throws only for programmer errors (bad options).
 */
export async function runForkedAgent(options: ForkedAgentOptions): Promise<ForkedAgentResult> {
  if (!Number.isInteger(options.maxTurns) || options.maxTurns < 1)
    throw new EngramError(
      'invalid_input',
      `maxTurns must be a positive integer, got ${options.maxTurns}`,
    );
  const { prefix, signal } = options;
  let model: LanguageModel;
  if (options.model) model = options.model;
  else {
    const resolved = resolveModel();
    if (!resolved.ok) return noModel(resolved.reason);
    model = resolved.model;
  }
  const opening: ContentBlock[] = unansweredToolUses(prefix).map((t) => ({
    type: 'tool_result',
    tool_use_id: t.id,
    content: 'Not run: the conversation was forked before this tool call executed.',
    is_error: true,
  }));
  opening.push({ type: 'text', text: options.prompt });
  const messages: Message[] = [{ id: randomUUID(), role: 'user', content: opening }];
  const toolCalls: ForkToolCall[] = [];
  let usage = ZERO_USAGE;
  let turns = 0;
  const finish = (status: ForkedAgentResult['status'], error?: EngramError): ForkedAgentResult => {
    const lastAssistant = messages.filter((m) => m.role === 'assistant').at(-1);
    const result: ForkedAgentResult = {
      status,
      turns,
      messages,
      toolCalls,
      usage,
      finalText: messageText(lastAssistant),
    };
    if (error) result.error = error;
    return result;
  };

  while (turns < options.maxTurns) {
    if (signal?.aborted) return finish('aborted', abortedError(signal.reason));
    let response: Awaited<ReturnType<LanguageModel['generate']>>;
    try {
      turns++;
      response = await model.generate({
        system: prefix.system,
        tools: prefix.tools,
        messages: [...prefix.messages, ...messages],
        cacheBreakpointIndex: prefix.messages.length > 0 ? prefix.messages.length - 1 : undefined,
        ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      if (signal?.aborted || isEngramError(error, 'aborted'))
        return finish('aborted', isEngramError(error) ? error : abortedError(error));
      const wrapped = isEngramError(error)
        ? error
        : new EngramError('model_error', `model call failed: ${(error as Error).message}`, {
            cause: error,
          });
      return finish('error', wrapped);
    }
    usage = addUsage(usage, response.usage);
    messages.push(response.message);
    const calls = response.message.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
    if (calls.length === 0) {
      options.onTurn?.({ turn: turns, toolCalls: [] });
      return finish('completed');
    }
    const turnCalls: ForkToolCall[] = [];
    const results: ToolResultBlock[] = [];
    // Sequential on purpose: two edits of one file must not race.
    for (const call of calls) {
      if (signal?.aborted) return finish('aborted', abortedError(signal.reason));
      const executed = await runTool(call, options);
      turnCalls.push(executed);
      const block: ToolResultBlock = {
        type: 'tool_result',
        tool_use_id: call.id,
        content: executed.result,
      };
      if (executed.isError) block.is_error = true;
      results.push(block);
    }
    toolCalls.push(...turnCalls);
    messages.push({ id: randomUUID(), role: 'user', content: results });
    options.onTurn?.({ turn: turns, toolCalls: turnCalls });
  }
  return finish('max_turns');
}
