/**
 * One notes update: check the thresholds, claim the running slot, let a forked agent (the host's
 * exact prefix, so the prompt cache serves it) edit the notes file and nothing else, then repair
 * the structure, flag self-references and advance the cursor. Runs after a host's turn; errors
 * become an outcome, never an exception into the host's main path.
 */

import type { EngramEnvironment } from '../config/index.js';
import { createFileTools, FILE_TOOL_DEFINITIONS } from '../llm/file-tools.js';
import { runForkedAgent } from '../llm/forked-agent.js';
import { singleFileConfinement, singleFileSandbox } from '../llm/sandbox.js';
import type { UsageAnchor } from '../llm/tokens.js';
import type { ConversationPrefix, LanguageModel, ToolImplementation, Usage } from '../llm/types.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { type Clock, systemClock } from '../util/clock.js';
import {
  DEFAULT_NOTES_LIMITS,
  findSelfReferences,
  measureNotes,
  type NotesLimits,
  type NotesSizeReport,
  type SelfReference,
} from './notes-checks.js';
import { restoreNotesStructure } from './notes-structure.js';
import { buildUpdateInstruction, descriptionLineOf } from './prompts.js';
import {
  ensureNotesFile,
  ensureSessionRecord,
  loadNotesTemplate,
  readCursor,
  readOptional,
  type StoredCursor,
  sessionPaths,
  writeCursor,
} from './session-store.js';
import {
  coveredIds,
  decideNotesUpdate,
  type NotesThresholds,
  type NotesUpdateDecision,
} from './thresholds.js';
import { tryStartUpdate } from './update-record.js';

export interface UpdateSessionNotesOptions {
  environment: EngramEnvironment;
  sessionId: string;
  model: LanguageModel;
  /** What the host last sent. With no tools, the file tools' definitions are sent instead. */
  prefix: ConversationPrefix;
  /** Skip the thresholds (a manual update). */
  force?: boolean;
  thresholds?: NotesThresholds;
  limits?: NotesLimits;
  anchor?: UsageAnchor;
  /** Executors for the prefix's tools; default engram's file tools rooted at the session folder. */
  tools?: ToolImplementation[];
  maxTurns?: number;
  signal?: AbortSignal;
  clock?: Clock;
}

export interface NotesUpdateOutcome {
  status: 'updated' | 'skipped' | 'busy' | 'failed';
  reason: string;
  notesPath: string;
  decision?: NotesUpdateDecision;
  /** Size report given to the updater (its reminder text included). */
  sizeBefore?: NotesSizeReport;
  sizeAfter?: NotesSizeReport;
  /** Structure repairs made after the update (empty when the updater kept the structure). */
  repairs: string[];
  /** Lines where the notes talk about the note-taking itself. */
  selfReferences: SelfReference[];
  fork?: { status: string; turns: number; toolCalls: number; refusedCalls: number; usage: Usage };
  cursor?: StoredCursor;
  warnings: string[];
}

export async function updateSessionNotes(
  options: UpdateSessionNotesOptions,
): Promise<NotesUpdateOutcome> {
  const paths = sessionPaths(options.environment, options.sessionId);
  const base = {
    notesPath: paths.notes,
    repairs: [],
    selfReferences: [],
    warnings: [] as string[],
  };
  const cursor = await readCursor(paths);
  const decision = decideNotesUpdate({
    messages: options.prefix.messages,
    cursor,
    thresholds: options.thresholds,
    anchor: options.anchor,
  });
  if (decision.kind === 'skip' && !options.force) {
    return { ...base, status: 'skipped', reason: decision.reason, decision };
  }
  if (options.prefix.messages.length === 0) {
    return { ...base, status: 'skipped', reason: 'no messages to take notes from', decision };
  }
  const template = await loadNotesTemplate(options.environment);
  if (template.warning) base.warnings.push(template.warning);
  await ensureNotesFile(paths, template);
  const clock = options.clock ?? systemClock;
  await ensureSessionRecord(paths, options.environment, clock);
  const slot = await tryStartUpdate(paths.running, { clock });
  if (!slot.started) {
    const age = Math.round((clock.now() - slot.running.startedAt) / 1000);
    return {
      ...base,
      status: 'busy',
      reason: `another update (pid ${slot.running.pid}) started ${age} s ago`,
      decision,
    };
  }
  try {
    return await runUpdate(options, paths, template.sections, cursor, decision, base);
  } finally {
    await slot.release();
  }
}

async function runUpdate(
  options: UpdateSessionNotesOptions,
  paths: ReturnType<typeof sessionPaths>,
  sections: Awaited<ReturnType<typeof loadNotesTemplate>>['sections'],
  cursor: StoredCursor,
  decision: NotesUpdateDecision,
  base: {
    notesPath: string;
    repairs: string[];
    selfReferences: SelfReference[];
    warnings: string[];
  },
): Promise<NotesUpdateOutcome> {
  const limits = options.limits ?? DEFAULT_NOTES_LIMITS;
  const current = (await readOptional(paths.notes)) ?? '';
  const sizeBefore = measureNotes(current, limits);
  const prefix: ConversationPrefix =
    options.prefix.tools.length > 0
      ? options.prefix
      : { ...options.prefix, tools: FILE_TOOL_DEFINITIONS };
  const result = await runForkedAgent({
    model: options.model,
    prefix,
    prompt: buildUpdateInstruction({
      notesPath: paths.notes,
      currentNotes: current,
      sizeReminder: sizeBefore.reminder,
      maxSectionTokens: limits.maxSectionTokens,
      maxTotalTokens: limits.maxTotalTokens,
    }),
    tools:
      options.tools ??
      createFileTools(paths.dir, { confinement: singleFileConfinement(paths.notes) }),
    canUseTool: singleFileSandbox(paths.notes),
    maxTurns: options.maxTurns ?? 5,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const fork = {
    status: result.status,
    turns: result.turns,
    toolCalls: result.toolCalls.length,
    refusedCalls: result.toolCalls.filter((c) => !c.allowed).length,
    usage: result.usage,
  };
  // Repair even after a failed run: a half-finished edit may still have broken the structure.
  const after = (await readOptional(paths.notes)) ?? '';
  const restored = restoreNotesStructure(after, sections);
  if (restored.repairs.length > 0)
    await writeFileAtomic(paths.notes, restored.text, { mode: 0o600 });
  const templateLines = sections.flatMap((s) => [`# ${s.title}`, descriptionLineOf(s)]);
  const selfReferences = findSelfReferences(restored.text, templateLines);
  const outcome = {
    ...base,
    decision,
    sizeBefore,
    sizeAfter: measureNotes(restored.text, limits),
    repairs: restored.repairs,
    selfReferences,
    fork,
  };
  if (result.status === 'error' || result.status === 'aborted') {
    // The cursor stays put, so the next turn's check tries again.
    return {
      ...outcome,
      status: 'failed',
      reason: result.error?.message ?? `updater ${result.status}`,
    };
  }
  const next: StoredCursor = {
    tokensAtLastUpdate: decision.contextTokens,
    ...coveredIds(options.prefix.messages),
    updatedAt: new Date((options.clock ?? systemClock).now()).toISOString(),
    updates: (cursor.updates ?? 0) + 1,
  };
  await writeCursor(paths, next);
  const reason =
    options.force && decision.kind === 'skip' ? `forced (${decision.reason})` : decision.reason;
  return { ...outcome, status: 'updated', reason, cursor: next };
}
