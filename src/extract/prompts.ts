/**
 * The instruction given to the background extraction agent, appended as a new user message after
 * the main conversation. Every section answers a failure seen in production memory systems:
 * saving what the code already says, burning the turn budget on
 * verification, duplicating existing memories, forgetting the index line, recording only
 * corrections. The tests check that each section is present, in this order, with a header that
 * tells the agent what to do.
 */
import { USER_LAYER_FOLDER } from '../config/memory-chain.js';
import { INDEX_FILE, INDEX_LINE_MAX_CHARS } from '../memdir/constants.js';
import type { LayeredPath } from './memory-writes.js';

export interface ExtractionPromptOptions {
  /** How many of the latest messages are new since the last extraction. */
  newMessageCount: number;
  /** Absolute memory directory. */
  memoryDir: string;
  /** The manifest of existing memories (`formatManifest`), '' when there are none. */
  manifest: string;
  /** Today's date as YYYY-MM-DD, so relative dates can be made absolute. */
  today: string;
  /** The host's tools include the Anthropic memory tool, whose paths start at `/memories`. */
  memoryTool?: boolean;
  /**
   * The user layer's directory, when the agent may save facts about the person there. Without
   * it the prompt speaks of one directory only.
   */
  userDir?: string;
  /** The manifest of memories already in the user directory, '' when there are none. */
  userManifest?: string;
}

export const EXTRACTION_HEADINGS = {
  intro: '# Update the persistent memory from this conversation',
  scope: (n: number) => `## Use only the last ~${n} messages`,
  turns: '## Read in one turn, write in the next',
  gate: '## Save only what the project cannot tell you',
  types: '## Pick one of the four types',
  layers: '## Save facts about the person in the user directory',
  save: '## Save in two steps: the file, then its index line',
  existing: '## Update existing memories instead of adding duplicates',
  revoke: '## Revoke a wrong memory, never delete it',
  silent: '## Keep this extraction out of the memories',
  manifest: '## Check these memories before writing',
} as const;

function introSection(n: number): string {
  return `${EXTRACTION_HEADINGS.intro}
You are now the memory extraction agent for the conversation above. Nobody is waiting for a reply: your only output is changes to the memory directory. Look at the last ~${n} messages, decide whether they contain anything worth remembering in later conversations, and save it. Saving nothing is a good outcome when nothing qualifies.`;
}

function scopeSection(n: number): string {
  return `${EXTRACTION_HEADINGS.scope(n)}
Work from what was said in the last ~${n} messages and nothing else. Do not investigate or verify it: no searching the source, no reading code to confirm a pattern, no git commands. You are recording what the user said and decided, which is true as said; checking the code is the job of whoever later reads the memory.`;
}

function turnsSection(memoryDir: string, memoryTool: boolean, userDir?: string): string {
  const memoryToolNote = memoryTool
    ? userDir === undefined
      ? ' With the memory tool, `/memories` stands for this directory: `/memories/<name>.md` is a memory file.'
      : ` With the memory tool, \`/memories\` stands for the project directory and \`/memories/${USER_LAYER_FOLDER}\` for the user directory: \`/memories/<name>.md\` is a project memory, \`/memories/${USER_LAYER_FOLDER}/<name>.md\` a user memory.`
    : '';
  const where =
    userDir === undefined
      ? `inside \`${memoryDir}\`; use absolute paths there.`
      : `inside the project directory \`${memoryDir}\` and the user directory \`${userDir}\`; use absolute paths there.`;
  return `${EXTRACTION_HEADINGS.turns}
Your turn budget is small. In your first turn, read every memory file you might update, all at once. In your second turn, issue every write and edit, all at once. Do not alternate reads and writes. When nothing needs saving, stop right away without calling a tool.

You may read any file, but you may only create or change files ${where}${memoryToolNote} Deleting files is refused.`;
}

const GATE_SECTION = `${EXTRACTION_HEADINGS.gate}
A memory is worth keeping only if it is not obvious, will still matter in a later conversation, and will not be stale within days. If the answer to "could this be looked up next time?" is yes, do not save it. So leave out:

- code patterns, conventions, architecture, file paths and project layout (the code shows them);
- git history, recent changes and who did what (git is the record);
- fixes and debugging recipes (the fix is in the code, the story in the commit);
- anything the instruction files (AGENTS.md, CLAUDE.md) already say;
- the state of the current task: work in progress, temporary plans, this conversation's details.

This holds even when the user asked to remember something. A request to save a snapshot (this week's PRs, a list of changes, the current layout) is not a reason to save the snapshot; save only what the user said was surprising or non-obvious about it, and if they said nothing of the kind, save nothing.`;

const TYPES_SECTION = `${EXTRACTION_HEADINGS.types}
- **user**: who the user is, their role, expertise and how they like to work.
- **feedback**: guidance on how to do the work. Save corrections ("stop doing X") and also confirmations: a plain "yes, exactly like that" after a non-obvious choice is a rule worth keeping. Confirmations are easy to miss; look for them, because a memory of only corrections makes the agent timid.
- **project**: goals, deadlines, decisions, constraints and incidents that neither the code nor git shows.
- **reference**: where something lives outside the project (a tracker, a dashboard, a runbook) and what it is for.`;

function saveSection(memoryDir: string, today: string): string {
  return `${EXTRACTION_HEADINGS.save}
1. Write one fact per file, \`${memoryDir}/<short-kebab-name>.md\`, with this frontmatter:
   \`\`\`markdown
   ---
   name: short specific title
   description: one specific line; recall decides from this line alone
   type: user | feedback | project | reference
   ---
   The rule or fact first.
   **Why:** the reason the user gave, or the incident behind it
   **How to apply:** when and where it applies
   \`\`\`
   **Why:** and **How to apply:** are required for feedback and project memories; they let a later reader tell when the memory stops applying.
2. Add one line for it to \`${memoryDir}/${INDEX_FILE}\`: \`- [Title](file.md) — hook\`, under ~${INDEX_LINE_MAX_CHARS} characters. ${INDEX_FILE} is only an index: no frontmatter, no memory content. A file without its index line is invisible.

Write dates as absolute dates: today is ${today}, so "next Thursday" becomes the actual date.`;
}

/**
 * Where a fact goes when there are two directories. A project fact saved to the user directory
 * follows the person into every other repository, so the rule leans to the project.
 */
function layersSection(memoryDir: string, userDir: string, userManifest: string): string {
  const listed = userManifest.trim() === '' ? '(none yet)' : userManifest.trim();
  return `${EXTRACTION_HEADINGS.layers}
There are two memory directories. The project directory \`${memoryDir}\` is for this project: its goals, decisions, people, tools and how its work is done. The user directory \`${userDir}\` is for the person, and every project they open reads it: the language they want replies in, their role and experience, how they like to work and to be spoken to.

Save a memory in the user directory only when it is a **user** memory and it would hold just as well in a different repository: "answer me in Chinese", "I am a backend engineer, new to React", "keep explanations short". Anything that names this project, its code, its team, its services or its tools stays in the project directory, even when it sounds like a preference ("in this repo use pnpm" is project feedback). When you are not sure, use the project directory: a project fact in the user directory would leak into projects where it is wrong.

Each directory has its own ${INDEX_FILE}: the index line of a file goes in the ${INDEX_FILE} of the directory that holds it. Update or revoke a memory in the directory it is already in.

Memories already in the user directory:
${listed}`;
}

const EXISTING_SECTION = `${EXTRACTION_HEADINGS.existing}
The list below shows every memory that already exists, so you do not need to list the directory. Before creating a file, check it: when a memory on the same subject exists, read it and update it instead of creating a second one. Memories marked [revoked] were found to be wrong; do not save their content again.`;

const REVOKE_SECTION = `${EXTRACTION_HEADINGS.revoke}
When the conversation shows that an existing memory is wrong, keep the file and mark it: add \`status: revoked\`, \`revoked: <today's date>\`, \`reason: <one line>\` and, when a new memory replaces it, \`superseded_by: <new-file.md>\` to its frontmatter, and remove its line from ${INDEX_FILE}. Never delete a memory file and never patch a correction on top of a wrong memory.`;

const SILENT_SECTION = `${EXTRACTION_HEADINGS.silent}
Write each memory as a plain statement of the fact or rule. Never mention this extraction, that you are an agent saving memories, or which conversation a memory came from.`;

/** The extraction instruction. Deterministic: the same options give the same bytes. */
export function buildExtractionPrompt(options: ExtractionPromptOptions): string {
  const n = Math.max(1, options.newMessageCount);
  const manifest = options.manifest.trim() === '' ? '(none yet)' : options.manifest.trim();
  return [
    introSection(n),
    scopeSection(n),
    turnsSection(options.memoryDir, options.memoryTool === true, options.userDir),
    GATE_SECTION,
    TYPES_SECTION,
    ...(options.userDir === undefined
      ? []
      : [layersSection(options.memoryDir, options.userDir, options.userManifest ?? '')]),
    saveSection(options.memoryDir, options.today),
    EXISTING_SECTION,
    REVOKE_SECTION,
    SILENT_SECTION,
    `${EXTRACTION_HEADINGS.manifest}\n${manifest}`,
  ].join('\n\n');
}

/**
 * "Saved 1 memory: a.md" / "Saved 2 memories: a.md, b.md". Index updates are never listed. When
 * a file went to the user layer, every file names its layer, and user files their path:
 * "Saved 2 memories: a.md (project), b.md (user: /home/me/.engram/user/memory/b.md)".
 */
export function formatSavedNotice(files: readonly (string | LayeredPath)[]): string {
  const noun = files.length === 1 ? 'memory' : 'memories';
  const layered = files.some((f) => typeof f !== 'string' && f.layer !== 'project');
  const named = files.map((f) => {
    if (typeof f === 'string') return f;
    if (!layered) return f.file;
    return f.layer === 'project' ? `${f.file} (project)` : `${f.file} (${f.layer}: ${f.path})`;
  });
  return `Saved ${files.length} ${noun}: ${named.join(', ')}`;
}
