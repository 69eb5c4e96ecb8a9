/**
 * Text that engram places inside its own wrappers (recalled memories, the index and session notes
 * in the system prompt, notes restored after a compaction) must not be able to close or imitate
 * those wrappers. Every wrapper passes its bodies through `neutralizeWrapperTags`, one pure rule:
 * a `<` that starts a tag (opening or closing, any case, whitespace or `/` before the name,
 * attributes after it) named like one of engram's wrappers or the host's `system-reminder` is
 * written as `&lt;`. Nothing else changes, so ordinary markdown and code keep their bytes.
 *
 * Entity-encoded text such as `&lt;/memory&gt;` is left as it is: it is text to any parser and
 * cannot produce a real tag. The rule is idempotent (its output contains no `<` before a wrapper
 * name), so a frozen, already neutralized body renders to the same bytes again.
 */

/** Tag names engram's wrappers use, plus the host's reminder wrapper. Lower case. */
export const WRAPPER_TAG_NAMES = [
  'system-reminder',
  'recalled-memories',
  'memory',
  'recall-stopped',
  'session-notes',
  'recent-messages',
] as const;

const NAMES = WRAPPER_TAG_NAMES.join('|'); // letters and hyphens only: no escaping needed
/** `<`, then any run of whitespace and `/`, then a wrapper name that ends there. */
const TAG_START = new RegExp(`<(?=[\\s/]*(?:${NAMES})(?![\\w.:-]))`, 'giu');

/** The body with every wrapper-tag `<` written as `&lt;`. Pure, deterministic, idempotent. */
export function neutralizeWrapperTags(body: string): string {
  if (!body.includes('<')) return body;
  return body.replace(TAG_START, '&lt;');
}

/** Whether `text` contains something a parser could read as a wrapper tag. Pure. */
export function hasWrapperTag(text: string): boolean {
  TAG_START.lastIndex = 0;
  const found = TAG_START.test(text);
  TAG_START.lastIndex = 0;
  return found;
}

/**
 * The same rule for another prompt's own tags (the memory selector's `<message>`, `<memories>`):
 * every `<` that starts a tag with one of `names` (letters, digits, `-` and `_`) becomes `&lt;`.
 * Pure, idempotent.
 */
export function neutralizeTags(text: string, names: readonly string[]): string {
  if (!text.includes('<') || names.length === 0) return text;
  const start = new RegExp(`<(?=[\\s/]*(?:${names.join('|')})(?![\\w.:-]))`, 'giu');
  return text.replace(start, '&lt;');
}
