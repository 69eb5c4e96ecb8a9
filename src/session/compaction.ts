/**
 * Compacted histories, built purely from messages plus notes (or a summary). Three paths, always
 * reported: `notes` (usable notes exist), `summary` (no usable notes, a model wrote a summary) and
 * `truncation` (neither: keep the newest messages within budget, with a visible notice).
 */
import { estimateMessagesTokens } from '../llm/tokens.js';
import type { Message } from '../llm/types.js';
import {
  chooseKeptRange,
  chooseNewestWithinBudget,
  DEFAULT_KEEP_LIMITS,
  type KeepLimits,
  type KeptRange,
} from './keep-policy.js';
import { DEFAULT_NOTES_LIMITS, truncateNotesForCompaction } from './notes-checks.js';
import { compactedNotesMessage, compactedSummaryMessage, truncationNotice } from './prompts.js';

export type CompactionMethod = 'notes' | 'summary' | 'truncation';

export interface CompactionResult {
  method: CompactionMethod;
  /** Why this method was used (e.g. "notes are only the template; no model configured"). */
  why: string;
  /**
   * The new history: one leading user message (notes, summary or notice), then the kept messages.
   * A truncation that removes nothing returns the history unchanged, without a notice.
   */
  messages: Message[];
  kept: {
    start: number;
    count: number;
    firstId?: string;
    lastId?: string;
    tokens: number;
    textMessages: number;
    reasons: string[];
  };
  removed: { count: number; tokens: number };
  /** Estimated tokens before and after. */
  tokensBefore: number;
  tokensAfter: number;
  /** Notes sections shortened for this compaction (notes path only). */
  truncatedSections: string[];
}

function leadMessage(id: string, text: string): Message {
  return { id, role: 'user', content: [{ type: 'text', text }] };
}

function assemble(
  method: CompactionMethod,
  why: string,
  messages: readonly Message[],
  range: KeptRange,
  lead: Message,
  truncatedSections: string[] = [],
): CompactionResult {
  const kept = messages.slice(range.start);
  const out = [lead, ...kept];
  const tokensBefore = estimateMessagesTokens(messages);
  return {
    method,
    why,
    messages: out,
    kept: {
      start: range.start,
      count: kept.length,
      firstId: kept[0]?.id,
      lastId: kept.at(-1)?.id,
      tokens: range.tokens,
      textMessages: range.textMessages,
      reasons: range.reasons,
    },
    removed: { count: range.start, tokens: tokensBefore - range.tokens },
    tokensBefore,
    tokensAfter: estimateMessagesTokens(out),
    truncatedSections,
  };
}

export interface NotesCompactionInput {
  messages: readonly Message[];
  notes: string;
  notesPath: string;
  /** Index of the last message the notes cover, -1 when unknown. */
  boundaryIndex: number;
  limits?: KeepLimits;
  maxSectionChars?: number;
  why?: string;
}

/** Notes (long sections shortened) + the messages after what the notes cover, floors applied. */
export function compactWithNotes(input: NotesCompactionInput): CompactionResult {
  const range = chooseKeptRange(
    input.messages,
    input.boundaryIndex,
    input.limits ?? DEFAULT_KEEP_LIMITS,
  );
  const truncated = truncateNotesForCompaction(
    input.notes,
    input.notesPath,
    input.maxSectionChars ?? DEFAULT_NOTES_LIMITS.maxSectionCharsForCompaction,
  );
  const lead = leadMessage(
    'engram-compact-notes',
    compactedNotesMessage(truncated.text.trim(), input.notesPath),
  );
  return assemble(
    'notes',
    input.why ?? 'session notes are available',
    input.messages,
    range,
    lead,
    truncated.truncatedSections,
  );
}

/** A model-written summary + the newest messages (same floors, counted from the end). */
export function compactWithSummary(
  messages: readonly Message[],
  summary: string,
  why: string,
  limits: KeepLimits = DEFAULT_KEEP_LIMITS,
): CompactionResult {
  const range = chooseKeptRange(messages, -1, limits);
  return assemble(
    'summary',
    why,
    messages,
    range,
    leadMessage('engram-compact-summary', compactedSummaryMessage(summary.trim())),
  );
}

/** No notes, no summary: the newest messages within budget and a notice of what was dropped. */
export function compactByTruncation(
  messages: readonly Message[],
  why: string,
  budget: number = DEFAULT_KEEP_LIMITS.maxTokens,
): CompactionResult {
  const range = chooseNewestWithinBudget(messages, budget);
  const result = assemble(
    'truncation',
    why,
    messages,
    range,
    leadMessage('engram-compact-truncation', truncationNotice(range.start)),
  );
  // Everything fits: nothing was removed, so a notice saying otherwise would only cost tokens and
  // mislead the model. The history comes back as it was.
  if (range.start === 0) {
    return { ...result, messages: [...messages], tokensAfter: result.tokensBefore };
  }
  return result;
}
