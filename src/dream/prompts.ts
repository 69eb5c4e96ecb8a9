/**
 * The instruction for a consolidation ("dream") pass. Written in our own words; each phase exists
 * because of a failure mode the seeds describe: duplicates written without looking (orient),
 * memories that drifted from the project (gather), corrections piled on top of wrong facts
 * (consolidate), an index that outgrew what is loaded (prune and index). Tests check the sections
 * are present, in this order, with action-first headings.
 */
import {
  INDEX_FILE,
  INDEX_LINE_MAX_CHARS,
  INDEX_MAX_BYTES,
  INDEX_MAX_LINES,
} from '../memdir/index.js';
import type { SessionRef } from './gates.js';

export const DREAM_PROMPT_HEADINGS = {
  intro: '# Consolidate the memory directory',
  rules: '## Work within these limits',
  orient: '## Phase 1 — Orient: learn what is already stored',
  gather: '## Phase 2 — Gather: find what changed since the last pass',
  consolidate: '## Phase 3 — Consolidate: fix memories where they live',
  layers: '## Keep facts about the person in the user directory',
  prune: '## Phase 4 — Prune and index: keep the index small and true',
  sessions: '## Sessions to review',
  finish: '## Finish with a short report',
} as const;

export interface DreamPromptOptions {
  memoryDir: string;
  sessions: readonly SessionRef[];
  /** Today, so relative dates can be written as absolute ones. */
  now: Date;
  /** The manifest of memories (one line each, revoked ones marked), if the caller has it. */
  manifest?: string;
  /** Older memories the manifest leaves out (the scan keeps the newest 200). */
  manifestOmitted?: number;
  /** The user layer's directory, when the pass may write there too. */
  userDir?: string;
  /** The manifest of the user layer's memories. */
  userManifest?: string;
}

function rulesSection(memoryDir: string, userDir: string | undefined): string {
  const where =
    userDir === undefined
      ? `inside \`${memoryDir}\``
      : `inside \`${memoryDir}\` and the user directory \`${userDir}\``;
  return `${DREAM_PROMPT_HEADINGS.rules}
- You may read any file, but you may only write ${where}, and only markdown files there. Writes anywhere else are refused.
- Nothing can be deleted. To retire a memory, revoke it (see Phase 3); engram keeps revoked files so no agent learns them again.
- Use the read-only tools (list, find, grep, read) to look around, and write or edit only memory files and ${INDEX_FILE}.
- Leave dot files in the directory alone: they are engram's own bookkeeping.`;
}

const ORIENT = `${DREAM_PROMPT_HEADINGS.orient}
- List the memory directory and read ${INDEX_FILE} to see what the index promises.
- Skim the topic files (their frontmatter first) so you know what exists before writing anything: a new file on a subject that already has one is the duplicate this pass is meant to remove.
- Note memories marked revoked: they were found wrong once. Do not bring their claims back.`;

const GATHER = `${DREAM_PROMPT_HEADINGS.gather}
- Look for new signal from the sessions listed below: decisions, corrections, preferences and facts that are still missing or now stated differently.
- Look hardest for memories that contradict the project as it is now: a file, flag, command or decision a memory names that no longer exists or changed. Check the project (list, grep, read) before you conclude anything; "I remember" is not evidence.
- Search transcripts narrowly with grep for things you already suspect matter. Never read a transcript from start to end: they are long and mostly noise.`;

function consolidateSection(today: string): string {
  return `${DREAM_PROMPT_HEADINGS.consolidate}
- Merge new signal into the existing file on that subject instead of creating a new one. When two files say the same thing, keep the better one, move anything the other adds into it, and revoke the other with \`superseded_by\` pointing at the one you kept.
- Rewrite relative dates as absolute ones ("yesterday", "next Friday" → a date; today is ${today}), so the memory still reads true later.
- When a memory is wrong, fix it at its source: rewrite it if the rule still holds on different grounds, or revoke it if it no longer holds. Never add a correction beside a wrong memory; two files that disagree are worse than one. A memory that checks out stays as it is.
- To revoke a memory, edit its frontmatter to add \`status: revoked\`, \`revoked: ${today}\`, \`reason: <one line saying why>\` and, when another file replaces it, \`superseded_by: <file.md>\`; then remove its line from ${INDEX_FILE}. Keep its body as the record of what was believed.
- Keep every memory's frontmatter complete and valid YAML: \`name\`, a one-line \`description\` (in double quotes when it contains a colon), and \`type\` (user, feedback, project or reference). A file whose frontmatter does not parse cannot be recalled.`;
}

/** Where a fact about the person lives, and how to move one there without losing it. */
function layersSection(userDir: string, userManifest: string): string {
  const listed = userManifest.trim() === '' ? '- (none yet)' : userManifest.trim();
  return `${DREAM_PROMPT_HEADINGS.layers}
The user directory \`${userDir}\` holds facts about the person that every project they open reads: the language they want replies in, their role and experience, how they like to work.
- A **user** memory in this project's directory that would hold just as well in any other repository belongs there: write it in the user directory, add its line to that directory's ${INDEX_FILE}, then revoke the project's copy with \`superseded_by\` set to the new file's absolute path.
- Anything that names this project, its code, its team, its services or its tools stays in the project directory. When in doubt, leave a memory where it is: a project fact in the user directory would mislead every other project.
- Tidy the user directory by the same rules as this one (merge, date, revoke, one index line per active memory in its own ${INDEX_FILE}).

Memories in the user directory now:
${listed}`;
}

const PRUNE = `${DREAM_PROMPT_HEADINGS.prune}
- ${INDEX_FILE} is loaded into every session and cut at ${INDEX_MAX_LINES} lines and ${INDEX_MAX_BYTES.toLocaleString('en-US')} bytes: bring it back well under both.
- One line per memory, \`- [Title](file.md) — hook\`, each under about ${INDEX_LINE_MAX_CHARS} characters. The index points; it never holds the memory itself.
- Every active memory file has exactly one line; remove lines that point at missing or revoked files.
- Where two files disagree, correct the wrong one rather than leaving both.`;

/**
 * Sessions named one by one in the prompt. A first pass over a long-used project can see thousands
 * of transcripts; listing them all would cost tens of thousands of tokens before any work.
 */
export const MAX_LISTED_SESSIONS = 100;

function sessionsSection(sessions: readonly SessionRef[]): string {
  const lines = sessions
    .slice(0, MAX_LISTED_SESSIONS)
    .map((s) => `- ${s.id} — ${s.path} (last active ${new Date(s.mtimeMs).toISOString()})`);
  const more = sessions.length - lines.length;
  const rest =
    more > 0
      ? `\n(${more} older session${more === 1 ? ' is' : 's are'} not listed; they sit beside these, so use find or grep there if the newest ones point at something older.)`
      : '';
  return `${DREAM_PROMPT_HEADINGS.sessions}
${sessions.length} session${sessions.length === 1 ? '' : 's'} since the last consolidation${more > 0 ? `, newest ${lines.length} listed` : ''}:
${lines.length > 0 ? lines.join('\n') : '- (none listed; work from the memory directory alone)'}${rest}`;
}

const FINISH = `${DREAM_PROMPT_HEADINGS.finish}
When the directory is consistent, reply in a few lines: what you merged, revoked, re-dated and re-indexed. If nothing needed changing, say so; an unchanged directory is a fine result.`;

function omitted(n: number | undefined): string {
  return n
    ? `\n(${n} older memor${n === 1 ? 'y is' : 'ies are'} not listed here; list the directory to see them.)`
    : '';
}

/** The prompt for one consolidation pass. Deterministic: same input, same bytes. */
export function buildDreamPrompt(options: DreamPromptOptions): string {
  const today = options.now.toISOString().slice(0, 10);
  const intro = `${DREAM_PROMPT_HEADINGS.intro}
This is a consolidation pass over the memory directory \`${options.memoryDir}\`: look back over recent sessions and leave the memories fewer, truer and easier to find. Work through the four phases in order.`;
  const manifest = options.manifest?.trim()
    ? `\n\nMemories on disk now (newest first):\n${options.manifest.trim()}${omitted(options.manifestOmitted)}`
    : '';
  return [
    `${intro}${manifest}`,
    rulesSection(options.memoryDir, options.userDir),
    ORIENT,
    GATHER,
    consolidateSection(today),
    ...(options.userDir === undefined
      ? []
      : [layersSection(options.userDir, options.userManifest ?? '')]),
    PRUNE,
    sessionsSection(options.sessions),
    FINISH,
  ].join('\n\n');
}

/** The system text of a consolidation run started without a host conversation to fork from. */
export const DREAM_SYSTEM_PROMPT =
  'You are the memory consolidation agent of engram. You keep a directory of markdown memories ' +
  'accurate and compact: one fact per file, an index that points at every active file, nothing ' +
  'duplicated, nothing known to be wrong left unmarked. You work with file tools only.';

export const FIND_TOOL_DESCRIPTION =
  'Find files by name under a folder (default: the memory root). "name" is a glob such as ' +
  '"*.jsonl" or "**/*.md". Returns one path per line, newest first, each with its modification ' +
  'time, so you can pick recent files without opening them.';

/** What the agent reads when it tries to write something other than a memory file. */
export function notAMemoryFileRefusal(path: string): string {
  return `Refused: ${path} is not a memory file. This task writes only markdown memory files and ${INDEX_FILE}, never dot files.`;
}
