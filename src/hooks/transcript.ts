import { parseClaudeCodeTranscript, withoutThinking } from '../llm/claude-code-transcript.js';
import type { Message } from '../llm/types.js';
import { errnoCode } from '../util/errors.js';
import { readTranscriptText } from '../util/regular-file.js';

export interface HookTranscript {
  /** The conversation, without thinking blocks (their signatures only verify for the model that made them). */
  messages: Message[];
  /** Texts earlier hooks added (Claude Code stores them as `hook_additional_context` attachments). */
  hookContexts: string[];
  warnings: string[];
  exists: boolean;
}

function isCompactBoundary(line: string): boolean {
  try {
    const record = JSON.parse(line) as { type?: unknown; subtype?: unknown };
    return record?.type === 'system' && record.subtype === 'compact_boundary';
  } catch {
    return false;
  }
}

/**
 * Hook output some Claude Code versions store as a meta user line (`isMeta: true`, which the
 * transcript reader skips as not typed by the user). The model still saw it, so an injection there
 * counts as surfaced. Plain user lines are not read here: they reach recall as messages already.
 */
function metaInjections(record: unknown): string[] {
  const line = record as { type?: unknown; isMeta?: unknown; message?: { content?: unknown } };
  if (line?.type !== 'user' || line.isMeta !== true) return [];
  const content = line.message?.content;
  const texts =
    typeof content === 'string'
      ? [content]
      : Array.isArray(content)
        ? content
            .filter(
              (b): b is { type: 'text'; text: string } =>
                b?.type === 'text' && typeof b.text === 'string',
            )
            .map((b) => b.text)
        : [];
  return texts.filter((t) => t.includes('<recalled-memories>'));
}

/**
 * Collect the strings earlier hooks added since the last compaction: hook-context attachment lines,
 * and recalled memories in meta user lines. Pure.
 */
export function hookContextsIn(jsonl: string): string[] {
  const out: string[] = [];
  for (const line of jsonl.split('\n')) {
    // After a compaction the model sees only the summary: what hooks added before is gone from
    // its context, so it no longer counts as surfaced (nor against the session budget).
    if (line.includes('compact_boundary') && isCompactBoundary(line)) out.length = 0;
    // Cheap filter first: a long transcript has thousands of lines and few attachments.
    const attachmentLine = line.includes('hook_additional_context');
    if (!attachmentLine && !line.includes('recalled-memories')) continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      continue;
    }
    if (!attachmentLine) {
      out.push(...metaInjections(record));
      continue;
    }
    const attachment = (record as { attachment?: { type?: unknown; content?: unknown } })
      ?.attachment;
    if (attachment?.type !== 'hook_additional_context') continue;
    const content = attachment.content;
    if (typeof content === 'string') out.push(content);
    else if (Array.isArray(content))
      out.push(...content.filter((c): c is string => typeof c === 'string'));
  }
  return out;
}

/**
 * Read the session's transcript for a hook. A missing file is an empty session (the first prompt
 * can arrive before Claude Code wrote anything); the file may also lag behind the live session.
 */
export async function readHookTranscript(path: string | undefined): Promise<HookTranscript> {
  if (path === undefined) return { messages: [], hookContexts: [], warnings: [], exists: false };
  let text: string;
  try {
    // Regular files only, newest 32 MiB: a FIFO or /dev/zero as transcript_path must not hang
    // or flood the hook.
    text = (await readTranscriptText(path)).text;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') {
      return { messages: [], hookContexts: [], warnings: [], exists: false };
    }
    throw error;
  }
  const parsed = parseClaudeCodeTranscript(text);
  const messages = withoutThinking(parsed.messages);
  return { messages, hookContexts: hookContextsIn(text), warnings: parsed.warnings, exists: true };
}

/**
 * The history recall should read: earlier hook injections first (so surfaced memories and the
 * session budget count them), then the conversation (whose tail tells which tools are in use).
 */
export function historyForRecall(transcript: HookTranscript): Message[] {
  if (transcript.hookContexts.length === 0) return transcript.messages;
  const injected: Message = {
    id: 'engram-hook-contexts',
    role: 'user',
    content: transcript.hookContexts.map((text) => ({ type: 'text' as const, text })),
  };
  return [injected, ...transcript.messages];
}
