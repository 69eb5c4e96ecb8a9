/** CJK scripts are written without spaces: a sentence there is one whitespace-free run. */
const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;
/** "继续", "好的", "没问题": CJK acknowledgements are up to three characters long. */
export const CJK_SINGLE_WORD_MAX_CHARS = 3;

/**
 * True for prompts too short to say what memory would help ("ok", "continue", "继续"): recall is
 * skipped before any I/O. A whitespace-free prompt is one word, except in CJK
 * text, where a run of more than three characters is a phrase ("怎么运行测试"). Pure.
 */
export function isSingleWordPrompt(query: string): boolean {
  const trimmed = query.trim();
  if (/\s/.test(trimmed)) return false;
  const cjk = trimmed.match(CJK_CHAR)?.length ?? 0;
  return cjk <= CJK_SINGLE_WORD_MAX_CHARS;
}
