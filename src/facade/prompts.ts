/**
 * The memory part of a host's system prompt, besides the guidance memdir writes: the index as the
 * agent receives it. Kept in one place so hosts, hooks and tests agree on the headings.
 */
export const FACADE_HEADINGS = {
  index: '# Memory index',
} as const;

export function indexPromptSection(indexContent: string, indexPath: string): string {
  const body =
    indexContent.trim() === ''
      ? 'No memories have been saved for this project yet.'
      : indexContent.trimEnd();
  return `${FACADE_HEADINGS.index}\nThe index of your memory directory (${indexPath}): one line per memory. Open a memory file when its line looks relevant.\n\n${body}`;
}
