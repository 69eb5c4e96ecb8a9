/**
 * How much of a long conversation a one-off extraction sends. A live host passes what its next
 * request carries (already within its context window); a transcript read from disk can be far
 * longer, so the oldest whole turns are dropped until the rest fits.
 */
import { estimateMessageTokens } from '../llm/tokens.js';
import type { Message } from '../llm/types.js';

/** Enough for many turns of context, far below any current model's window. */
export const DEFAULT_EXTRACTION_CONTEXT_TOKENS = 60_000;

export interface FittedContext {
  messages: Message[];
  /** Messages dropped from the front. */
  dropped: number;
  /** Estimated tokens of what is kept. */
  tokens: number;
}

/** A user message with text opens a turn; a tool result alone never does (its call would be cut off). */
function opensTurn(message: Message): boolean {
  return message.role === 'user' && message.content.some((b) => b.type === 'text');
}

/**
 * Keep the newest messages that fit in `maxTokens`, starting at the beginning of a turn, so no
 * tool result is separated from its call. The last turn is kept whole even when it alone is over
 * the budget: extracting from it is the point. Pure.
 */
export function fitToContext(messages: readonly Message[], maxTokens: number): FittedContext {
  const sizes = messages.map(estimateMessageTokens);
  let tokens = sizes.reduce((a, b) => a + b, 0);
  let start = 0;
  while (tokens > maxTokens) {
    let next = start + 1;
    while (next < messages.length && !opensTurn(messages[next]!)) next++;
    if (next >= messages.length) break;
    for (let i = start; i < next; i++) tokens -= sizes[i]!;
    start = next;
  }
  return { messages: messages.slice(start), dropped: start, tokens };
}
