import type { Message } from '../llm/types.js';
import { fitToContext } from './context-window.js';

/** A long host session can be far longer than an extraction needs; keep the newest turns. */
export const EXTRACTION_MAX_CONTEXT_TOKENS = 60_000;

function startsTurn(message: Message): boolean {
  return message.role === 'user' && message.content.some((b) => b.type === 'text');
}

/**
 * The messages an extraction should see in a transcript read afresh: those after the cursor,
 * starting at a user turn (never at a tool result cut from its call), trimmed from the front to
 * `maxTokens`. A cursor no longer in the transcript (rewound, compacted away) means everything is
 * new. Pure.
 */
export function messagesSinceCursor(
  messages: readonly Message[],
  cursor: string | undefined,
  maxTokens = EXTRACTION_MAX_CONTEXT_TOKENS,
): Message[] {
  const at = cursor === undefined ? -1 : messages.findIndex((m) => m.id === cursor);
  let start = at + 1;
  while (start < messages.length && !startsTurn(messages[start]!)) start++;
  return fitToContext(messages.slice(start), maxTokens).messages;
}
