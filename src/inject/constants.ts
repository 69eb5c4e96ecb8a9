/**
 * Injection budgets. Three layers, because a per-turn cap alone lets a long
 * session keep surfacing distinct files until memory crowds out the conversation.
 */

/** Per memory: a line cap alone does not bound size (200 lines of 500 characters is 100 KB). */
export const MAX_MEMORY_LINES = 200;
/** Per memory, in UTF-8 bytes; 5 × 4 KB bounds one turn at ~20 KB. */
export const MAX_MEMORY_BYTES = 4096;
/** Per turn: at most this many memories; zero is a normal answer. */
export const MAX_MEMORIES_PER_TURN = 5;
/** Per session: memory bytes present in the message history; past it recall stops (~3 full turns). */
export const MAX_SESSION_BYTES = 60 * 1024;

export interface InjectionLimits {
  maxLines: number;
  maxBytes: number;
  maxPerTurn: number;
  maxSessionBytes: number;
}

export const DEFAULT_INJECTION_LIMITS: Readonly<InjectionLimits> = Object.freeze({
  maxLines: MAX_MEMORY_LINES,
  maxBytes: MAX_MEMORY_BYTES,
  maxPerTurn: MAX_MEMORIES_PER_TURN,
  maxSessionBytes: MAX_SESSION_BYTES,
});
