/**
 * L2 session notes: a structured working memory kept during a session, and compaction with it.
 * Named exports only: generic helpers (file reading, clocks, file names) stay internal so the root
 * entry's `export *` of every layer cannot collide.
 */
export { type AwaySummaryOptions, awaySummary, renderRecentMessages } from './away-summary.js';
export {
  type CompactSessionOptions,
  compactSession,
  rebasedCursor,
  type SessionCompaction,
} from './compact-session.js';
export {
  type CompactionMethod,
  type CompactionResult,
  compactByTruncation,
  compactWithNotes,
  compactWithSummary,
  type NotesCompactionInput,
} from './compaction.js';
export { replyKey, safeCuts } from './cut-points.js';
export {
  chooseKeptRange,
  chooseNewestWithinBudget,
  DEFAULT_KEEP_LIMITS,
  type KeepLimits,
  type KeptRange,
} from './keep-policy.js';
export {
  DEFAULT_NOTES_LIMITS,
  findSelfReferences,
  measureNotes,
  type NotesLimits,
  type NotesSizeReport,
  type SelfReference,
  truncateNotesForCompaction,
} from './notes-checks.js';
export {
  isTemplateOnly,
  parseTemplate,
  restoreNotesStructure,
  type StructureCheck,
} from './notes-structure.js';
export {
  DEFAULT_NOTES_SECTIONS,
  type NotesSectionSpec,
  renderNotesTemplate,
} from './prompts.js';
export { readSessionNotes, type SessionNotesView, waitForSessionNotes } from './read-notes.js';
export {
  createSessionNotes,
  type SessionNotes,
  type SessionNotesOptions,
} from './session-notes.js';
export {
  checkSessionId,
  loadNotesTemplate,
  type NotesTemplate,
  readSessionRecord,
  type SessionPaths,
  type SessionRecord,
  type StoredCursor,
  sessionMemoryRoot,
  sessionPaths,
} from './session-store.js';
export {
  boundaryIndexOf,
  DEFAULT_NOTES_THRESHOLDS,
  decideNotesUpdate,
  type NotesCursor,
  type NotesThresholds,
  type NotesUpdateDecision,
  type NotesUpdateInput,
} from './thresholds.js';
export {
  type NotesUpdateOutcome,
  type UpdateSessionNotesOptions,
  updateSessionNotes,
} from './update-notes.js';
export {
  decideWait,
  type WaitDecision,
  type WaitForNotesOptions,
  type WaitResult,
  waitForNotes,
} from './update-record.js';
