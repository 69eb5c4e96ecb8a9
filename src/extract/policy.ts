/**
 * When an extraction runs: pure decisions over the message history and the extractor's counters.
 * The order of the checks is the cost order: nothing here reads a disk or calls a model, and the
 * manifest scan and the fork only happen after every check said "run".
 */
import type { Message } from '../llm/types.js';
import { memoryWritesIn, type WritePathContext } from './memory-writes.js';

/** Run every completed turn unless configured otherwise. */
export const DEFAULT_EXTRACTION_EVERY_N_TURNS = 1;
/** Well-behaved extractions take 2–4 turns (read, then write); the cap stops verification rabbit holes. */
export const DEFAULT_EXTRACTION_MAX_TURNS = 5;

/**
 * Index of the first message after the cursor. A cursor that is no longer in the history (the
 * conversation was compacted or rewound) counts as "nothing considered yet": everything is new,
 * because treating it as "all considered" would silently stop extraction for the session.
 */
export function startAfterCursor(messages: readonly Message[], cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const at = messages.findIndex((m) => m.id === cursor);
  return at < 0 ? 0 : at + 1;
}

/** A turn is complete when the last message is the assistant's reply and it asks for no tool. */
export function isCompletedTurn(messages: readonly Message[]): boolean {
  const last = messages.at(-1);
  return (
    last !== undefined &&
    last.role === 'assistant' &&
    !last.content.some((block) => block.type === 'tool_use')
  );
}

export interface ExtractionDecisionInput {
  messages: readonly Message[];
  cursor: string | undefined;
  /** Completed turns seen since the last run started (before counting this one). */
  turnsSinceLastRun: number;
  everyNTurns: number;
  /** A trailing run processes work that was already triggered, so the throttle does not apply. */
  trailing: boolean;
  paths: WritePathContext;
}

export type ExtractionDecision =
  | { kind: 'skip'; reason: 'no_new_messages'; turnsSinceLastRun: number }
  | {
      kind: 'skip';
      reason: 'main_agent_wrote';
      /** The cursor moves past the main agent's write so the next run starts after it. */
      advanceTo: string;
      written: string[];
      turnsSinceLastRun: number;
    }
  | { kind: 'skip'; reason: 'throttled'; turnsSinceLastRun: number }
  | {
      kind: 'run';
      /** Index of the first message the fork is asked to consider. */
      start: number;
      newMessageCount: number;
      /** Where the cursor goes if, and only if, the run succeeds. */
      advanceTo: string;
      turnsSinceLastRun: 0;
    };

/** Decide what one trigger does. Returns the updated turn counter with the decision. */
export function decideExtraction(input: ExtractionDecisionInput): ExtractionDecision {
  const { messages, cursor, trailing, everyNTurns } = input;
  const start = startAfterCursor(messages, cursor);
  const last = messages.at(-1);
  if (last === undefined || start >= messages.length) {
    return { kind: 'skip', reason: 'no_new_messages', turnsSinceLastRun: input.turnsSinceLastRun };
  }
  const written = memoryWritesIn(messages, start, input.paths);
  if (written.length > 0) {
    return {
      kind: 'skip',
      reason: 'main_agent_wrote',
      advanceTo: last.id,
      written,
      turnsSinceLastRun: input.turnsSinceLastRun,
    };
  }
  const turns = trailing ? input.turnsSinceLastRun : input.turnsSinceLastRun + 1;
  if (!trailing && turns < Math.max(1, everyNTurns)) {
    return { kind: 'skip', reason: 'throttled', turnsSinceLastRun: turns };
  }
  return {
    kind: 'run',
    start,
    newMessageCount: messages.length - start,
    advanceTo: last.id,
    turnsSinceLastRun: 0,
  };
}
