/**
 * Every sentence the injection layer adds around recalled memories. The model reads these, so
 * they say what to do: treat memories as dated notes, open the full file when one was shortened,
 * and know that no more memories will arrive once the session budget is spent.
 */

/** First line inside the block: what these are and how much to trust them. */
export const RECALLED_INTRO =
  'Memories recalled for this turn from earlier sessions. Use them as dated notes, not as ' +
  'verified facts: check anything that names a file, function or flag before relying on it.';

/** Appended after a shortened memory, on its own line; names the full file so it can be opened. */
export function truncationNote(
  path: string,
  limits: { maxLines: number; maxBytes: number },
): string {
  return (
    `[Shortened to ${limits.maxLines} lines / ${limits.maxBytes} bytes for injection. ` +
    `Read the full memory at ${path} if the rest matters.]\n`
  );
}

/** Shown once, in the turn where the session budget runs out; later turns inject nothing. */
export function budgetExhaustedNotice(maxSessionBytes: number): string {
  return (
    `Memory recall has used its budget for this session (${maxSessionBytes} bytes) and is now ` +
    'off until the conversation is compacted. Search the memory directory yourself if you need more.'
  );
}
