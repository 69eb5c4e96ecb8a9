/**
 * Where a history may be cut so the kept part is still a valid conversation. Two invariants:
 * every kept tool_result keeps its tool_use (the API rejects an orphan result), and one assistant
 * reply is never split (dropping its first half loses thinking blocks and, once the provider
 * merges the halves, can orphan results too).
 *
 * Which assistant messages form one reply: Claude Code writes one reply as several lines sharing
 * `message.id`; our transcript reader regroups them, but a `Message[]` from elsewhere may still
 * hold them separately. We treat as one reply (1) consecutive assistant messages (the API
 * alternates roles, so a run of assistant messages can only be one reply in pieces) and
 * (2) assistant messages with the same reply key: `providerMessageId` or `messageId` when the host
 * attached one, else the message `id` (hosts that split a reply give its parts the same id).
 */
import { estimateMessageTokens } from '../llm/tokens.js';
import type { Message } from '../llm/types.js';

/** The key that ties the parts of one assistant reply together (see the module comment). */
export function replyKey(message: Message): string {
  const extra = message as Message & { providerMessageId?: unknown; messageId?: unknown };
  if (typeof extra.providerMessageId === 'string') return extra.providerMessageId;
  if (typeof extra.messageId === 'string') return extra.messageId;
  return message.id;
}

/**
 * For each message, the lowest index it must be kept together with (itself when unconstrained).
 */
export function tieIndexes(messages: readonly Message[]): number[] {
  const toolUseAt = new Map<string, number>();
  const replyStart = new Map<string, number>();
  const ties: number[] = [];
  messages.forEach((m, i) => {
    let tie = i;
    if (m.role === 'assistant') {
      const key = replyKey(m);
      const first = replyStart.get(key);
      if (first === undefined) replyStart.set(key, i);
      else tie = Math.min(tie, first);
      if (i > 0 && messages[i - 1]!.role === 'assistant') tie = Math.min(tie, i - 1);
      for (const b of m.content) if (b.type === 'tool_use') toolUseAt.set(b.id, i);
    }
    for (const b of m.content) {
      if (b.type !== 'tool_result') continue;
      const at = toolUseAt.get(b.tool_use_id);
      // A result whose call is not in the list at all is already orphaned; no cut can fix it.
      if (at !== undefined) tie = Math.min(tie, at);
    }
    ties.push(tie);
  });
  return ties;
}

/**
 * `safe[i]` is true when keeping `messages[i..]` breaks no invariant. `safe[n]` (keep nothing)
 * and `safe[0]` (keep all) are always true.
 */
export function safeCuts(messages: readonly Message[]): boolean[] {
  const ties = tieIndexes(messages);
  const safe = new Array<boolean>(messages.length + 1).fill(true);
  let minTie = messages.length;
  for (let i = messages.length - 1; i >= 0; i--) {
    minTie = Math.min(minTie, ties[i]!);
    safe[i] = minTie >= i;
  }
  return safe;
}

/** Nearest safe cut at or before `index`. */
export function safeCutAtOrBefore(safe: readonly boolean[], index: number): number {
  let i = Math.max(0, Math.min(index, safe.length - 1));
  while (i > 0 && !safe[i]) i--;
  return i;
}

/** True when the message carries text a reader can follow (tool results and thinking do not count). */
export function hasText(message: Message): boolean {
  return message.content.some((b) => b.type === 'text' && b.text.trim() !== '');
}

export function tokensOf(messages: readonly Message[], from: number, to: number): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += estimateMessageTokens(messages[i]!);
  return sum;
}

export function textMessagesIn(messages: readonly Message[], from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (hasText(messages[i]!)) n++;
  return n;
}
