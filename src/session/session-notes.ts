/**
 * The host-facing handle for one session: call `onTurnEnd` after each model response (returns at
 * once; the update runs in the background), `compact` when the context is full, `away` when the
 * user comes back. Background failures are reported through `onUpdate`, never thrown at the host.
 */

import type { EngramEnvironment } from '../config/index.js';
import type {
  ConversationPrefix,
  LanguageModel,
  Message,
  TextBlock,
  ToolDefinition,
  ToolImplementation,
} from '../llm/types.js';
import { type Clock, systemClock } from '../util/clock.js';
import { EngramError } from '../util/errors.js';
import { awaySummary } from './away-summary.js';
import { compactSession, type SessionCompaction } from './compact-session.js';
import type { KeepLimits } from './keep-policy.js';
import type { NotesLimits } from './notes-checks.js';
import { readSessionNotes, type SessionNotesView } from './read-notes.js';
import type { NotesThresholds } from './thresholds.js';
import { type NotesUpdateOutcome, updateSessionNotes } from './update-notes.js';
import {
  STALE_AFTER_MS,
  WAIT_TIMEOUT_MS,
  type WaitForNotesOptions,
  type WaitResult,
} from './update-record.js';

export interface SessionNotesOptions {
  environment: EngramEnvironment;
  sessionId: string;
  /** Without a model no notes are written; compaction then truncates. */
  model?: LanguageModel;
  /** Executors for the host's tool names (default: engram's file tools). */
  tools?: ToolImplementation[];
  thresholds?: NotesThresholds;
  limits?: NotesLimits;
  keep?: KeepLimits;
  maxTurns?: number;
  wait?: WaitForNotesOptions;
  /** Stamps for the session record and cursor (default the system clock). */
  clock?: Clock;
  onUpdate?: (outcome: NotesUpdateOutcome) => void;
}

export interface SessionNotes {
  /** After each model response: checks the thresholds and maybe updates, in the background. */
  onTurnEnd(prefix: ConversationPrefix): void;
  /** Update now and wait for it (`force` skips the thresholds). */
  updateNow(
    prefix: ConversationPrefix,
    options?: { force?: boolean; signal?: AbortSignal },
  ): Promise<NotesUpdateOutcome>;
  /** Compact a history: waits (bounded) for a running update, then notes / summary / truncation. */
  compact(
    messages: readonly Message[],
    host?: { system?: string | TextBlock[]; tools?: ToolDefinition[] },
  ): Promise<SessionCompaction>;
  /** 1-3 sentences for a returning user (needs a model). */
  away(history: readonly Message[]): Promise<string>;
  read(): Promise<SessionNotesView>;
  /** Wait for background work, at most `timeoutMs`; false when something was still running. */
  drain(timeoutMs?: number): Promise<boolean>;
}

export function createSessionNotes(options: SessionNotesOptions): SessionNotes {
  let running: Promise<void> | undefined;
  let runningSince = 0;
  let pending: ConversationPrefix | undefined;
  const clock = options.wait?.clock ?? systemClock;
  const timeoutMs = options.wait?.timeoutMs ?? WAIT_TIMEOUT_MS;

  /**
   * An update this process queued or started (a turn just ended) may not hold the record file yet,
   * so compaction right after a turn would miss the notes it is about to get. Wait for it with the
   * same bounds as for a record: at most the timeout, and not at all once it is stale.
   */
  async function waitInProcess(): Promise<number> {
    const started = clock.now();
    if (!running || started - runningSince > (options.wait?.staleMs ?? STALE_AFTER_MS)) return 0;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      running,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
        timer.unref?.();
      }),
      ...(options.wait?.clock ? [clock.sleep(timeoutMs)] : []),
    ]);
    clearTimeout(timer);
    return Math.max(0, clock.now() - started);
  }

  const update = (prefix: ConversationPrefix, force = false, signal?: AbortSignal) =>
    updateSessionNotes({
      environment: options.environment,
      sessionId: options.sessionId,
      model: options.model!,
      prefix,
      force,
      ...(options.tools ? { tools: options.tools } : {}),
      ...(options.thresholds ? { thresholds: options.thresholds } : {}),
      ...(options.limits ? { limits: options.limits } : {}),
      ...(options.maxTurns ? { maxTurns: options.maxTurns } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
      ...(signal ? { signal } : {}),
    });

  const report = (outcome: NotesUpdateOutcome) => {
    try {
      options.onUpdate?.(outcome);
    } catch {
      // A throwing callback must not turn into an unhandled rejection in the host.
    }
  };

  // Turns that end while an update runs are coalesced: only the newest conversation matters.
  const loop = async () => {
    while (pending) {
      const prefix = pending;
      pending = undefined;
      try {
        report(await update(prefix));
      } catch (error) {
        report({
          status: 'failed',
          reason: error instanceof Error ? error.message : String(error),
          notesPath: '',
          repairs: [],
          selfReferences: [],
          warnings: [],
        });
      }
    }
    running = undefined;
  };

  return {
    onTurnEnd(prefix) {
      if (!options.model) return;
      pending = prefix;
      if (!running) runningSince = clock.now();
      running ??= loop();
    },
    async updateNow(prefix, opts = {}) {
      if (!options.model) throw new EngramError('no_model', 'updating session notes needs a model');
      await running;
      return update(prefix, opts.force === true, opts.signal);
    },
    async compact(messages, host = {}) {
      const waited = await waitInProcess();
      const result = await compactSession({
        environment: options.environment,
        sessionId: options.sessionId,
        messages,
        ...(options.model ? { model: options.model } : {}),
        ...(host.system !== undefined ? { system: host.system } : {}),
        ...(host.tools ? { tools: host.tools } : {}),
        ...(options.keep ? { limits: options.keep } : {}),
        // One budget for both waits: the whole compaction proceeds within the timeout.
        wait: { ...options.wait, timeoutMs: Math.max(0, timeoutMs - waited) },
      });
      return waited > 0 ? { ...result, wait: mergedWait(result.wait, waited) } : result;
    },
    async away(history) {
      if (!options.model) throw new EngramError('no_model', 'an away summary needs a model');
      const view = await readSessionNotes(options.environment, options.sessionId);
      const notes = view.exists && !view.templateOnly ? view.content : undefined;
      return awaySummary(history, notes, { model: options.model });
    },
    read: () => readSessionNotes(options.environment, options.sessionId),
    async drain(timeoutMs = 15_000) {
      if (!running) return true;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      });
      const done = await Promise.race([running.then(() => true as const), timeout]);
      clearTimeout(timer);
      return done;
    },
  };
}

/** The wait as the host sees it: the in-process part first, then the record's. */
function mergedWait(record: WaitResult, inProcessMs: number): WaitResult {
  return {
    outcome: record.outcome === 'none_running' ? 'finished' : record.outcome,
    waitedMs: record.waitedMs + inProcessMs,
  };
}
