import type { ContentBlock, Message } from '../llm/types.js';
import { type ParsedInjection, parseInjections } from './parse.js';

/** What the conversation itself says about past recall. Derived, never stored on the side. */
export interface InjectionHistory {
  /** Absolute paths of memories present in the history. */
  surfacedPaths: Set<string>;
  /** The same memories by their path relative to the memory directory. */
  surfacedFiles: Set<string>;
  /** Memory bytes present in the history: the session budget's running total. */
  sessionBytes: number;
  /** True once the budget notice is in the history: recall stays off, silently. */
  budgetNoticeShown: boolean;
  /** Number of injection blocks found. */
  injections: number;
}

/**
 * A message's blocks. Hosts written in plain JavaScript often pass provider-style messages whose
 * content is a bare string; reading it as one text block keeps their history from going unseen.
 */
export function contentBlocks(message: Message): readonly ContentBlock[] {
  const content: unknown = message.content;
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? (content as ContentBlock[]) : [];
}

function textsOf(block: ContentBlock): string[] {
  if (block.type === 'text') return [block.text];
  if (block.type === 'tool_result') {
    if (typeof block.content === 'string') return [block.content];
    // Hosts in plain JavaScript also put images and other blocks here: only text can hold memory.
    return block.content.flatMap((b: { text?: unknown }) =>
      typeof b.text === 'string' ? [b.text] : [],
    );
  }
  return [];
}

/**
 * Read past injections back out of the message history. Because the state lives in the messages,
 * a compaction that drops old injections makes those memories eligible again and gives the
 * budget back, with no counter to fall out of step. Pure.
 */
export function injectionHistory(messages: readonly Message[]): InjectionHistory {
  const history: InjectionHistory = {
    surfacedPaths: new Set(),
    surfacedFiles: new Set(),
    sessionBytes: 0,
    budgetNoticeShown: false,
    injections: 0,
  };
  for (const message of messages) {
    for (const block of contentBlocks(message)) {
      for (const text of textsOf(block)) addAll(history, parseInjections(text));
    }
  }
  return history;
}

function addAll(history: InjectionHistory, found: ParsedInjection[]): void {
  for (const injection of found) {
    history.injections++;
    history.sessionBytes += injection.memoryBytes;
    if (injection.notice !== undefined) history.budgetNoticeShown = true;
    for (const m of injection.memories) {
      history.surfacedPaths.add(m.path);
      history.surfacedFiles.add(m.file);
    }
  }
}
