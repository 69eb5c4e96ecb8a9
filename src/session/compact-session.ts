/**
 * Compaction for a session, with I/O: wait (bounded) for a running notes update, read the notes and
 * the cursor, then pick the path: notes when they hold something, else a model summary, else
 * truncation. The decision and its reasons are part of the result so a host can show them.
 */

import type { EngramEnvironment } from '../config/index.js';
import { withoutThinking } from '../llm/claude-code-transcript.js';
import { FILE_TOOL_DEFINITIONS } from '../llm/file-tools.js';
import { runForkedAgent } from '../llm/forked-agent.js';
import { estimateMessagesTokens } from '../llm/tokens.js';
import type { LanguageModel, Message, TextBlock, ToolDefinition } from '../llm/types.js';
import {
  type CompactionResult,
  compactByTruncation,
  compactWithNotes,
  compactWithSummary,
} from './compaction.js';
import { DEFAULT_KEEP_LIMITS, type KeepLimits } from './keep-policy.js';
import { isTemplateOnly } from './notes-structure.js';
import { buildSummaryInstruction } from './prompts.js';
import {
  loadNotesTemplate,
  type NotesTemplate,
  readCursor,
  readOptional,
  sessionPaths,
  writeCursor,
} from './session-store.js';
import { boundaryIndexOf } from './thresholds.js';
import { type WaitForNotesOptions, type WaitResult, waitForNotes } from './update-record.js';

export interface CompactSessionOptions {
  environment: EngramEnvironment;
  sessionId: string;
  messages: readonly Message[];
  /** Used only when the notes are missing, empty or template-only. */
  model?: LanguageModel;
  /** The host's system prompt and tools, so a summary request shares its prompt cache. */
  system?: string | TextBlock[];
  /** The host's tool list (default: engram's file tools; the API wants tools when history has calls). */
  tools?: ToolDefinition[];
  limits?: KeepLimits;
  wait?: WaitForNotesOptions;
  signal?: AbortSignal;
  /**
   * Rebase the notes cursor to the compacted size (default true: the host is about to use the
   * result). Pass false for a preview such as `engram compact`.
   */
  record?: boolean;
}

export interface SessionCompaction extends CompactionResult {
  sessionId: string;
  notesPath: string;
  /** Where the notes boundary was found (-1: not in this history). */
  boundary: { id?: string; index: number };
  wait: WaitResult;
  warnings: string[];
}

export async function compactSession(options: CompactSessionOptions): Promise<SessionCompaction> {
  const paths = sessionPaths(options.environment, options.sessionId);
  const wait = await waitForNotes(paths.running, options.wait);
  const [notes, cursor, template] = await Promise.all([
    readOptional(paths.notes),
    readCursor(paths),
    loadNotesTemplate(options.environment),
  ]);
  const warnings = template.warning ? [template.warning] : [];
  const boundaryIndex = boundaryIndexOf(options.messages, cursor);
  const boundaryId =
    boundaryIndex >= 0 ? options.messages[boundaryIndex]!.id : cursor.lastMessageId;
  if (cursor.lastMessageId !== undefined && boundaryIndex < 0) {
    warnings.push(
      `the notes cover message ${cursor.lastMessageId}, which is not in this history; counting from the end`,
    );
  } else if (boundaryId !== cursor.lastMessageId) {
    warnings.push(
      `the notes cover message ${cursor.lastMessageId}, which is not in this history; the boundary is the nearest earlier message they cover, ${boundaryId}`,
    );
  }
  const extra = {
    sessionId: paths.sessionId,
    notesPath: paths.notes,
    boundary: { id: boundaryId, index: boundaryIndex },
    wait,
    warnings,
  };
  const result = await chooseCompaction(options, notes, template, boundaryIndex);
  if (options.record !== false && cursor.tokensAtLastUpdate !== undefined) {
    await writeCursor(paths, {
      ...cursor,
      ...rebasedCursor(options.messages, result, boundaryIndex),
    });
  }
  return { ...result, ...extra };
}

/**
 * The cursor after the host swaps in the compacted history: the context shrank, so "tokens at
 * the last update" must shrink too, or growth would read negative and notes would stop until the
 * context regrew past its old size. The new baseline is the compacted size minus the kept
 * messages the notes do not cover yet (those still count as growth).
 */
export function rebasedCursor(
  messages: readonly Message[],
  result: CompactionResult,
  boundaryIndex: number,
): { tokensAtLastUpdate: number } {
  const uncoveredFrom = Math.max(result.kept.start, boundaryIndex + 1);
  const uncovered = estimateMessagesTokens(messages.slice(uncoveredFrom));
  return { tokensAtLastUpdate: Math.max(0, result.tokensAfter - uncovered) };
}

async function chooseCompaction(
  options: CompactSessionOptions,
  notes: string | undefined,
  template: NotesTemplate,
  boundaryIndex: number,
): Promise<CompactionResult> {
  const limits = options.limits ?? DEFAULT_KEEP_LIMITS;
  const notesState =
    notes === undefined
      ? 'no notes file'
      : notes.trim() === ''
        ? 'the notes file is empty'
        : isTemplateOnly(notes, template.sections, template.text)
          ? 'the notes hold only the template'
          : undefined;
  const notesPath = sessionPaths(options.environment, options.sessionId).notes;
  if (notes !== undefined && notesState === undefined) {
    return compactWithNotes({
      messages: options.messages,
      notes,
      notesPath,
      boundaryIndex,
      limits,
    });
  }
  if (!options.model) {
    const why = `${notesState} and no model is configured`;
    return compactByTruncation(options.messages, why, limits.maxTokens);
  }
  const summary = await summarize(options);
  if (summary.ok) {
    const why = `${notesState}; the model summarized the conversation`;
    return compactWithSummary(options.messages, summary.text, why, limits);
  }
  const why = `${notesState} and the summary failed (${summary.reason})`;
  return compactByTruncation(options.messages, why, limits.maxTokens);
}

async function summarize(
  options: CompactSessionOptions,
): Promise<{ ok: true; text: string } | { ok: false; reason: string }> {
  const result = await runForkedAgent({
    model: options.model!,
    prefix: {
      system: options.system,
      tools: options.tools ?? FILE_TOOL_DEFINITIONS,
      // The summary may come from another model than the one whose thinking is in the history.
      messages: withoutThinking(options.messages),
    },
    prompt: buildSummaryInstruction(),
    tools: [],
    canUseTool: () => ({ behavior: 'deny', message: 'No tools while summarizing.' }),
    maxTurns: 1,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (result.status === 'error' || result.status === 'aborted') {
    return { ok: false, reason: result.error?.message ?? result.status };
  }
  const text = result.finalText.trim();
  return text ? { ok: true, text } : { ok: false, reason: 'the model returned no text' };
}
