import type { ForkedAgentResult, ForkToolCall } from '../llm/forked-agent.js';
import type { ConversationPrefix, LanguageModel, ToolImplementation, Usage } from '../llm/types.js';
import type { Clock, LegacyNow } from '../util/clock.js';
import type { EngramError } from '../util/errors.js';
import type { LayeredPath } from './memory-writes.js';

/**
 * What the host passes at the end of a turn: the conversation as its next request would carry
 * it (system, tool list and every message, the final assistant reply included). The fork reuses
 * it unchanged so the provider's prompt cache serves the shared part.
 */
export type ExtractionContext = ConversationPrefix;

export interface ExtractorOptions {
  /** Absolute memory directory; the fork may write only inside it (and in `userDir`). */
  memoryDir: string;
  /**
   * The user layer's directory (`$ENGRAM_HOME/user/memory`): when given, the fork may also save
   * facts about the person that hold in every project there, under the same confinement and lock
   * rules, and every run names the layer each file was saved in. Default: project only.
   */
  userDir?: string;
  /**
   * The model the fork runs on. Prompt caches are per model: pass the main conversation's model
   * for the shared prefix to be read from cache; another model pays it as fresh input.
   */
  model: LanguageModel;
  /**
   * Executors for the tools named in the host's tool list. Default: engram's file tools
   * (`read`, `write`, `edit`, `list`, `grep`), Claude Code's (`Read`, `Write`, `Edit`,
   * `MultiEdit`, `Grep`, `LS`) and the Anthropic memory tool, rooted at the memory directory.
   * A host with other tools passes executors for them.
   */
  tools?: ToolImplementation[];
  /** Directory relative tool paths are resolved against when host tools are used (default: process cwd). */
  cwd?: string;
  /** Run on every Nth completed turn (default 1). */
  everyNTurns?: number;
  /** Model calls a run may make before it counts as failed (default 5). */
  maxTurns?: number;
  maxTokens?: number;
  /** Id of the last message already considered (restored state); default: none. */
  cursor?: string;
  /** Clock for "today" in the instruction (relative dates become absolute). */
  clock?: Clock;
  /** @deprecated pass `clock`. */
  now?: LegacyNow;
  /** Called after a run that wrote topic files, with the notice to show the user. */
  onSaved?: (notice: SavedNotice) => void;
  /** Called for every decided trigger: skipped, failed or completed. */
  onRun?: (run: ExtractionRun) => void;
}

export interface SavedNotice {
  /** "Saved 1 memory: a.md" / "Saved 2 memories: a.md, b.md". */
  text: string;
  /** Memory-directory-relative topic files (index updates excluded); user-layer files absolute. */
  files: string[];
  /** The same files, each with its layer and absolute path. */
  savedTo: LayeredPath[];
}

/** `backed_off`: the same failure on the same messages is not repeated (see backoff.ts). */
export type SkipReason = 'no_new_messages' | 'main_agent_wrote' | 'throttled' | 'backed_off';
export type FailureReason = Exclude<ForkedAgentResult['status'], 'completed'>;

export interface ExtractionRun {
  outcome: 'saved' | 'nothing_saved' | 'skipped' | 'failed';
  /** Why it was skipped or failed. */
  reason?: SkipReason | FailureReason;
  /** True when this run was the one trailing run after triggers that arrived while busy. */
  trailing: boolean;
  cursorBefore: string | undefined;
  cursorAfter: string | undefined;
  /** Messages after the cursor that this trigger covered. */
  newMessageCount: number;
  /** Topic files written (memory-directory-relative; a user-layer file by its absolute path). */
  saved: string[];
  /** The same files, each with the layer it was saved in and its absolute path. */
  savedTo: LayeredPath[];
  notice?: string;
  /** Files the main agent wrote itself (when skipped for that reason). */
  mainAgentWrote?: string[];
  /** Model calls made. */
  turns: number;
  usage?: Usage;
  toolCalls: ForkToolCall[];
  /** The fork's last text, e.g. why it saved nothing. */
  finalText?: string;
  /** Structural problems in what was written (missing description, **Why:**, index line). */
  warnings: string[];
  error?: EngramError;
}

export type TriggerStatus = 'started' | 'queued' | 'skipped' | 'ignored';

export interface TriggerResult {
  status: TriggerStatus;
  /** For 'skipped': which check stopped it; for 'ignored': the turn was not complete. */
  reason?: SkipReason | 'turn_not_complete';
}

export interface ExtractorState {
  cursor: string | undefined;
  inProgress: boolean;
  hasPending: boolean;
  turnsSinceLastRun: number;
}

export interface Extractor {
  /**
   * Call when a turn completed. Returns at once (fire-and-forget); the run proceeds in the
   * background. While a run is in progress the context is kept (newest wins) for one trailing run.
   */
  onTurnEnd(context: ExtractionContext): TriggerResult;
  /**
   * Run one extraction now and wait for it (CLI, tests). Waits for a run in progress first; no
   * turn-end check and no throttle, but the cursor and the main-agent check apply.
   */
  extractNow(context: ExtractionContext): Promise<ExtractionRun>;
  /** Wait for in-flight runs (trailing ones included), at most `timeoutMs`. True when idle. */
  drain(timeoutMs?: number): Promise<boolean>;
  /** Abort the run in progress and drop the pending context; the cursor stays where it was. */
  abort(): void;
  state(): ExtractorState;
}
