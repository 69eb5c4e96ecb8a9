/**
 * The words around instruction files in the prompt. Our own text; tests check its structure.
 */
import type { InstructionType, LoadedInstructionFile } from './types.js';

export const INSTRUCTIONS_HEADING = '# Instructions from the user and the project';

/** Opens the section: these files outrank the model's defaults, and later files outrank earlier. */
export const INSTRUCTIONS_PREAMBLE = `${INSTRUCTIONS_HEADING}

The files below were written for you by the people you are working with: administrators, the user, and the maintainers of this project. Follow them. They override your default behaviour and habits: where they say something, do exactly what they say, as written.

They are listed from the broadest scope to the most specific one. When two files disagree, follow the one that comes later.`;

const TYPE_DESCRIPTIONS: Record<InstructionType, string> = {
  managed: 'managed policy set by an administrator for every user',
  user: "the user's own instructions for all projects",
  project: 'project instructions, checked into the repository',
  local: "the user's private instructions for this project, not checked in",
};

/** What kind of file this is, as shown in its `Contents of …` line. */
export function describeInstructionFile(file: LoadedInstructionFile): string {
  const parts = [TYPE_DESCRIPTIONS[file.type]];
  if (file.globs) parts.push(`applies to files matching ${file.globs.join(', ')}`);
  if (file.parent) parts.push(`included by ${file.parent}`);
  return parts.join('; ');
}

/**
 * The prompt section: the preamble, then every non-empty file in order as
 * `Contents of <path> (<kind>):` and its processed text. '' when no file has content, so a host
 * adds nothing rather than a heading over nothing.
 */
export function renderInstructionsPrompt(files: readonly LoadedInstructionFile[]): string {
  const blocks = files
    .filter((f) => f.content.trim() !== '')
    .map((f) => `Contents of ${f.path} (${describeInstructionFile(f)}):\n\n${f.content.trim()}`);
  if (blocks.length === 0) return '';
  return `${INSTRUCTIONS_PREAMBLE}\n\n${blocks.join('\n\n')}\n`;
}
