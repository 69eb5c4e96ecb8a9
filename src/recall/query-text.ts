/**
 * The part of a prompt recall reads. A prompt of megabytes (a pasted log or file) would otherwise
 * be analysed whole for the offline ranker, or sent whole to the selector: 20 MB took the prompt
 * hook past Claude Code's timeout. What a prompt asks is at its start or its end, so recall reads
 * the first and the last RECALL_QUERY_EDGE_CHARS of a longer one. Pure.
 */

/** Characters (UTF-16 code units) kept from each end of a long prompt. */
export const RECALL_QUERY_EDGE_CHARS = 8_192;

/** The prompt as recall reads it: whole up to twice the edge, else its two ends on two lines. */
export function recallQuery(prompt: string): string {
  const edge = RECALL_QUERY_EDGE_CHARS;
  if (prompt.length <= 2 * edge) return prompt;
  return `${prompt.slice(0, cutBefore(prompt, edge))}\n${prompt.slice(cutBefore(prompt, prompt.length - edge))}`;
}

/** `at`, moved back one code unit when it would split a surrogate pair. */
function cutBefore(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return code >= 0xdc00 && code <= 0xdfff ? at - 1 : at;
}
