import type { AgentScope, EngramEnvironment } from '../config/index.js';
import type { MemoryLayer, MemoryLayerName } from '../config/memory-chain.js';
import type { Dreamer, DreamOutcome } from '../dream/dreamer.js';
import type { SessionLister } from '../dream/sessions.js';
import type { DoctorReport } from '../drift/doctor.js';
import type { ExtractionRun, SavedNotice } from '../extract/types.js';
import type { InjectionLimits } from '../inject/constants.js';
import type { ConversationPrefix, LanguageModel, Message } from '../llm/types.js';
import type { AgentPreparation, MemoryDirResolution } from '../memdir/index.js';
import type { MemoryInput, SaveResult } from '../memdir/memory-file.js';
import type { DecayConstants, MemoryVerifier, RecallResult, RecallStats } from '../recall/index.js';
import type { SessionCompaction } from '../session/compact-session.js';
import type { SessionNotesView } from '../session/read-notes.js';
import type { NotesUpdateOutcome } from '../session/update-notes.js';
import type { Clock } from '../util/clock.js';

export interface EngramOptions {
  /** The project the agent works in (default: the process's cwd). Memory is keyed by its git root. */
  cwd?: string;
  /** Environment variables (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** The user's home folder (default `os.homedir()`). */
  homedir?: string;
  /** Use this memory directory as it is (relative to cwd), like the CLI's `--dir`. */
  memoryDir?: string;
  /** The CLI's `--memory-dir`: a trusted setting for the directory (absolute or `~/...`). */
  memoryDirFlag?: string;
  /**
   * The model for background work (recall selection, extraction, notes, consolidation). A model
   * object is used as is; `'configured'` resolves it from the environment and the `model` setting
   * (`ENGRAM_MODEL`, provider keys); absent or `null` means none: offline recall, no background work.
   */
  model?: LanguageModel | 'configured' | null;
  clock?: Clock;
  /** Where consolidation finds past sessions (default: `projectSessionLister`, see `sessions`). */
  sessions?: SessionLister;
  /** More folders of host transcripts to count as this project's sessions (e.g. a hook's). */
  transcriptDirs?: string[];
  /** The recall log: a path, or false for none (default: `<memory dir>/.engram/recall-metrics.jsonl`). */
  recallLog?: string | false;
  /** Where every session's background outcomes are reported (sessions may add their own). */
  onEvent?: (event: EngramEvent) => void;
  /**
   * Draw on the user layer (`$ENGRAM_HOME/user/memory`, facts about the person that hold in every
   * project) after the project directory (default true).
   */
  userLayer?: boolean;
  /**
   * The offline ranker's per-type decay constants (default: the `recallDecay` setting over
   * DEFAULT_DECAY; see `decayFromSettings`).
   */
  decay?: DecayConstants;
}

export type EngramEvent =
  | { kind: 'recall'; sessionId: string; result: RecallResult }
  | { kind: 'recall_error'; sessionId: string; error: unknown }
  | { kind: 'extraction'; sessionId: string; run: ExtractionRun }
  /** Extraction is backed off after a repeated failure; emitted once per back-off. */
  | { kind: 'backoff'; sessionId: string; message: string }
  | { kind: 'saved'; sessionId: string; notice: SavedNotice }
  | { kind: 'notes'; sessionId: string; outcome: NotesUpdateOutcome }
  | { kind: 'dream'; sessionId: string; outcome: DreamOutcome }
  | { kind: 'error'; sessionId: string; where: string; error: unknown };

export interface RecallRequest {
  query: string;
  /** The conversation so far (surfaced memories and session bytes come from it). */
  messages?: readonly Message[];
  alreadySurfaced?: Iterable<string>;
  recentTools?: readonly string[];
  /** Per-door limits, e.g. Claude Code's 10,000-character hook context. */
  limits?: Partial<InjectionLimits>;
  /** Give up after this long: the turn goes on without memories (an `aborted` error). */
  budgetMs?: number;
  selectorTimeoutMs?: number;
  staleAfterDays?: number;
  /** false: the offline ranker even when a model is configured. */
  modelRecall?: boolean;
  /** Another clock for this call (`engram recall --now`). */
  clock?: Clock;
  /** Another log for this call, or false for none. */
  log?: string | false;
  /** Checks the claims selected memories make against the project (see `engram/drift`). */
  verifier?: MemoryVerifier;
  /**
   * Recall for this agent: only its own directories (local, project, user), never the main chain.
   * Without it, only the main chain: agents' memories are never blended in.
   */
  agent?: string;
  signal?: AbortSignal;
}

/** The engram runtime: configuration, memory directory, model, clock and stores, resolved once. */
export interface Engram {
  readonly environment: EngramEnvironment;
  readonly memoryDir: string;
  /** Where the directory came from and whether an agent may write there unprompted. */
  readonly memoryDirResolution: MemoryDirResolution;
  /** The memory chain recall and the system prompt draw on: the project directory, then the user's. */
  readonly memoryChain: readonly MemoryLayer[];
  readonly projectRoot: string;
  /** The model background work runs on, if any. */
  readonly model: LanguageModel | undefined;
  /** The model as people read it (`anthropic claude-haiku-4-5 via …`), when resolved from configuration. */
  readonly modelDescription: string | undefined;
  /** Why there is no model, when one was asked for (`'configured'`) and none is set up. */
  readonly modelProblem: string | undefined;
  readonly clock: Clock;
  /** Merged settings (later sources win), read once. */
  readonly settings: Record<string, unknown>;
  /** `autoMemoryEnabled: false` in settings: doors stay installed but add and save nothing. */
  readonly memoryEnabled: boolean;
  /** `autoDreamEnabled: false` in settings switches consolidation off. */
  readonly dreamEnabled: boolean;
  readonly recallLog: string | undefined;
  readonly sessions: SessionLister;
  /** An agent's memory chain: its local, project and user directories (see `engram/config`). */
  agentChain(agent: string): readonly MemoryLayer[];
  /**
   * An agent's first use: seeds its local memory from a committed snapshot when there is one and
   * nothing was seeded yet; reports `prompt-update` when the snapshot moved on (nothing changed).
   */
  prepareAgent(agent: string): Promise<AgentPreparation>;
  /** Agents this project or user has memory or a committed snapshot for, by name. */
  knownAgents(): string[];
  /** Where a write for `agent` in `scope` goes (`local` is git-ignored first; default `local`). */
  agentDir(agent: string, scope?: AgentScope): Promise<string>;
  /** Open (or resume) one conversation. */
  openSession(options?: OpenSessionOptions): EngramSession;
  /** One recall, logged to the recall log: the same selection and bytes whichever door asks. */
  recall(request: RecallRequest): Promise<RecallResult>;
  /**
   * Save a memory (file + index line) in the project layer, or with `scope: 'user'` in the user
   * layer, for facts about the person that hold in every project. Says where it went.
   */
  saveMemory(
    input: MemoryInput & { scope?: 'project' | 'user' },
  ): Promise<SaveResult & { layer: 'project' | 'user'; dir: string }>;
  /**
   * The recall log summarised (what `engram stats` prints), and each further layer's own log (the
   * user layer's, whose lines come from every project: a repository with no memory folder logs
   * only there). With a named `log` (here or as the host's `recallLog`) every line is in that one
   * log and `layers` is empty.
   */
  stats(options?: { log?: string }): Promise<RecallLogStats & { layers: LayerRecallLogStats[] }>;
  /**
   * The memory directory diagnosed (what `engram doctor` and the inspector show): with the
   * runtime's settings and the files they came from (a refused value names its file), and every
   * layer of the chain checked against its own recall log. The directory is labelled with the
   * layer it is (`user` when it is the user layer's directory, else `project`).
   */
  doctor(options?: EngramDoctorOptions): Promise<DoctorReport>;
  /** The consolidation scheduler, with the engram's session lister and shared scan throttle. */
  dreamer(options?: {
    maxTurns?: number;
    sessions?: SessionLister;
    /** false: this dreamer's own scan throttle instead of the one shared on disk (a manual run). */
    sharedThrottle?: boolean;
  }): Promise<Dreamer>;
}

/** What a doctor run may change; everything else comes from the runtime. */
export interface EngramDoctorOptions {
  /**
   * The recall log to read for every layer (default: the runtime's `recallLog` when the host named
   * one, else each layer's own log in its memory directory).
   */
  log?: string;
  /** Time for checking memories' citations against the project (default 10 s). */
  verifyBudgetMs?: number;
  /** Where the memories' citations are checked (default: the runtime's `cwd`). */
  projectDir?: string;
}

export interface OpenSessionOptions {
  /** Identifies the session's notes, cursors and place in consolidation counts (default: a UUID). */
  sessionId?: string;
  /** Include AGENTS.md / CLAUDE.md instruction files in the system prompt (default true). */
  instructions?: boolean;
  /** Select memories with the model (default true when there is one); false = offline ranker. */
  modelRecall?: boolean;
  /** Background extraction after each turn (default on with a model). */
  extraction?: boolean;
  /** Session notes by their thresholds (default on with a model). */
  sessionNotes?: boolean;
  /** Consolidation gates after each turn (default on with a model). */
  consolidation?: boolean;
  /** Recall limits for this door. */
  recallLimits?: Partial<InjectionLimits>;
  /**
   * The agent this conversation belongs to (a sub-agent): every recall draws on its memory only.
   * Without it, a prompt that `@`-mentions a known agent recalls from that agent's memory.
   */
  agent?: string;
  onEvent?: (event: EngramEvent) => void;
}

/** What a completed turn did, when the host waits for it (`completeTurn`). */
export interface TurnOutcome {
  extraction?: ExtractionRun | { outcome: 'skipped'; reason: string };
  notes?: NotesUpdateOutcome;
  dream?: DreamOutcome;
}

/** One conversation on the runtime: today's operations, in the order an agent loop calls them. */
export interface EngramSession {
  readonly sessionId: string;
  readonly memoryDir: string;
  /** Instructions, memory guidance and the index. Computed once: the same bytes all session. */
  systemPrompt(options?: { afterCompaction?: boolean }): Promise<string>;
  /** Start recall for a new user message; the promise settles when recall is done. */
  beforeTurn(userText: string, history: readonly Message[]): Promise<void>;
  /** The recalled memories once ready (exactly once per turn), else nothing. Never waits. */
  attachments(history: readonly Message[]): string[];
  /** After a completed turn: extraction, notes and consolidation in the background. */
  afterTurn(conversation: readonly Message[] | ConversationPrefix): void;
  /** Compact the conversation with the session notes (or a summary, or truncation). */
  compact(history: readonly Message[]): Promise<SessionCompaction>;
  /** Wait (bounded) for background work, then stop. */
  close(options?: { timeoutMs?: number }): Promise<void>;
  /** One recall for this session, awaited and logged (hosts that live one call per process). */
  recall(request: RecallRequest): Promise<RecallResult>;
  /**
   * After a completed turn, awaited: extraction from the stored cursor, session notes by their
   * thresholds, then the consolidation gates (the Claude Code Stop hook).
   */
  completeTurn(
    conversation: ConversationPrefix,
    options?: { transcriptPath?: string },
  ): Promise<TurnOutcome>;
  /** Bring the session notes up to date now (`force` skips the thresholds; PreCompact). */
  updateNotes(
    conversation: ConversationPrefix,
    options?: { force?: boolean; signal?: AbortSignal },
  ): Promise<NotesUpdateOutcome>;
  readNotes(): Promise<SessionNotesView>;
}

/** One recall log, summarised. */
export interface RecallLogStats {
  log: string;
  stats: RecallStats;
  /** Lines that are not a recall's shape. */
  badLines: number;
}

/** A further layer's own recall log, summarised, with the layer it belongs to. */
export interface LayerRecallLogStats extends RecallLogStats {
  layer: MemoryLayerName;
}
