import { randomUUID } from 'node:crypto';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { type EngramEnvironment, projectRoot } from '../config/index.js';
import {
  createDreamer,
  type DreamOutcome,
  type SessionLister,
  sessionFolderLister,
} from '../dream/index.js';
import { createClaimVerifier } from '../drift/index.js';
import { createExtractor, type ExtractionRun, type SavedNotice } from '../extract/index.js';
import { loadInstructions } from '../instructions/index.js';
import { FILE_TOOL_DEFINITIONS } from '../llm/file-tools.js';
import type { ConversationPrefix, LanguageModel, Message } from '../llm/types.js';
import { loadIndex, memoryGuidance, resolveMemoryDir } from '../memdir/index.js';
import { type RecallHandle, type RecallResult, startRecall } from '../recall/index.js';
import type { SessionCompaction } from '../session/compact-session.js';
import { createSessionNotes } from '../session/session-notes.js';
import { sessionMemoryRoot } from '../session/session-store.js';
import type { NotesUpdateOutcome } from '../session/update-notes.js';
import { type Clock, type LegacyNow, resolveClock } from '../util/clock.js';
import { indexPromptSection } from './prompts.js';

export interface OpenMemoryOptions {
  /** The project the agent works in; the memory directory is keyed by its git root. */
  cwd: string;
  /** The model for background work: recall selection, extraction, session notes, consolidation. */
  model?: LanguageModel;
  /** Use this memory directory as it is (otherwise resolved from trusted settings). */
  memoryDir?: string;
  env?: Record<string, string | undefined>;
  homedir?: string;
  /** Identifies the session's notes and its place in consolidation counts (default: a UUID). */
  sessionId?: string;
  /** Select memories with the model (default true when a model is given); false = offline ranker. */
  modelRecall?: boolean;
  /** Background extraction after each turn (default: on when a model is given). */
  extraction?: boolean;
  /** Session notes for compaction (default: on when a model is given). */
  sessionNotes?: boolean;
  /** Consolidation gates after each turn (default: on when a model is given). */
  consolidation?: boolean;
  /**
   * Where consolidation finds past sessions to count and review: the host's transcript store.
   * Default: engram's session-notes folders (sessions that wrote notes).
   */
  sessions?: SessionLister;
  /** Include AGENTS.md / CLAUDE.md instruction files in the system prompt (default true). */
  instructions?: boolean;
  clock?: Clock;
  /** @deprecated pass `clock`. */
  now?: LegacyNow;
  /** Where background outcomes are reported (saved memories, skipped runs, failures). */
  onEvent?: (event: MemoryEvent) => void;
}

export type MemoryEvent =
  | { kind: 'recall'; result: RecallResult }
  | { kind: 'recall_error'; error: unknown }
  | { kind: 'extraction'; run: ExtractionRun }
  | { kind: 'saved'; notice: SavedNotice }
  | { kind: 'notes'; outcome: NotesUpdateOutcome }
  | { kind: 'dream'; outcome: DreamOutcome }
  | { kind: 'error'; where: string; error: unknown };

export interface Memory {
  readonly memoryDir: string;
  readonly sessionId: string;
  /** Instructions, memory guidance and the index. Computed once: the same bytes all session. */
  systemPrompt(): Promise<string>;
  /**
   * Start recall for a new user message. Returns at once with a promise that settles when recall
   * is done (hosts may await it, bounded, or ignore it and poll `attachments`).
   */
  beforeTurn(userText: string, history: readonly Message[]): Promise<void>;
  /**
   * What to append to the conversation now: the recalled memories once ready (exactly once per
   * turn), else nothing. Never waits. Store what it returns with the conversation and resend
   * those bytes unchanged: they are frozen.
   */
  attachments(history: readonly Message[]): string[];
  /** After a completed turn: extraction, session notes and consolidation, fire-and-forget. */
  afterTurn(conversation: readonly Message[] | ConversationPrefix): void;
  /** Compact the conversation with the session notes (or a summary, or truncation). */
  compact(history: readonly Message[]): Promise<SessionCompaction>;
  /** Wait (bounded) for background work, then stop. */
  close(options?: { timeoutMs?: number }): Promise<void>;
}

/** How long `close()` waits for background work by default. */
export const DEFAULT_CLOSE_TIMEOUT_MS = 30_000;

/**
 * Open memory for one agent session. The returned object maps onto an agent loop: system prompt
 * at start, recall before a turn, attachments while building requests, background work after.
 *
 * @example
 * const memory = await openMemory({ cwd: process.cwd(), model });
 * const system = await memory.systemPrompt();
 * await memory.beforeTurn(userText, history);
 * history.push({ id, role: 'user', content: [{ type: 'text', text: userText },
 *   ...memory.attachments(history).map((text) => ({ type: 'text', text }))] });
 * // ... call the model, run tools ...
 * memory.afterTurn({ system, tools, messages: history });
 * await memory.close();
 */
export async function openMemory(options: OpenMemoryOptions): Promise<Memory> {
  const environment: EngramEnvironment = {
    cwd: resolve(options.cwd),
    env: options.env ?? process.env,
    homedir: options.homedir ?? homedir(),
  };
  const memoryDir = options.memoryDir
    ? resolve(environment.cwd, options.memoryDir)
    : resolveMemoryDir(environment).path;
  const sessionId = options.sessionId ?? randomUUID();
  const model = options.model;
  const clock = resolveClock(options);
  const emit = (event: MemoryEvent) => {
    try {
      options.onEvent?.(event);
    } catch {
      // A host callback must not break memory upkeep.
    }
  };
  const enabled = (flag: boolean | undefined) => model !== undefined && flag !== false;

  const extractor = enabled(options.extraction)
    ? createExtractor({
        memoryDir,
        model: model!,
        clock,
        onRun: (run) => emit({ kind: 'extraction', run }),
        onSaved: (notice) => emit({ kind: 'saved', notice }),
      })
    : undefined;
  const dreamer = enabled(options.consolidation)
    ? createDreamer({
        memoryDir,
        model: model!,
        sessions:
          options.sessions ??
          sessionFolderLister(sessionMemoryRoot(environment), {
            projectRoot: projectRoot(environment),
          }),
        clock,
      })
    : undefined;

  // Without a model (or with notes off) it writes no notes, and compaction falls back to truncation.
  const notes = createSessionNotes({
    environment,
    sessionId,
    ...(enabled(options.sessionNotes) ? { model: model! } : {}),
    onUpdate: (outcome) => emit({ kind: 'notes', outcome }),
  });

  let prompt: Promise<string> | undefined;
  let recall: RecallHandle | undefined;
  const background = new Set<Promise<unknown>>();
  let closed = false;
  // The latest turn's hand-off to the notes updater: compact() waits for it, so a compaction right
  // after a turn sees the update that turn queued (and waits for it like for any running update).
  let handOff: Promise<unknown> = Promise.resolve();

  const track = (where: string, work: Promise<unknown>) => {
    const p = work.catch((error: unknown) => emit({ kind: 'error', where, error }));
    background.add(p);
    void p.finally(() => background.delete(p));
  };

  async function buildSystemPrompt(): Promise<string> {
    const parts: string[] = [];
    if (options.instructions !== false) {
      const loaded = await loadInstructions({ environment });
      if (loaded.prompt.trim() !== '') parts.push(loaded.prompt.trimEnd());
    }
    parts.push(memoryGuidance({ memoryDir }));
    const index = await loadIndex(memoryDir);
    parts.push(indexPromptSection(index.content, index.path));
    return `${parts.join('\n\n')}\n`;
  }

  function prefixOf(conversation: readonly Message[] | ConversationPrefix, system: string) {
    if (!Array.isArray(conversation)) return conversation as ConversationPrefix;
    return { system, tools: FILE_TOOL_DEFINITIONS, messages: [...conversation] };
  }

  const memory: Memory = {
    memoryDir,
    sessionId,
    systemPrompt() {
      prompt ??= buildSystemPrompt();
      return prompt;
    },
    beforeTurn(userText, history) {
      recall?.dispose();
      const useModel = model !== undefined && options.modelRecall !== false;
      const handle = startRecall({
        dir: memoryDir,
        query: userText,
        messages: history,
        clock,
        ...(useModel ? { model } : {}),
        // Recall is prefetched off the turn's path, so it may wait for the claim checks.
        verifier: createClaimVerifier({ projectDir: options.cwd, memoryDir }),
      });
      recall = handle;
      return handle.done.then(() => {
        if (handle.error !== undefined) emit({ kind: 'recall_error', error: handle.error });
      });
    },
    attachments() {
      const result = recall?.poll();
      if (result === undefined) return [];
      emit({ kind: 'recall', result });
      return result.text === '' ? [] : [result.text];
    },
    afterTurn(conversation) {
      if (closed) return;
      const run = async () => {
        const system = await memory.systemPrompt();
        const prefix = prefixOf(conversation, system);
        extractor?.onTurnEnd(prefix);
        notes.onTurnEnd(prefix);
        if (dreamer) {
          track(
            'consolidation',
            dreamer
              .maybeDream({ currentSessionId: sessionId, prefix })
              .then((outcome) => emit({ kind: 'dream', outcome })),
          );
        }
      };
      handOff = run();
      track('after turn', handOff);
    },
    async compact(history) {
      // The summary fallback needs a model even when background notes are off.
      const system = await memory.systemPrompt();
      await handOff.catch(() => {});
      if (model !== undefined && !enabled(options.sessionNotes)) {
        return createSessionNotes({ environment, sessionId, model }).compact(history, { system });
      }
      return notes.compact(history, { system });
    },
    async close(closeOptions = {}) {
      closed = true;
      recall?.dispose();
      const timeoutMs = closeOptions.timeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
      const deadline = Date.now() + timeoutMs;
      // Work started by work (after turn → extraction) lands in the set later: loop until quiet.
      while (background.size > 0 && Date.now() < deadline) {
        await Promise.race([
          Promise.all([...background]),
          new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now())).unref()),
        ]);
      }
      if (extractor) {
        const idle = await extractor.drain(Math.max(0, deadline - Date.now()));
        if (!idle) extractor.abort();
      }
      await notes.drain(Math.max(0, deadline - Date.now()));
    },
  };
  return memory;
}
