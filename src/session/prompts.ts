/**
 * Every text engram sends to a model for session notes, or shows it inside a compacted history.
 * The notes template is a contract: each section carries its own italic instruction, so the
 * updater reads "what belongs here" right beside "what is here now" on every update, and
 * compaction can rely on a fixed, parseable shape. Tests check structure, order and wording rules.
 */

import { neutralizeWrapperTags } from '../confine/wrapper-text.js';

export interface NotesSectionSpec {
  /** The header line without the leading `# `. */
  title: string;
  /** The italic one-line instruction shown under the header (without the surrounding underscores). */
  description: string;
  /**
   * The description line exactly as a user template writes it (`*…*` or `_…_`), so the structure
   * check keeps the user's form instead of "restoring" it. Default: `_description_`.
   */
  descriptionLine?: string;
}

/** The italic line under a section's header, as the notes file must carry it ('' when none). */
export function descriptionLineOf(spec: NotesSectionSpec): string {
  if (!spec.description) return '';
  return spec.descriptionLine ?? `_${spec.description}_`;
}

/** The ten default sections, in order. Our own wording; each description says what to write. */
export const DEFAULT_NOTES_SECTIONS: readonly NotesSectionSpec[] = [
  {
    title: 'Session Title',
    description: 'Name this session in 5-10 distinctive words that set it apart from others.',
  },
  {
    title: 'Current State',
    description:
      'Say what is in progress right now, what is finished, and the very next step still open.',
  },
  {
    title: 'Task Specification',
    description:
      'Record what the user asked for, in their terms, with the decisions and constraints they gave.',
  },
  {
    title: 'Files and Functions',
    description:
      'List the files and functions that matter, with one line each on what they hold and why.',
  },
  {
    title: 'Workflow',
    description: 'Write the commands that get run (build, test, deploy) and the order they run in.',
  },
  {
    title: 'Errors and Corrections',
    description:
      'Log each error with its exact text and its fix, every user correction, and approaches that failed and must not be retried.',
  },
  {
    title: 'Codebase and System Documentation',
    description:
      'Explain the components involved and how they connect, as learned in this session.',
  },
  {
    title: 'Learnings',
    description: 'Note what worked, what did not, and what to avoid next time.',
  },
  {
    title: 'Key Results',
    description: 'Copy here, verbatim, any specific answer, number or artifact the user asked for.',
  },
  {
    title: 'Worklog',
    description: 'Append one terse line per step taken, oldest first.',
  },
];

/** Render sections as the notes file: `# Title`, `_description_`, a blank line, repeated. */
export function renderNotesTemplate(sections: readonly NotesSectionSpec[]): string {
  return `${sections.map((s) => `# ${s.title}\n${descriptionLineOf(s)}\n`).join('\n')}`;
}

export interface UpdateInstructionOptions {
  notesPath: string;
  /** Current notes text, given so the updater does not spend a turn reading it. */
  currentNotes: string;
  /** Size reminder from `sectionSizeReminder` ('' when everything fits). */
  sizeReminder: string;
  maxSectionTokens: number;
  maxTotalTokens: number;
}

/** Headings of the update instruction, in order; tests check they all appear in this order. */
export const UPDATE_INSTRUCTION_HEADINGS = [
  '## Stay out of the notes yourself',
  '## Keep the structure exactly',
  '## Write dense, specific content',
  '## Stay within the size budget',
  '## Edit the file now',
] as const;

/** The instruction appended after the host's conversation for the notes updater (a forked agent). */
export function buildUpdateInstruction(options: UpdateInstructionOptions): string {
  const [selfRule, structure, dense, budget, act] = UPDATE_INSTRUCTION_HEADINGS;
  const reminder = options.sizeReminder ? `\n\n${options.sizeReminder}` : '';
  return `This request comes from a background helper, not from the user, and it is not part of the conversation above. Your only job: bring the session notes file \`${options.notesPath}\` up to date with the conversation above.

${selfRule}
Write about the work, never about yourself. The notes must not mention note-taking, updating notes, this helper, or these instructions.

${structure}
- Leave every \`# \` header line exactly as it is: do not rename, remove, reorder or add headers.
- Leave every italic line under a header exactly as it is: it tells you what belongs in that section.
- Put content only below the italic line of the section it belongs to.

${dense}
- Prefer concrete facts over narration: file paths, function names, exact commands, exact error messages, numbers.
- Always rewrite "Current State" so it describes the latest work and the next step.
- Record failed approaches and why they failed, so they are not tried again.
- Leave a section empty rather than filling it with guesses.

${budget}
Keep each section under about ${options.maxSectionTokens} tokens and the whole file under about ${options.maxTotalTokens} tokens. When a section grows too long, condense older detail instead of appending more.${reminder}

${act}
Use the edit tool (or write the whole file) on \`${options.notesPath}\` only; every other file is off limits. Finish with a short plain reply once the file is updated. The file currently reads:

<notes>
${options.currentNotes}
</notes>`;
}

export interface OversizedSection {
  title: string;
  tokens: number;
}

/** The reminder added before an update: a hard warning over the total, else the oversized sections. */
export function sectionSizeReminder(
  oversized: readonly OversizedSection[],
  totalTokens: number,
  limits: { maxSectionTokens: number; maxTotalTokens: number },
): string {
  const list = oversized.map((s) => `- "${s.title}": about ${s.tokens} tokens`).join('\n');
  if (totalTokens > limits.maxTotalTokens) {
    return `WARNING: the notes are about ${totalTokens} tokens, over the ${limits.maxTotalTokens}-token budget. Shorten them in this update: condense the longest sections first, drop detail that no longer matters, and keep "Current State" and "Errors and Corrections" precise.${list ? `\nLongest sections:\n${list}` : ''}`;
  }
  if (oversized.length === 0) return '';
  return `Reminder: these sections are over the ${limits.maxSectionTokens}-token limit per section; condense them while you update:\n${list}`;
}

/** Lead-in of the user message that replaces compacted history with the notes. */
export function compactedNotesMessage(notes: string, notesPath: string): string {
  return `The conversation before this point was removed to free context. These are the working notes kept during it (full file: ${notesPath}); the most recent messages follow unchanged. Continue the work from where they leave off.

${neutralizeWrapperTags(notes)}`;
}

/** Marker put where a long notes section was cut for compaction. */
export function sectionTruncatedMarker(notesPath: string): string {
  return `[... section shortened for compaction; read ${notesPath} for the rest]`;
}

/** Headings of the summary fallback instruction, in order. */
export const SUMMARY_INSTRUCTION_HEADINGS = [
  '## Summarize the conversation for a fresh start',
  '## Include',
  '## Format',
] as const;

/** Used when no usable notes exist: an ordinary summary of the whole conversation. */
export function buildSummaryInstruction(): string {
  const [intro, include, format] = SUMMARY_INSTRUCTION_HEADINGS;
  return `${intro}
This request is not from the user. The conversation above is about to be removed to free context; write the summary that will replace it, so the work can continue without asking the user again. Do not call any tool.

${include}
- what the user asked for, with their exact constraints and corrections;
- files, functions and commands involved, with paths;
- errors hit and how they were fixed, and approaches that failed and must not be retried;
- what is finished, what is in progress, and the next step.

${format}
Plain markdown, dense and specific, no preamble; under about 2,000 words.`;
}

/** Lead-in of the user message that carries a fallback summary or a truncation notice. */
export function compactedSummaryMessage(summary: string): string {
  return `The conversation before this point was removed to free context. This summary of it was written just before; the most recent messages follow unchanged. Continue from where it leaves off.

${neutralizeWrapperTags(summary)}`;
}

export function truncationNotice(removedMessages: number): string {
  return `[${removedMessages} earlier messages were removed to free context and no notes or summary of them exist. Ask the user if something needed is missing.]`;
}

/** Headings of the away-summary instruction, in order. */
export const AWAY_SUMMARY_HEADINGS = ['## Welcome the user back', '## Rules'] as const;

/** Asks for a 1-3 sentence recap for a user returning to the session. */
export function buildAwaySummaryPrompt(
  notes: string | undefined,
  recentTranscript: string,
): string {
  const [intro, rules] = AWAY_SUMMARY_HEADINGS;
  const notesBlock = notes?.trim()
    ? `<session-notes>\n${neutralizeWrapperTags(notes.trim())}\n</session-notes>\n\n`
    : '';
  return `${notesBlock}<recent-messages>
${recentTranscript}
</recent-messages>

${intro}
The user stepped away from this session and is returning now. Write 1 to 3 short sentences for them.

${rules}
- First sentence: the task at a high level (what is being built or debugged), not implementation detail.
- Then: the concrete next step.
- No status report, no list of commits, no greeting, no markdown.`;
}
