/** L2 session notes: a structured working memory kept during a session, and compaction with it. */
export * from './away-summary.js';
export * from './compact-session.js';
export * from './compaction.js';
export * from './cut-points.js';
export * from './keep-policy.js';
export * from './notes-checks.js';
export * from './notes-structure.js';
export * from './prompts.js';
export * from './read-notes.js';
export * from './session-notes.js';
export * from './session-store.js';
export * from './thresholds.js';
export * from './update-notes.js';
export * from './update-record.js';
