import type { ContentBlock, Message, Usage } from './types.js';

/**
 * The one token estimator every threshold in engram uses (session notes, compaction, budgets), so
 * "how full is the context" is measured the same way everywhere. ~4 characters a token (one for
 * Han, kana and Hangul); when the caller has a real usage, it replaces the estimate of what it covered.
 */
export const CHARS_PER_TOKEN = 4;

/**
 * Han, kana and Hangul: tokenizers spend about one token per character on them, not a quarter,
 * so a Chinese or Japanese conversation would otherwise look four times emptier than it is.
 */
const WIDE_CHARS = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/g;

export function estimateTextTokens(text: string): number {
  const wide = text.length - text.replace(WIDE_CHARS, '').length;
  return Math.ceil((text.length - wide) / CHARS_PER_TOKEN + wide);
}

function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'thinking':
      return block.thinking;
    case 'tool_use':
      return `${block.name}${JSON.stringify(block.input ?? null)}`;
    case 'tool_result':
      return typeof block.content === 'string'
        ? block.content
        : block.content.map((b) => b.text).join('');
  }
}

export function estimateMessageTokens(message: Message): number {
  return message.content.reduce((sum, block) => sum + estimateTextTokens(blockText(block)), 0);
}

export interface UsageAnchor {
  /** Number of leading messages the usage covered. */
  messageCount: number;
  usage: Usage;
}

/**
 * Tokens in a conversation. With an anchor (the real usage reported for the first N messages),
 * the total is that real count plus the estimate of what came after it.
 */
export function estimateMessagesTokens(messages: readonly Message[], anchor?: UsageAnchor): number {
  if (anchor && anchor.messageCount <= messages.length) {
    const real =
      anchor.usage.inputTokens +
      anchor.usage.cacheReadTokens +
      anchor.usage.cacheWriteTokens +
      anchor.usage.outputTokens;
    let rest = 0;
    for (const m of messages.slice(anchor.messageCount)) rest += estimateMessageTokens(m);
    return real + rest;
  }
  let total = 0;
  for (const m of messages) total += estimateMessageTokens(m);
  return total;
}
