/**
 * Texts engram adds to a Claude Code session through hooks. Claude Code wraps additional context
 * in a system reminder; its docs advise factual statements over imperative "system" commands,
 * which can trip prompt-injection defences, so these describe rather than order.
 */
export const HOOK_HEADINGS = {
  index: '# Memory index (MEMORY.md)',
  emptyIndex: 'The memory index is empty: no memories have been saved for this project yet.',
  notes: '# Session notes kept before compaction',
} as const;

export function indexSection(indexText: string, indexPath: string): string {
  const body = indexText.trim() === '' ? HOOK_HEADINGS.emptyIndex : indexText.trimEnd();
  return `${HOOK_HEADINGS.index}\nPath: ${indexPath}\n${body}`;
}

export function notesSection(notes: string, path: string): string {
  return `${HOOK_HEADINGS.notes}\nThese notes were written during this session before the conversation was compacted (${path}).\n\n${notes.trim()}`;
}

export function contextCutNote(omittedChars: number, hint: string): string {
  return `\n[engram: ${omittedChars} more characters not shown to stay within the hook limit${hint ? `; ${hint}` : ''}]`;
}
