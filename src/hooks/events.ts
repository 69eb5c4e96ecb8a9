/**
 * Session start, prompt submit and pre-compact: translators from Claude Code's hook JSON onto
 * the runtime, and back into the JSON Claude Code reads. No policy here beyond fitting Claude
 * Code's limits.
 */
import { join } from 'node:path';
import { agentNameProblem } from '../config/agent-memory.js';
import { createClaimVerifier } from '../drift/verifier.js';
import { INDEX_FILE } from '../memdir/index.js';
import { pullTeamAtSessionStart } from '../team/layer.js';
import { isEngramError } from '../util/errors.js';
import { type HookContext, runtimeOf } from './context.js';
import type { HookInput } from './input.js';
import { NOTICES, recallNotice } from './notices.js';
import {
  capHookContext,
  contextOutput,
  HOOK_CONTEXT_MAX_CHARS,
  type HookOutput,
} from './output.js';
import { HOOK_TIMEOUTS } from './settings.js';
import { historyForRecall, readHookTranscript } from './transcript.js';

export type { HookContext } from './context.js';

/** Five memories of at most this many bytes, with headers, stay under Claude Code's 10,000 characters. */
export const HOOK_MEMORY_MAX_BYTES = 1_600;
/** Recall must answer well within UserPromptSubmit's 30 s default timeout. */
export const DEFAULT_RECALL_BUDGET_MS = 5_000;

/**
 * SessionStart: the session's system prompt (memory guidance, after a compaction the session
 * notes, the index). Claude Code loads its own CLAUDE.md, so instruction files are left out.
 */
export async function sessionStartHook(input: HookInput, ctx: HookContext): Promise<HookOutput> {
  const engram = runtimeOf(ctx);
  // The team layer is fresh when the session starts (a no-op without a configured team server).
  const pulled = await pullTeamAtSessionStart(engram.memoryDir, engram.environment);
  if (pulled?.failure) ctx.log?.(`team pull failed: ${pulled.failure.message}`);
  const session = engram.openSession({
    ...(input.sessionId !== undefined ? { sessionId: input.sessionId } : {}),
    instructions: false,
  });
  const prompt = await session.systemPrompt({
    afterCompaction: input.source === 'compact' && input.sessionId !== undefined,
  });
  const text = capHookContext(
    prompt.trimEnd(),
    HOOK_CONTEXT_MAX_CHARS,
    `read ${join(engram.memoryDir, INDEX_FILE)} for the rest`,
  );
  return contextOutput('SessionStart', text);
}

export interface PromptHookOptions {
  budgetMs?: number;
  /** False: no claim verification (not even from the cache). */
  verify?: boolean;
}

/**
 * UserPromptSubmit: recall for the prompt, logged like every recall. Memories already in the
 * transcript (earlier hook injections) are not repeated and count against the session budget.
 * Past the time budget the prompt goes on without memories rather than waiting.
 */
export async function userPromptSubmitHook(
  input: HookInput,
  ctx: HookContext,
  options: PromptHookOptions = {},
): Promise<HookOutput> {
  if (input.prompt === undefined) return {};
  // A sub-agent's memory is its own; a type that cannot name a folder gets none, never the main one.
  if (input.agentType !== undefined && agentNameProblem(input.agentType) !== undefined) {
    ctx.log?.(`agent type ${JSON.stringify(input.agentType)} cannot name a memory folder`);
    return {};
  }
  const budgetMs = options.budgetMs ?? DEFAULT_RECALL_BUDGET_MS;
  const engram = runtimeOf(ctx);
  // The hook is on the turn's path: verdicts come from the persisted cache only, never a check,
  // and only when ready at selection time. Preparing first overlaps the project's state (git)
  // with reading the transcript and scanning.
  const verifier =
    options.verify === false
      ? undefined
      : createClaimVerifier({
          projectDir: engram.environment.cwd,
          memoryDir: engram.memoryDir,
          mode: 'cache-only',
          waitMs: 0,
          budgetMs: Math.max(100, Math.floor(budgetMs / 4)),
          // Only real misses (the project was readable, the cache had nothing): a project that
          // cannot be read must not start a refresh every turn.
          ...(ctx.refreshClaims ? { onMisses: ctx.refreshClaims } : {}),
        });
  verifier?.prepare();
  const session = engram.openSession({
    ...(input.sessionId !== undefined ? { sessionId: input.sessionId } : {}),
    ...(input.agentType !== undefined ? { agent: input.agentType } : {}),
    recallLimits: { maxBytes: HOOK_MEMORY_MAX_BYTES },
  });
  try {
    const transcript = await readHookTranscript(input.transcriptPath);
    const result = await session.recall({
      query: input.prompt,
      messages: historyForRecall(transcript),
      budgetMs,
      selectorTimeoutMs: Math.max(500, budgetMs - 1_000),
      ...(verifier ? { verifier } : {}),
    });
    for (const note of result.notes) ctx.log?.(note);
    const notice = recallNotice(result.shape);
    if (notice !== undefined) ctx.notice?.(notice);
    return contextOutput('UserPromptSubmit', result.text);
  } catch (error) {
    if (isEngramError(error, 'aborted')) {
      ctx.log?.(`recall took longer than ${budgetMs} ms; the prompt goes on without memories`);
      ctx.notice?.(NOTICES.recallTimeout(budgetMs));
      return {};
    }
    throw error;
  } finally {
    verifier?.dispose(); // a git status still running must not keep the hook process alive
  }
}

/**
 * The notes update stops this long before Claude Code's own timeout for the installed hook, so a
 * slow or hung model ends in a clean `{}` (and a released update record) rather than a killed hook.
 */
export const PRE_COMPACT_BUDGET_MS = (HOOK_TIMEOUTS['pre-compact'] - 10) * 1_000;

/** PreCompact: bring the session notes up to date before Claude Code compacts the conversation. */
export async function preCompactHook(input: HookInput, ctx: HookContext): Promise<HookOutput> {
  const engram = runtimeOf(ctx);
  if (engram.model === undefined || input.sessionId === undefined) {
    ctx.log?.('no model configured: session notes are not updated');
    if (engram.model === undefined) ctx.notice?.(NOTICES.notesSkipped('no model is configured'));
    return {};
  }
  const transcript = await readHookTranscript(input.transcriptPath);
  const last = transcript.messages.at(-1);
  if (last === undefined) return {};
  const session = engram.openSession({ sessionId: input.sessionId });
  const current = await session.readNotes();
  if (current.cursor.lastMessageId === last.id) return {};
  const outcome = await session.updateNotes(
    { tools: [], messages: transcript.messages },
    { force: true, signal: AbortSignal.timeout(ctx.budgetMs ?? PRE_COMPACT_BUDGET_MS) },
  );
  ctx.log?.(`session notes ${outcome.status}: ${outcome.reason}`);
  if (outcome.status === 'failed') ctx.notice?.(NOTICES.notesSkipped(outcome.reason));
  return {};
}
