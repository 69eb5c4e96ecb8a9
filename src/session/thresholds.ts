/**
 * When to update the session notes: a pure policy over the conversation and the notes cursor.
 * Size is the context as it is now, measured with the one shared estimator that compaction also
 * uses, never cumulative API usage: an agent re-reading one file ten times resends the whole
 * context ten times (huge cumulative input) while the context itself barely grows.
 */
import { estimateMessagesTokens, type UsageAnchor } from '../llm/tokens.js';
import type { Message } from '../llm/types.js';

export interface NotesThresholds {
  /** No notes until the conversation reaches this many tokens (default 10,000). */
  startTokens: number;
  /** Context growth since the last update needed for the next one (default 5,000). */
  growthTokens: number;
  /** Tool calls since the last update that, with enough growth, trigger one (default 3). */
  toolCalls: number;
}

export const DEFAULT_NOTES_THRESHOLDS: NotesThresholds = {
  startTokens: 10_000,
  growthTokens: 5_000,
  toolCalls: 3,
};

/** What engram remembers between updates (stored as `state.json` in the session folder). */
export interface NotesCursor {
  /** Context size (estimated tokens) when the last update ran; undefined before the first. */
  tokensAtLastUpdate?: number;
  /** Id of the last message the notes cover. */
  lastMessageId?: string;
  /**
   * Ids of the few messages before it, newest first. A transcript read again later can give its
   * newest message another id (a reply still streaming gained lines; a missing tool result was
   * stood in for and has since arrived), so the boundary falls back to the nearest one still there.
   */
  previousMessageIds?: string[];
}

/** How many earlier ids the cursor keeps for that fallback. */
export const CURSOR_FALLBACK_IDS = 5;

export interface NotesUpdateInput {
  messages: readonly Message[];
  cursor: NotesCursor;
  thresholds?: NotesThresholds;
  /** Real usage for a leading part of `messages`, passed through to the shared estimator. */
  anchor?: UsageAnchor;
}

export interface NotesUpdateFacts {
  contextTokens: number;
  growthTokens: number;
  toolCallsSince: number;
  lastTurnHadToolCalls: boolean;
}

export type NotesUpdateDecision =
  | ({ kind: 'skip'; reason: string } & NotesUpdateFacts)
  | ({ kind: 'update'; reason: string } & NotesUpdateFacts);

/** Index of the message with this id, or -1. */
export function indexOfMessage(messages: readonly Message[], id: string | undefined): number {
  if (id === undefined) return -1;
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.id === id) return i;
  return -1;
}

/**
 * Index of the last message the notes cover: `lastMessageId`, else the nearest earlier covered
 * message still in the history (covering less is safe: more is kept and counted), else -1.
 */
export function boundaryIndexOf(messages: readonly Message[], cursor: NotesCursor): number {
  const at = indexOfMessage(messages, cursor.lastMessageId);
  if (at >= 0 || cursor.lastMessageId === undefined) return at;
  for (const id of cursor.previousMessageIds ?? []) {
    const i = indexOfMessage(messages, id);
    if (i >= 0) return i;
  }
  return -1;
}

/** The cursor fields naming what an update covered: the last message and a few before it. */
export function coveredIds(
  messages: readonly Message[],
): Pick<NotesCursor, 'lastMessageId' | 'previousMessageIds'> {
  const last = messages.at(-1);
  if (!last) return {};
  const before = messages.slice(-1 - CURSOR_FALLBACK_IDS, -1).map((m) => m.id);
  return { lastMessageId: last.id, previousMessageIds: before.reverse() };
}

export function countToolCalls(messages: readonly Message[]): number {
  let n = 0;
  for (const m of messages) {
    if (m.role === 'assistant') for (const b of m.content) if (b.type === 'tool_use') n++;
  }
  return n;
}

/**
 * Whether the latest assistant turn called tools. One reply may span several consecutive assistant
 * messages (split transcript lines), so the whole trailing run of assistant messages counts.
 */
export function lastTurnHadToolCalls(messages: readonly Message[]): boolean {
  let i = messages.length - 1;
  while (i >= 0 && messages[i]!.role !== 'assistant') i--;
  for (; i >= 0 && messages[i]!.role === 'assistant'; i--) {
    if (messages[i]!.content.some((b) => b.type === 'tool_use')) return true;
  }
  return false;
}

/**
 * Decide whether to update now. Growth is necessary in every case; on top of it either enough tool
 * calls happened (real work to record) or the last turn made none (a natural pause).
 */
export function decideNotesUpdate(input: NotesUpdateInput): NotesUpdateDecision {
  const t = input.thresholds ?? DEFAULT_NOTES_THRESHOLDS;
  const contextTokens = estimateMessagesTokens(input.messages, input.anchor);
  const since = boundaryIndexOf(input.messages, input.cursor);
  const facts: NotesUpdateFacts = {
    contextTokens,
    growthTokens: contextTokens - (input.cursor.tokensAtLastUpdate ?? 0),
    toolCallsSince: countToolCalls(input.messages.slice(since + 1)),
    lastTurnHadToolCalls: lastTurnHadToolCalls(input.messages),
  };
  const skip = (reason: string): NotesUpdateDecision => ({ kind: 'skip', reason, ...facts });
  if (input.cursor.tokensAtLastUpdate === undefined && contextTokens < t.startTokens) {
    return skip(`context is ${contextTokens} tokens, notes start at ${t.startTokens}`);
  }
  if (facts.growthTokens < t.growthTokens) {
    return skip(
      `context grew ${facts.growthTokens} tokens since the last update, need ${t.growthTokens}`,
    );
  }
  if (facts.toolCallsSince >= t.toolCalls) {
    return {
      kind: 'update',
      reason: `context grew ${facts.growthTokens} tokens and ${facts.toolCallsSince} tool calls happened`,
      ...facts,
    };
  }
  if (!facts.lastTurnHadToolCalls) {
    return {
      kind: 'update',
      reason: `context grew ${facts.growthTokens} tokens and the last turn paused without tool calls`,
      ...facts,
    };
  }
  return skip(
    `only ${facts.toolCallsSince} tool calls since the last update (need ${t.toolCalls}) and the last turn is still using tools`,
  );
}
