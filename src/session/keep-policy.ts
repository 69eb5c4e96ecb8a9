/**
 * Which recent messages survive a compaction: pure functions over `Message[]`.
 *
 * With notes, everything after the last message the notes cover is kept. Two floors (tokens AND
 * text messages) then pull the cut earlier: a token floor alone is met by one huge tool result,
 * leaving the model an output with no idea what produced it. A ceiling bounds that extension.
 * Cuts only land where `safeCuts` allows, so the kept part is always a valid conversation.
 */
import type { Message } from '../llm/types.js';
import { safeCutAtOrBefore, safeCuts, textMessagesIn, tokensOf } from './cut-points.js';

export interface KeepLimits {
  /** Keep at least this many estimated tokens (default 10,000)… */
  minTokens: number;
  /** …and at least this many messages containing text (default 5)… */
  minTextMessages: number;
  /** …but extend backwards no further than this many tokens (default 40,000). */
  maxTokens: number;
}

export const DEFAULT_KEEP_LIMITS: KeepLimits = {
  minTokens: 10_000,
  minTextMessages: 5,
  maxTokens: 40_000,
};

export interface KeptRange {
  /** Index of the first kept message; `messages.slice(start)` is kept. */
  start: number;
  tokens: number;
  textMessages: number;
  /** One line per decision taken, in order: why the range is what it is. */
  reasons: string[];
}

/**
 * The kept range for notes-based compaction. `boundaryIndex` is the index of the last message the
 * notes cover (-1 when unknown: then only the floors decide, starting from the end).
 */
export function chooseKeptRange(
  messages: readonly Message[],
  boundaryIndex: number,
  limits: KeepLimits = DEFAULT_KEEP_LIMITS,
): KeptRange {
  const n = messages.length;
  const safe = safeCuts(messages);
  const reasons: string[] = [];
  const initial = boundaryIndex >= 0 ? Math.min(boundaryIndex + 1, n) : n;
  reasons.push(
    boundaryIndex >= 0
      ? `notes cover messages up to #${boundaryIndex}; ${n - initial} message(s) after it`
      : 'no notes boundary in this history; starting from the end',
  );
  let start = safeCutAtOrBefore(safe, initial);
  if (start < initial) {
    reasons.push(
      `cut moved from #${initial} to #${start} so no tool result loses its call and no reply is split`,
    );
  }
  let tokens = tokensOf(messages, start, n);
  let texts = textMessagesIn(messages, start, n);
  const satisfied = () => tokens >= limits.minTokens && texts >= limits.minTextMessages;
  if (tokens >= limits.maxTokens) {
    reasons.push(
      `${tokens} tokens after the boundary already reach the ${limits.maxTokens} ceiling`,
    );
    return { start, tokens, textMessages: texts, reasons };
  }
  while (start > 0 && !satisfied()) {
    const previous = safeCutAtOrBefore(safe, start - 1);
    const addTokens = tokensOf(messages, previous, start);
    if (tokens + addTokens > limits.maxTokens) {
      reasons.push(
        `stopped extending at #${start}: including #${previous} would exceed ${limits.maxTokens} tokens`,
      );
      return { start, tokens, textMessages: texts, reasons };
    }
    if (previous < start - 1) {
      reasons.push(
        `extended from #${start} to #${previous} as one unit (tool call/reply kept whole)`,
      );
    }
    tokens += addTokens;
    texts += textMessagesIn(messages, previous, start);
    start = previous;
  }
  if (satisfied()) {
    reasons.push(
      `kept ${tokens} tokens and ${texts} text messages (floors: ${limits.minTokens} tokens, ${limits.minTextMessages} text messages)`,
    );
  } else {
    reasons.push(
      `whole history kept (${tokens} tokens, ${texts} text messages) and floors still unmet`,
    );
  }
  return { start, tokens, textMessages: texts, reasons };
}

/**
 * Plain truncation: the newest messages that fit in `budget` tokens, cut at a safe point. When even
 * the newest unit is over budget it is kept anyway (dropping the latest turn would lose the task).
 */
export function chooseNewestWithinBudget(messages: readonly Message[], budget: number): KeptRange {
  const n = messages.length;
  const safe = safeCuts(messages);
  let start = n;
  let tokens = 0;
  while (start > 0) {
    const previous = safeCutAtOrBefore(safe, start - 1);
    const add = tokensOf(messages, previous, start);
    if (tokens + add > budget && start < n) break;
    tokens += add;
    start = previous;
  }
  const reasons = [
    tokens > budget
      ? `newest message unit alone is ${tokens} tokens, over the ${budget} budget; kept anyway`
      : start === 0
        ? `the whole history (${n} message(s), ${tokens} tokens) fits the ${budget}-token budget; nothing removed`
        : `kept the newest ${n - start} message(s), ${tokens} tokens within the ${budget}-token budget`,
  ];
  return { start, tokens, textMessages: textMessagesIn(messages, start, n), reasons };
}
