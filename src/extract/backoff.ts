/**
 * Back-off of repeated background failures. An extraction that failed (e.g. it hit max_turns) on
 * some messages would fail the same way on the same messages: it is not repeated until a new
 * signal arrives — new turns beyond the failed window (1 after the first failure, then 2, 4, …:
 * back-off by count) or a changed configuration — and it says so once. Pure.
 */
import type { Message } from '../llm/types.js';

export interface FailureRecord {
  /** Why the last run failed (`max_turns`, `error`, …). */
  reason: string;
  /** The last message id the failed run covered. */
  windowEnd: string;
  /** The configuration it ran with (model, turn cap); a change is a new signal. */
  config: string;
  /** Consecutive failures of this kind under this configuration. */
  count: number;
  /** True once the back-off has been reported. */
  announced?: boolean;
}

export type BackoffDecision =
  | { kind: 'run' }
  | { kind: 'skip'; reason: 'backed_off'; newTurns: number; needed: number };

/** Failures that say nothing about the input are not backed off. */
const NOT_BACKED_OFF = new Set(['aborted']);

/** A user message with text starts a turn (tool results alone do not). */
function startsTurn(message: Message): boolean {
  return message.role === 'user' && message.content.some((b) => b.type === 'text');
}

/** Turns the conversation gained after the failed window. */
function turnsAfter(messages: readonly Message[], windowEnd: string): number | undefined {
  const at = messages.findIndex((m) => m.id === windowEnd);
  if (at < 0) return undefined;
  return messages.slice(at + 1).filter(startsTurn).length;
}

export function decideBackoff(
  record: FailureRecord | undefined,
  messages: readonly Message[],
  config: string,
): BackoffDecision {
  if (record === undefined || record.config !== config) return { kind: 'run' };
  const newTurns = turnsAfter(messages, record.windowEnd);
  // The window is no longer in the history (compacted, rewound): the input is new.
  if (newTurns === undefined) return { kind: 'run' };
  const needed = 2 ** Math.min(Math.max(0, record.count - 1), 10);
  return newTurns >= needed
    ? { kind: 'run' }
    : { kind: 'skip', reason: 'backed_off', newTurns, needed };
}

/** The record after a run: undefined after a success, counted up after the same failure again. */
export function nextFailureRecord(
  previous: FailureRecord | undefined,
  run: { outcome: string; reason?: string | undefined },
  windowEnd: string | undefined,
  config: string,
): FailureRecord | undefined {
  if (run.outcome !== 'failed') return undefined;
  const reason = run.reason ?? 'error';
  if (NOT_BACKED_OFF.has(reason) || windowEnd === undefined) return previous;
  const same = previous?.reason === reason && previous.config === config;
  return { reason, windowEnd, config, count: same ? previous.count + 1 : 1 };
}

/** The one line that says extraction is backed off and what brings it back. */
export function backoffMessage(record: FailureRecord, needed: number): string {
  return `extraction failed ${record.count === 1 ? 'once' : `${record.count} times`} (${record.reason}) on the same messages; it is not repeated until ${needed === 1 ? 'a new turn arrives' : `${needed} new turns arrive`} or the configuration changes.`;
}

/** The configuration key of an extraction: the model and the turn cap. */
export function extractionConfigKey(
  model: { provider: string; modelId: string },
  maxTurns: number,
): string {
  return `${model.provider}:${model.modelId}:max_turns=${maxTurns}`;
}
