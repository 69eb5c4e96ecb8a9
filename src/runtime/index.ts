/**
 * The engram runtime: one composition root every door runs on. `createEngram` resolves the
 * configuration, memory directory, model, clock and stores once; `engram.openSession` hands out a
 * session with the agent-loop operations.
 */
export { createEngram } from './create-engram.js';
export { indexSection, notesSection, SYSTEM_PROMPT_HEADINGS } from './prompts.js';
export { DEFAULT_CLOSE_TIMEOUT_MS } from './session.js';
export { projectSessionLister } from './sessions.js';
export {
  assembleSystemPrompt,
  buildSystemPrompt,
  type SystemPromptParts,
} from './system-prompt.js';
export type {
  Engram,
  EngramDoctorOptions,
  EngramEvent,
  EngramOptions,
  EngramSession,
  OpenSessionOptions,
  RecallRequest,
  TurnOutcome,
} from './types.js';
