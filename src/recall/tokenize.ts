/**
 * Offline tokenizer for recall: English words (case-folded, punctuation dropped, stop words
 * removed, lightly stemmed) and CJK character bigrams. Deterministic and dependency-free, so the
 * same prompt always yields the same tokens (and thus the same recall and a stable prompt cache).
 */

// Function words that carry no topic. Kept short on purpose: negations and modal verbs that change
// meaning in feedback memories ("never", "not", "must") are NOT stop words.
const STOP_WORDS = new Set(
  (
    'a an and are as at be been being but by can could did do does doing done for from had has ' +
    'have having he her hers herself him himself his how i if in into is it its itself just me ' +
    'my myself of on or our ours ourselves she should so some such than that the their theirs ' +
    'them themselves then there these they this those through to too up very was we were what ' +
    'when where which while who whom why will with would you your yours yourself yourselves ' +
    'about also am any both each few more most other own same s t d ll m o re ve y ' +
    'let lets please get got make made use using used thing things'
  ).split(' '),
);

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

// CJK ideographs, kana and hangul: scripts written without spaces, indexed as character bigrams.
const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}';
const RUN_RE = new RegExp(`[${CJK}]+|[\\p{L}\\p{N}]+`, 'gu');
const CJK_RE = new RegExp(`^[${CJK}]`, 'u');

/**
 * Light suffix stripping (an "S-stemmer" plus -ing/-ed/-ly/-ies), deliberately conservative:
 * it must conflate "tests"/"testing"/"tested" without merging unrelated words.
 */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  let w = word;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is'))
    w = w.slice(0, -1);
  if (w.endsWith('ing') && w.length > 5) w = undouble(w.slice(0, -3));
  else if (w.endsWith('ied') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('ed') && w.length > 4) w = undouble(w.slice(0, -2));
  else if (w.endsWith('ly') && w.length > 5) w = w.slice(0, -2);
  return w;
}

function undouble(w: string): string {
  const n = w.length;
  if (n >= 3 && w[n - 1] === w[n - 2] && !'lsz'.includes(w[n - 1]!)) return w.slice(0, -1);
  // "making" -> "mak" would miss "make"; restore a final e after consonant-vowel-consonant.
  if (n >= 3 && /[^aeiou][aeiouy][^aeiouwxy]$/.test(w) && n <= 4) return `${w}e`;
  return w;
}

/** Tokens of `text` in order (duplicates kept; callers that need sets dedupe). */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  const normalized = text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/['’]s\b/g, '');
  for (const match of normalized.matchAll(RUN_RE)) {
    const run = match[0];
    if (CJK_RE.test(run)) {
      const chars = Array.from(run);
      if (chars.length === 1) out.push(run);
      for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
      continue;
    }
    if (STOP_WORDS.has(run)) continue;
    out.push(stem(run));
  }
  return out;
}
