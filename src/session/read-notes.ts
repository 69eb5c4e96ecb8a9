/** Read a session's notes with what a person or host needs to judge them. */
import type { EngramEnvironment } from '../config/index.js';
import { DEFAULT_NOTES_LIMITS, measureNotes, type NotesSizeReport } from './notes-checks.js';
import { isTemplateOnly } from './notes-structure.js';
import {
  loadNotesTemplate,
  readCursor,
  readOptional,
  type StoredCursor,
  sessionPaths,
} from './session-store.js';
import {
  type RunningRecord,
  readRunningRecord,
  type WaitForNotesOptions,
  type WaitResult,
  waitForNotes,
} from './update-record.js';

export interface SessionNotesView {
  sessionId: string;
  path: string;
  exists: boolean;
  content: string;
  templateOnly: boolean;
  size: NotesSizeReport;
  cursor: StoredCursor;
  running?: RunningRecord;
}

export async function readSessionNotes(
  environment: EngramEnvironment,
  sessionId: string,
): Promise<SessionNotesView> {
  const paths = sessionPaths(environment, sessionId);
  const [content, cursor, template, running] = await Promise.all([
    readOptional(paths.notes),
    readCursor(paths),
    loadNotesTemplate(environment),
    readRunningRecord(paths.running),
  ]);
  const text = content ?? '';
  return {
    sessionId: paths.sessionId,
    path: paths.notes,
    exists: content !== undefined,
    content: text,
    templateOnly: isTemplateOnly(text, template.sections, template.text),
    size: measureNotes(text, DEFAULT_NOTES_LIMITS),
    cursor,
    ...(running ? { running } : {}),
  };
}

/** `waitForNotes` for a session by id: at most 15 s, and not at all for an update older than 60 s. */
export function waitForSessionNotes(
  environment: EngramEnvironment,
  sessionId: string,
  options: WaitForNotesOptions = {},
): Promise<WaitResult> {
  return waitForNotes(sessionPaths(environment, sessionId).running, options);
}
