/**
 * Where a session's notes live and the thin I/O around them:
 * `$ENGRAM_HOME/session-memory/<session id>/notes.md` (+ `state.json` for the update cursor),
 * and `$ENGRAM_HOME/session-memory/template.md` for a user template that replaces the default.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { EngramEnvironment } from '../config/index.js';
import { engramHome, projectRoot } from '../config/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { type Clock, systemClock } from '../util/clock.js';
import { EngramError, errnoCode, isEngramError } from '../util/errors.js';
import { openRegularFile } from '../util/regular-file.js';
import { parseTemplate } from './notes-structure.js';
import { DEFAULT_NOTES_SECTIONS, type NotesSectionSpec, renderNotesTemplate } from './prompts.js';
import type { NotesCursor } from './thresholds.js';

export const SESSION_MEMORY_DIR = 'session-memory';
export const NOTES_FILE = 'notes.md';
export const STATE_FILE = 'state.json';
export const TEMPLATE_FILE = 'template.md';
export const SESSION_RECORD_FILE = 'session.json';

export interface SessionPaths {
  sessionId: string;
  dir: string;
  notes: string;
  state: string;
  /** The running-update record (see update-record.ts). */
  running: string;
}

/** Session ids become folder names: refuse anything that could leave the folder. */
export function checkSessionId(sessionId: string): string {
  const id = sessionId.trim();
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/.test(id) || id.includes('..')) {
    throw new EngramError(
      'invalid_input',
      `Invalid session id "${sessionId}": use letters, digits, ".", "_" and "-" (a UUID works)`,
    );
  }
  return id;
}

export function sessionMemoryRoot(environment: EngramEnvironment): string {
  return join(engramHome(environment), SESSION_MEMORY_DIR);
}

export function sessionPaths(environment: EngramEnvironment, sessionId: string): SessionPaths {
  const id = checkSessionId(sessionId);
  const dir = join(sessionMemoryRoot(environment), id);
  return {
    sessionId: id,
    dir,
    notes: join(dir, NOTES_FILE),
    state: join(dir, STATE_FILE),
    running: join(dir, 'update-running.json'),
  };
}

export interface NotesTemplate {
  sections: NotesSectionSpec[];
  /** The text a new notes file starts from. */
  text: string;
  source: 'default' | 'user';
  path?: string;
  warning?: string;
}

export function defaultNotesTemplate(): NotesTemplate {
  const sections = [...DEFAULT_NOTES_SECTIONS];
  return { sections, text: renderNotesTemplate(sections), source: 'default' };
}

/** The user template if there is a usable one, else the default (with a warning when unusable). */
export async function loadNotesTemplate(environment: EngramEnvironment): Promise<NotesTemplate> {
  const path = join(sessionMemoryRoot(environment), TEMPLATE_FILE);
  // The user's own template may be a link (a dotfiles checkout); engram's files never are.
  const text = await readOptional(path, { followLinks: true });
  if (text === undefined) return defaultNotesTemplate();
  const sections = parseTemplate(text);
  if (sections.length === 0) {
    return {
      ...defaultNotesTemplate(),
      warning: `${path} has no "# " section headers; using the default notes template`,
    };
  }
  return { sections, text: text.endsWith('\n') ? text : `${text}\n`, source: 'user', path };
}

/**
 * A session file engram keeps (notes, cursor, records), or undefined when it is missing. Only a
 * regular file is read, opened O_NONBLOCK (a FIFO there fails at once instead of holding the read
 * forever) and, unless `followLinks`, O_NOFOLLOW: notes go back into the model's context after a
 * compaction, so a notes file swapped for a link must not carry another file there.
 */
export async function readOptional(
  path: string,
  options: { followLinks?: boolean } = {},
): Promise<string | undefined> {
  try {
    const { handle } = await openRegularFile(path, { followLinks: options.followLinks === true });
    try {
      return await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return undefined;
    if (isEngramError(error, 'not_regular_file')) throw error;
    throw new EngramError('io_error', `Cannot read ${path}: ${errnoCode(error) ?? error}`, {
      cause: error,
    });
  }
}

/** Create the session folder and, if absent, the notes file from the template. */
export async function ensureNotesFile(
  paths: SessionPaths,
  template: NotesTemplate,
): Promise<string> {
  await mkdir(paths.dir, { recursive: true, mode: 0o700 });
  try {
    // 'wx': never overwrite notes another process created a moment ago.
    await writeFile(paths.notes, template.text, { flag: 'wx', mode: 0o600 });
    return template.text;
  } catch (error) {
    if (errnoCode(error) !== 'EEXIST') throw error;
    return (await readOptional(paths.notes)) ?? '';
  }
}

export interface StoredCursor extends NotesCursor {
  updatedAt?: string;
  updates?: number;
}

export async function readCursor(paths: SessionPaths): Promise<StoredCursor> {
  const text = await readOptional(paths.state);
  if (text === undefined) return {};
  try {
    const data = JSON.parse(text) as StoredCursor;
    return typeof data === 'object' && data !== null ? data : {};
  } catch {
    // A corrupt cursor only costs one early update; never block the session on it.
    return {};
  }
}

export async function writeCursor(paths: SessionPaths, cursor: StoredCursor): Promise<void> {
  await mkdir(paths.dir, { recursive: true, mode: 0o700 });
  await writeFileAtomic(paths.state, `${JSON.stringify(cursor, null, 2)}\n`, { mode: 0o600 });
}

/**
 * Which project a session worked in, written once when its folder is created. Session folders sit
 * in one machine-wide place, so consolidation reads this to count only its own project's sessions.
 */
export interface SessionRecord {
  sessionId: string;
  projectRoot: string;
  cwd: string;
  createdAt: string;
}

export async function ensureSessionRecord(
  paths: SessionPaths,
  environment: EngramEnvironment,
  clock: Clock = systemClock,
): Promise<void> {
  const record: SessionRecord = {
    sessionId: paths.sessionId,
    projectRoot: projectRoot(environment),
    cwd: environment.cwd,
    createdAt: new Date(clock.now()).toISOString(),
  };
  await mkdir(paths.dir, { recursive: true, mode: 0o700 });
  try {
    // 'wx': the first writer names the project; a session does not move between projects.
    await writeFile(join(paths.dir, SESSION_RECORD_FILE), `${JSON.stringify(record, null, 2)}\n`, {
      flag: 'wx',
      mode: 0o600,
    });
  } catch (error) {
    if (errnoCode(error) !== 'EEXIST') throw error;
  }
}

/** The record of a session folder, or undefined when it has none (or it is unreadable). */
export async function readSessionRecord(folder: string): Promise<SessionRecord | undefined> {
  const text = await readOptional(join(folder, SESSION_RECORD_FILE)).catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const data = JSON.parse(text) as Partial<SessionRecord>;
    return typeof data?.projectRoot === 'string' ? (data as SessionRecord) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * How far extraction has read a session: the id of the last message already considered. One
 * store for every door (library sessions, the Stop hook, its detached run), kept per session in
 * `$ENGRAM_HOME/hooks/cursors/<id>.json` (the folder keeps the name it had when only hooks used it).
 * It moves only when a run succeeds, so a failed or killed run is retried next time.
 */
export interface ExtractionCursor {
  cursor?: string;
  transcriptPath?: string;
  updatedAt?: string;
  /** The last failed run, so the same failure is not repeated every turn (extract/backoff.ts). */
  failure?: {
    reason: string;
    windowEnd: string;
    config: string;
    count: number;
    announced?: boolean;
  };
}

export function extractionCursorPath(environment: EngramEnvironment, sessionId: string): string {
  return join(engramHome(environment), 'hooks', 'cursors', `${checkSessionId(sessionId)}.json`);
}

export async function readExtractionCursor(path: string): Promise<ExtractionCursor> {
  const text = await readOptional(path).catch(() => undefined);
  if (text === undefined) return {};
  try {
    const data: unknown = JSON.parse(text);
    return typeof data === 'object' && data !== null ? (data as ExtractionCursor) : {};
  } catch {
    return {}; // a corrupt cursor costs one re-read of the session, never the session itself
  }
}

export async function writeExtractionCursor(path: string, cursor: ExtractionCursor): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFileAtomic(path, `${JSON.stringify(cursor, null, 2)}\n`, { mode: 0o600 });
}
