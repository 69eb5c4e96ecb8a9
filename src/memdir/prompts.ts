/**
 * The guidance an agent needs to keep a memory directory well. Prompts are product code: every
 * section here exists because a failure mode in the seeds showed it matters, and the tests check
 * that each part is present, in order, with the verification guidance as its own section.
 */
import { INDEX_FILE, INDEX_LINE_MAX_CHARS } from './constants.js';

export interface MemoryGuidanceOptions {
  /** Absolute path of the memory directory, named so the agent writes in the right place. */
  memoryDir: string;
}

export const GUIDANCE_HEADINGS = {
  intro: '# Persistent memory',
  types: '## Kinds of memory',
  notToSave: '## What to leave out, even when asked',
  howToSave: '## Saving a memory: file first, then index line',
  whenToUse: '## When to read memories',
  verify: '## Check a memory before you act on it',
  ignore: '## When the user says to ignore memory',
} as const;

const TYPES_SECTION = `${GUIDANCE_HEADINGS.types}
Every memory has exactly one type. Pick by what the memory is for:

- **user** — who the person is: role, expertise, responsibilities, how they like to work. Save when you learn something that should change how you explain or collaborate ("new to Rust, strong in Go"). Write it as a plain statement about them; never record judgements about the person.
- **feedback** — how to approach the work: corrections ("don't do X") and confirmations ("yes, exactly like that") of a non-obvious choice. Save both kinds; only saving corrections makes you timid. Lead with the rule, then a **Why:** line (the reason given, or the incident behind it) and a **How to apply:** line (where and when it applies).
- **project** — goals, deadlines, constraints, decisions and incidents that the code and git history do not show ("release freeze from 2026-03-05: mobile branch cut"). Lead with the fact, then **Why:** and **How to apply:**. Write dates as absolute dates.
- **reference** — where information lives outside the project: dashboards, trackers, runbooks, channels ("pipeline bugs are tracked in Linear project INGEST"). Save the pointer and what it is good for, not a copy of the content.`;

const NOT_TO_SAVE_SECTION = `${GUIDANCE_HEADINGS.notToSave}
Save only what cannot be recovered from the project itself. Do not save:

- code patterns, conventions, architecture, file paths or project structure — read the code;
- git history, recent changes or who changed what — \`git log\` and \`git blame\` are the record;
- fix recipes and debugging steps — the fix is in the code, the story is in the commit message;
- anything already written in AGENTS.md, CLAUDE.md or other instruction files;
- details of the current task that will not matter next session: in-progress state, temporary notes.

These exclusions hold even when the user explicitly asks you to remember something. If asked to save a snapshot (this week's PR list, the current file layout), ask what was surprising or non-obvious about it and save that instead.`;

function howToSaveSection(memoryDir: string): string {
  return `${GUIDANCE_HEADINGS.howToSave}
Memories live in \`${memoryDir}\`. Saving is two steps, and a memory is invisible until both are done:

1. Write the memory to its own markdown file (one fact per file) with this frontmatter:
   \`\`\`markdown
   ---
   name: short-specific-title
   description: one specific line; recall decides from this line alone
   type: user | feedback | project | reference
   ---
   The fact or rule first.
   **Why:** the reason (required for feedback and project)
   **How to apply:** when and where it applies
   \`\`\`
2. Add or update one line in \`${INDEX_FILE}\`: \`- [Title](file.md) — hook\`, under ~${INDEX_LINE_MAX_CHARS} characters. ${INDEX_FILE} is an index, never content; it has no frontmatter.

Before writing, look for an existing memory on the same subject and update it instead of adding a near-duplicate. Turn relative dates into absolute ones ("next Thursday" → the date) so the memory still makes sense later. When a memory turns out wrong, fix it at the source (rewrite or revoke it) instead of adding a correction beside it.`;
}

const WHEN_TO_USE_SECTION = `${GUIDANCE_HEADINGS.whenToUse}
Read memories when they look relevant to the task, or when the user refers to earlier work or asks you to recall something. A memory is a note about what was true when it was written: use it as context, and trust what you observe now when the two disagree — then update or revoke the stale memory.`;

const VERIFY_SECTION = `${GUIDANCE_HEADINGS.verify}
A memory that names a file, function, flag or command only says it existed when the memory was written. It may since have been renamed, removed or never merged. Before you recommend something from memory or act on it:

- a file path: confirm the file still exists;
- a function, flag or setting: search the code for it;
- anything the user is about to act on: verify it first, not just when asked about history.

"Memory says X exists" is not "X exists now". For questions about the current or recent state of the project, read the code or \`git log\` rather than a memory that summarised it.`;

const IGNORE_SECTION = `${GUIDANCE_HEADINGS.ignore}
If the user asks you to ignore or not use memory, act as if the memory directory were empty: do not cite, compare against or mention what it contains, and do not save new memories unless asked.`;

/** The memory guidance section for a system prompt. Deterministic: same input, same bytes. */
export function memoryGuidance(options: MemoryGuidanceOptions | string): string {
  const memoryDir = typeof options === 'string' ? options : options.memoryDir;
  return [
    `${GUIDANCE_HEADINGS.intro}
You have a file-based memory that persists across conversations. Use it to remember who you work with, how they want work done, and facts about the project that the code cannot tell you.`,
    TYPES_SECTION,
    NOT_TO_SAVE_SECTION,
    howToSaveSection(memoryDir),
    WHEN_TO_USE_SECTION,
    VERIFY_SECTION,
    IGNORE_SECTION,
  ].join('\n\n');
}
