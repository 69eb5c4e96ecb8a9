import { EngramError, errnoCode, isEngramError } from '../util/errors.js';
import { readTranscriptText } from '../util/regular-file.js';
import { convertContent, isObject, str } from './claude-code-blocks.js';
import { fromOpenAIMessages, type OpenAIMessage } from './openai-convert.js';
import type { ContentBlock, Message, ToolResultBlock, ToolUseBlock } from './types.js';

/**
 * Reader for Claude Code session transcripts (`~/.claude/projects/<project>/<session>.jsonl`).
 * The format is internal to Claude Code and changes between versions, so everything here is
 * tolerant: unknown line types and unknown blocks are skipped, a half-written last line is a
 * warning, and the output is always a well-formed neutral conversation (every tool_use answered).
 *
 * Message ids: a user message takes the `uuid` of its line; an assistant reply that Claude Code
 * split over several lines (one content block per line, sharing `message.id`) takes the `uuid` of
 * the LAST line of the group, the line the next user turn points back to. The tool results that
 * answer one reply are gathered into one user message whose id is the uuid of its last result line.
 */
export interface TranscriptReadResult {
  messages: Message[];
  sessionId?: string;
  cwd?: string;
  warnings: string[];
}

export interface ParseTranscriptOptions {
  /** Keep `isMeta` user lines (skill dumps, hook feedback, command caveats). Default false. */
  includeMeta?: boolean;
}

type Json = Record<string, unknown>;

interface Entry {
  role: 'user' | 'assistant';
  uuid: string;
  /** Anthropic message id, the key that regroups one assistant reply. */
  messageId?: string;
  content: ContentBlock[];
}

const MISSING_RESULT = 'No tool result was recorded in the transcript for this call.';

/** Split the file into parsed JSON objects, tolerating a truncated last line. */
function parseLines(jsonl: string, warnings: string[]): Json[] {
  const lines = jsonl.split('\n');
  let last = lines.length - 1;
  while (last >= 0 && lines[last]!.trim() === '') last--;
  const records: Json[] = [];
  for (let i = 0; i <= last; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    try {
      const value: unknown = JSON.parse(line);
      if (isObject(value)) records.push(value);
      else warnings.push(`line ${i + 1}: not a JSON object, skipped`);
    } catch {
      warnings.push(
        i === last
          ? `line ${i + 1}: truncated last line skipped (the session may still be writing)`
          : `line ${i + 1}: invalid JSON, skipped`,
      );
    }
  }
  return records;
}

function isCompactBoundary(record: Json): boolean {
  return record.type === 'system' && record.subtype === 'compact_boundary';
}

/**
 * The uuids of the active conversation: walk back from the last user/assistant line through
 * `parentUuid`, stopping at a compact boundary. After a compaction the model sees the summary
 * and what follows, nothing before: the boundary's `logicalParentUuid` is history, not context,
 * and following it would measure (and hand a model) tens of thousands of tokens it never sees.
 * A resumed or rewound session leaves abandoned branches in the file; they are not part of what
 * the model saw last.
 */
function activeChain(records: Json[], warnings: string[]): Set<string> | undefined {
  const byUuid = new Map<string, Json>();
  for (const record of records) {
    const uuid = str(record.uuid);
    if (uuid !== undefined) byUuid.set(uuid, record);
  }
  let leaf: Json | undefined;
  for (let i = records.length - 1; i >= 0 && leaf === undefined; i--) {
    const r = records[i]!;
    if ((r.type === 'user' || r.type === 'assistant') && r.isSidechain !== true) leaf = r;
  }
  if (leaf === undefined || str(leaf.uuid) === undefined) return undefined;
  const chain = new Set<string>();
  let current: Json | undefined = leaf;
  while (current !== undefined) {
    const uuid = str(current.uuid);
    if (uuid === undefined || chain.has(uuid)) break;
    chain.add(uuid);
    if (isCompactBoundary(current)) return chain;
    const parent = str(current.parentUuid);
    if (parent === undefined) return chain;
    current = byUuid.get(parent);
    if (current === undefined) {
      // A parent we never saw: the chain cannot be trusted, so keep everything.
      warnings.push(`parent ${parent} not found; branch detection disabled`);
      return undefined;
    }
  }
  return chain;
}

function isToolResultOnly(content: ContentBlock[]): boolean {
  return content.length > 0 && content.every((b) => b.type === 'tool_result');
}

/** Lines of the conversation in file order, assistant lines regrouped by message id. */
function collectEntries(
  records: Json[],
  chain: Set<string> | undefined,
  options: ParseTranscriptOptions,
): Entry[] {
  const entries: Entry[] = [];
  const groups = new Map<string, Entry>();
  const chainMessageIds = new Set<string>();
  if (chain !== undefined) {
    for (const r of records) {
      const message = r.message;
      if (r.type === 'assistant' && chain.has(str(r.uuid) ?? '') && isObject(message)) {
        const id = str(message.id);
        if (id !== undefined) chainMessageIds.add(id);
      }
    }
  }
  let synthetic = 0;
  for (const r of records) {
    if (r.type !== 'user' && r.type !== 'assistant') continue;
    if (r.isSidechain === true) continue;
    if (r.isMeta === true && options.includeMeta !== true) continue;
    const message = r.message;
    if (!isObject(message)) continue;
    const uuid = str(r.uuid) ?? `line-${++synthetic}`;
    const content = convertContent(message.content);
    const messageId = r.type === 'assistant' ? str(message.id) : undefined;
    if (chain !== undefined && !chain.has(uuid)) {
      // Off the walked chain, but still live: a sibling block of a reply on the chain, or a
      // parallel tool result pointing at its own tool_use line rather than at the latest line.
      const parent = str(r.parentUuid);
      const sibling = messageId !== undefined && chainMessageIds.has(messageId);
      const parallelResult =
        r.type === 'user' && parent !== undefined && chain.has(parent) && isToolResultOnly(content);
      if (!sibling && !parallelResult) continue;
    }
    if (content.length === 0) continue;
    if (messageId !== undefined) {
      const group = groups.get(messageId);
      if (group !== undefined) {
        group.content.push(...content);
        group.uuid = uuid;
        continue;
      }
    }
    const entry: Entry = { role: r.type, uuid, content };
    if (messageId !== undefined) {
      entry.messageId = messageId;
      groups.set(messageId, entry);
    }
    entries.push(entry);
  }
  return entries;
}

/**
 * Rebuild a valid conversation: each assistant reply with tool calls is followed by one user
 * message carrying every result (in call order), missing results are stated as errors, and
 * results whose call is not in the file (cut by compaction) are dropped.
 */
function pairToolCalls(entries: Entry[], warnings: string[]): Message[] {
  const results = new Map<string, { block: ToolResultBlock; uuid: string }>();
  for (const entry of entries) {
    if (entry.role !== 'user') continue;
    for (const block of entry.content) {
      if (block.type === 'tool_result') results.set(block.tool_use_id, { block, uuid: entry.uuid });
    }
  }
  const used = new Set<string>();
  const messages: Message[] = [];
  for (const entry of entries) {
    if (entry.role === 'assistant') {
      messages.push({ id: entry.uuid, role: 'assistant', content: entry.content });
      const calls = entry.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
      if (calls.length === 0) continue;
      const answer: ToolResultBlock[] = [];
      let id = `${entry.uuid}-results`;
      for (const call of calls) {
        const found = results.get(call.id);
        if (found !== undefined && !used.has(call.id)) {
          used.add(call.id);
          answer.push(found.block);
          id = found.uuid;
        } else {
          warnings.push(`tool_use ${call.id} (${call.name}) has no recorded result`);
          answer.push({
            type: 'tool_result',
            tool_use_id: call.id,
            content: MISSING_RESULT,
            is_error: true,
          });
        }
      }
      messages.push({ id, role: 'user', content: answer });
      continue;
    }
    // Results were already placed right after their call; what is left is the user's own text.
    const rest = entry.content.filter((block) => {
      if (block.type !== 'tool_result') return true;
      if (!used.has(block.tool_use_id)) {
        warnings.push(`tool_result ${block.tool_use_id} has no matching tool_use; dropped`);
      }
      return false;
    });
    if (rest.length > 0) messages.push({ id: entry.uuid, role: 'user', content: rest });
  }
  return messages;
}

/** Parse the text of a Claude Code `.jsonl` transcript into neutral messages. */
export function parseClaudeCodeTranscript(
  jsonl: string,
  options: ParseTranscriptOptions = {},
): TranscriptReadResult {
  const warnings: string[] = [];
  const records = parseLines(jsonl, warnings);
  const result: TranscriptReadResult = { messages: [], warnings };
  for (const r of records) {
    if (result.sessionId === undefined && typeof r.sessionId === 'string')
      result.sessionId = r.sessionId;
    if (result.cwd === undefined && typeof r.cwd === 'string') result.cwd = r.cwd;
  }
  const chain = activeChain(records, warnings);
  // Without a trustworthy chain, the last compact boundary still marks where the context starts.
  const boundary = chain === undefined ? records.findLastIndex(isCompactBoundary) : -1;
  const live = boundary >= 0 ? records.slice(boundary + 1) : records;
  result.messages = pairToolCalls(collectEntries(live, chain, options), warnings);
  return result;
}

/**
 * The conversation without thinking blocks: their signatures verify only for the model that wrote
 * them, and their text is that model's private reasoning. Every transcript handed to another model
 * (hooks, extraction, session notes, compaction summaries) goes through here. Pure.
 */
export function withoutThinking(messages: readonly Message[]): Message[] {
  return messages
    .map((m) =>
      m.content.some((b) => b.type === 'thinking')
        ? { ...m, content: m.content.filter((b) => b.type !== 'thinking') }
        : m,
    )
    .filter((m) => m.content.length > 0);
}

function neutralMessages(value: unknown, path: string): Message[] | undefined {
  const list = Array.isArray(value) ? value : isObject(value) ? value.messages : undefined;
  if (!Array.isArray(list)) return undefined;
  if (list.some(isOpenAIShaped)) return openAIMessages(list, path);
  return list.map((raw, index) => {
    if (!isObject(raw) || (raw.role !== 'user' && raw.role !== 'assistant')) {
      throw new EngramError(
        'invalid_input',
        `${path}: message ${index} needs a role of "user" or "assistant" and a content`,
      );
    }
    return { id: str(raw.id) ?? `m${index}`, role: raw.role, content: convertContent(raw.content) };
  });
}

/** A chat-completions log (system and tool roles, tool_calls) rather than neutral messages. */
function isOpenAIShaped(raw: unknown): boolean {
  return (
    isObject(raw) && (raw.role === 'system' || raw.role === 'tool' || Array.isArray(raw.tool_calls))
  );
}

/** OpenAI-style logs go through the provider converter; system messages are not conversation. */
function openAIMessages(list: unknown[], path: string): Message[] {
  const chat = list.map((raw, index) => {
    const roles = ['system', 'user', 'assistant', 'tool'];
    if (!isObject(raw) || typeof raw.role !== 'string' || !roles.includes(raw.role)) {
      throw new EngramError('invalid_input', `${path}: message ${index} has no chat role`);
    }
    const content = Array.isArray(raw.content)
      ? raw.content
          .map((part) => (isObject(part) && typeof part.text === 'string' ? part.text : ''))
          .join('')
      : typeof raw.content === 'string'
        ? raw.content
        : '';
    return { ...raw, content } as unknown as OpenAIMessage;
  });
  let n = 0;
  return fromOpenAIMessages(chat, () => `m${n++}`).messages;
}

/**
 * Load a conversation from disk: a Claude Code `.jsonl` transcript, or a JSON array of neutral
 * messages (or `{ "messages": [...] }`), the shape the library's own callers save. Thinking blocks
 * are kept; whoever hands the conversation to another model passes it through `withoutThinking`.
 */
export async function loadTranscriptFile(
  path: string,
  options: ParseTranscriptOptions = {},
): Promise<TranscriptReadResult> {
  let text: string;
  try {
    text = (await readTranscriptText(path)).text;
  } catch (error) {
    if (isEngramError(error)) throw error; // not a regular file: its own clear message
    if (errnoCode(error) === 'ENOENT') {
      throw new EngramError('not_found', `transcript not found: ${path}`, { cause: error });
    }
    throw new EngramError('io_error', `cannot read transcript ${path}`, { cause: error });
  }
  let whole: unknown;
  try {
    whole = JSON.parse(text);
  } catch {
    whole = undefined;
  }
  const messages = whole === undefined ? undefined : neutralMessages(whole, path);
  if (messages !== undefined) return { messages, warnings: [] };
  return parseClaudeCodeTranscript(text, options);
}
