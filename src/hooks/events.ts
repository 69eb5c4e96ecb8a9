/**
 * Session start, prompt submit and pre-compact: read the hook input, call the library, return the
 * JSON Claude Code expects. No policy here beyond fitting Claude Code's limits.
 */

import type { EngramEnvironment } from '../config/index.js';
import { createClaimVerifier } from '../drift/index.js';
import type { LanguageModel } from '../llm/types.js';
import { loadIndex, memoryGuidance } from '../memdir/index.js';
import { recall } from '../recall/index.js';
import { readSessionNotes } from '../session/read-notes.js';
import type { Clock } from '../util/clock.js';
import { isEngramError } from '../util/errors.js';
import type { HookInput } from './input.js';
import {
  capHookContext,
  contextOutput,
  HOOK_CONTEXT_MAX_CHARS,
  type HookOutput,
} from './output.js';
import { indexSection, notesSection } from './prompts.js';
import { HOOK_TIMEOUTS } from './settings.js';
import { historyForRecall, readHookTranscript } from './transcript.js';

export interface HookContext {
  /** Where the session runs (the hook input's cwd when given). */
  environment: EngramEnvironment;
  memoryDir: string;
  /** Recall selector / extraction / notes model; absent = offline recall and no background work. */
  model?: LanguageModel;
  clock?: Clock;
  /** Time limit for the event's model work (pre-compact; recall has its own budget). */
  budgetMs?: number;
  /** Report a remark for people (stderr); stdout is reserved for the JSON. */
  log?: (line: string) => void;
  /**
   * Selected memories whose claim checks were not in the cache: start a refresh that outlives
   * this process (the hook answers from the cache alone, so the next turn benefits).
   */
  refreshClaims?: (files: string[]) => void;
}

/** Five memories of at most this many bytes, with headers, stay under Claude Code's 10,000 characters. */
export const HOOK_MEMORY_MAX_BYTES = 1_600;
/** Recall must answer well within UserPromptSubmit's 30 s default timeout. */
export const DEFAULT_RECALL_BUDGET_MS = 5_000;
/** Of the budget, what is kept for reading and rendering the chosen memories after ranking. */
const RENDER_RESERVE_MS = 250;

/** SessionStart: the memory guidance and the index (and, after a compaction, the session notes). */
export async function sessionStartHook(input: HookInput, ctx: HookContext): Promise<HookOutput> {
  const index = await loadIndex(ctx.memoryDir);
  const parts = [memoryGuidance({ memoryDir: ctx.memoryDir })];
  if (input.source === 'compact' && input.sessionId !== undefined) {
    const notes = await readSessionNotes(ctx.environment, input.sessionId).catch(() => undefined);
    if (notes?.exists && !notes.templateOnly) parts.push(notesSection(notes.content, notes.path));
  }
  parts.push(indexSection(index.content, index.path));
  const text = capHookContext(
    parts.join('\n\n'),
    HOOK_CONTEXT_MAX_CHARS,
    `read ${index.path} for the rest`,
  );
  return contextOutput('SessionStart', text);
}

export interface PromptHookOptions {
  budgetMs?: number;
}

/**
 * UserPromptSubmit: recall for the prompt. Memories already in the transcript (earlier hook
 * injections) are not repeated and count against the session budget. Past the time budget the
 * prompt goes on without memories rather than waiting.
 */
export async function userPromptSubmitHook(
  input: HookInput,
  ctx: HookContext,
  options: PromptHookOptions = {},
): Promise<HookOutput> {
  if (input.prompt === undefined) return {};
  const budgetMs = options.budgetMs ?? DEFAULT_RECALL_BUDGET_MS;
  // The hook is on the turn's path: verdicts come from the persisted cache only, never a check,
  // and only when ready at selection time. Preparing first overlaps the project's state (git)
  // with reading the transcript and scanning.
  const verifier = createClaimVerifier({
    projectDir: ctx.environment.cwd,
    memoryDir: ctx.memoryDir,
    mode: 'cache-only',
    waitMs: 0,
    budgetMs: Math.max(100, Math.floor(budgetMs / 4)),
  });
  verifier.prepare();
  try {
    const transcript = await readHookTranscript(input.transcriptPath);
    const result = await recall({
      dir: ctx.memoryDir,
      query: input.prompt,
      messages: historyForRecall(transcript),
      ...(ctx.clock ? { clock: ctx.clock } : {}),
      signal: AbortSignal.timeout(budgetMs),
      // Scanning and ranking stop in time to read and render what they found within the budget.
      budgetMs: Math.max(1, budgetMs - Math.min(RENDER_RESERVE_MS, Math.floor(budgetMs / 4))),
      selectorTimeoutMs: Math.max(500, budgetMs - 1_000),
      limits: { maxBytes: HOOK_MEMORY_MAX_BYTES },
      ...(ctx.model ? { model: ctx.model } : {}),
      verifier,
    });
    for (const note of result.notes) ctx.log?.(note);
    const unverified = result.selected.filter((m) => m.claims === null).map((m) => m.file);
    if (unverified.length > 0) ctx.refreshClaims?.(unverified);
    return contextOutput('UserPromptSubmit', result.text);
  } catch (error) {
    if (isEngramError(error, 'aborted')) {
      ctx.log?.(`recall took longer than ${budgetMs} ms; the prompt goes on without memories`);
      return {};
    }
    throw error;
  } finally {
    verifier.dispose(); // a git status still running must not keep the hook process alive
  }
}

/**
 * The notes update stops this long before Claude Code's own timeout for the installed hook, so a
 * slow or hung model ends in a clean `{}` (and a released update record) rather than a killed hook.
 */
export const PRE_COMPACT_BUDGET_MS = (HOOK_TIMEOUTS['pre-compact'] - 10) * 1_000;

/** PreCompact: bring the session notes up to date before Claude Code compacts the conversation. */
export async function preCompactHook(input: HookInput, ctx: HookContext): Promise<HookOutput> {
  if (ctx.model === undefined || input.sessionId === undefined) {
    ctx.log?.('no model configured: session notes are not updated');
    return {};
  }
  const transcript = await readHookTranscript(input.transcriptPath);
  const last = transcript.messages.at(-1);
  if (last === undefined) return {};
  const current = await readSessionNotes(ctx.environment, input.sessionId);
  if (current.cursor.lastMessageId === last.id) return {};
  // Loaded here: the other events (one process per prompt) never need the notes agent.
  const { updateSessionNotes } = await import('../session/update-notes.js');
  const outcome = await updateSessionNotes({
    environment: ctx.environment,
    sessionId: input.sessionId,
    model: ctx.model,
    prefix: { tools: [], messages: transcript.messages },
    force: true,
    signal: AbortSignal.timeout(ctx.budgetMs ?? PRE_COMPACT_BUDGET_MS),
  });
  ctx.log?.(`session notes ${outcome.status}: ${outcome.reason}`);
  return {};
}
