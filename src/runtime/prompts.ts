/**
 * The memory part of every host's system prompt, in one place: the library, the Claude Code
 * SessionStart hook and any other door assemble it here, so they agree byte for byte. Claude Code
 * wraps hook context in a system reminder and advises factual statements over orders, so these
 * describe rather than command.
 */
import { neutralizeWrapperTags } from '../confine/wrapper-text.js';

export const SYSTEM_PROMPT_HEADINGS = {
  index: '# Memory index (MEMORY.md)',
  emptyIndex: 'The memory index is empty: no memories have been saved for this project yet.',
  notes: '# Session notes kept before compaction',
  userIndex: '# User memory index (facts about the user that hold in every project)',
  agentIndex: (agent: string, scope: string) => `# Memory index of agent ${agent} (${scope} scope)`,
} as const;

/** The index as the agent receives it: where it is, what a line means, then the lines. */
export function indexSection(indexText: string, indexPath: string): string {
  const body =
    indexText.trim() === ''
      ? SYSTEM_PROMPT_HEADINGS.emptyIndex
      : neutralizeWrapperTags(indexText.trimEnd());
  return `${SYSTEM_PROMPT_HEADINGS.index}\nPath: ${indexPath}\nOne line per memory; open a memory file when its line looks relevant.\n\n${body}`;
}

/**
 * The user layer's index, after the project's: its memories describe the person, not this project,
 * and a project memory of the same file name takes precedence.
 */
export function userIndexSection(indexText: string, indexPath: string): string {
  return `${SYSTEM_PROMPT_HEADINGS.userIndex}\nPath: ${indexPath}\nWhere a project memory says otherwise, the project memory holds.\n\n${neutralizeWrapperTags(indexText.trimEnd())}`;
}

/**
 * One of an agent's further directories (its project or user scope), after its first: an agent
 * session sees its own memory only, never the main chain's.
 */
export function agentIndexSection(
  agent: string,
  scope: string,
  indexText: string,
  indexPath: string,
): string {
  return `${SYSTEM_PROMPT_HEADINGS.agentIndex(agent, scope)}\nPath: ${indexPath}\nWhere a closer scope says otherwise, the closer scope holds.\n\n${neutralizeWrapperTags(indexText.trimEnd())}`;
}

/** A compacted session's notes, shown again when the conversation restarts from them. */
export function notesSection(notes: string, path: string): string {
  return `${SYSTEM_PROMPT_HEADINGS.notes}\nThese notes were written during this session before the conversation was compacted (${path}).\n\n${neutralizeWrapperTags(notes.trim())}`;
}
