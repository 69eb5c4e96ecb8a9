import type { SessionLister } from '../dream/index.js';
import type { ConversationPrefix, LanguageModel, Message } from '../llm/types.js';
import { createEngram } from '../runtime/create-engram.js';
import type { EngramEvent } from '../runtime/types.js';
import type { SessionCompaction } from '../session/compact-session.js';
import { type Clock, type LegacyNow, resolveClock } from '../util/clock.js';

export { DEFAULT_CLOSE_TIMEOUT_MS } from '../runtime/session.js';

export interface OpenMemoryOptions {
  /**
   * The project the agent works in; the memory directory is keyed by its git root. Default:
   * `process.cwd()` when `openMemory` is called, as `createEngram` takes it.
   */
  cwd?: string;
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
  /** Where consolidation finds past sessions (default: the runtime's `projectSessionLister`). */
  sessions?: SessionLister;
  /** Include AGENTS.md / CLAUDE.md instruction files in the system prompt (default true). */
  instructions?: boolean;
  clock?: Clock;
  /** @deprecated pass `clock`. */
  now?: LegacyNow;
  /** Where background outcomes are reported (saved memories, skipped runs, failures). */
  onEvent?: (event: MemoryEvent) => void;
}

/** A session's background outcomes (`EngramEvent`, each naming its session). */
export type MemoryEvent = EngramEvent;

export interface Memory {
  readonly memoryDir: string;
  readonly sessionId: string;
  /** Instructions, memory guidance and the index. Computed once: the same bytes all session. */
  systemPrompt(): Promise<string>;
  /** Start recall for a new user message; the promise settles when recall is done. */
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

/**
 * Open memory for one agent session: a convenience over `createEngram(...).openSession(...)` for
 * a host with one session. The object maps onto an agent loop: system prompt at start, recall
 * before a turn, attachments while building requests, background work after.
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
export async function openMemory(options: OpenMemoryOptions = {}): Promise<Memory> {
  const engram = createEngram({
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.homedir ? { homedir: options.homedir } : {}),
    ...(options.memoryDir !== undefined ? { memoryDir: options.memoryDir } : {}),
    ...(options.model ? { model: options.model } : {}),
    ...(options.sessions ? { sessions: options.sessions } : {}),
    clock: resolveClock(options),
  });
  const session = engram.openSession({
    ...(options.sessionId !== undefined ? { sessionId: options.sessionId } : {}),
    ...(options.instructions === false ? { instructions: false } : {}),
    ...(options.modelRecall === false ? { modelRecall: false } : {}),
    ...(options.extraction === false ? { extraction: false } : {}),
    ...(options.sessionNotes === false ? { sessionNotes: false } : {}),
    ...(options.consolidation === false ? { consolidation: false } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
  });
  return {
    memoryDir: session.memoryDir,
    sessionId: session.sessionId,
    systemPrompt: () => session.systemPrompt(),
    beforeTurn: (userText, history) => session.beforeTurn(userText, history),
    attachments: (history) => session.attachments(history),
    afterTurn: (conversation) => session.afterTurn(conversation),
    compact: (history) => session.compact(history),
    close: (closeOptions) => session.close(closeOptions),
  };
}
