/**
 * Offline tokenizer for recall: English words (case-folded, punctuation dropped, stop words
 * removed, irregular forms mapped to their base, Porter-stemmed) and CJK character bigrams (cut at
 * CJK function words and particles).
 * Deterministic and dependency-free, so the same prompt always yields the same tokens (and thus the
 * same recall and a stable prompt cache).
 */
import { IRREGULAR_FORMS } from './lexical/lemmas.js';
import { stem } from './lexical/stem.js';

// Function words and question phrasing ("what kind of", "how many", "did … mention") that carry no
// topic. Negations ("not", "never") stay: they are rare enough not to matter and can carry meaning.
const STOP_WORDS = new Set(
  (
    'a an and are as at be been being but by can could did do does doing done for from had has ' +
    'have having he her hers herself him himself his how i if in into is it its itself just me ' +
    'my myself of on or our ours ourselves she should so some such than that the their theirs ' +
    'them themselves then there these they this those through to too up very was we were what ' +
    'when where which while who whom whose why will with would you your yours yourself yourselves ' +
    'about also am any both each few more most other own same s t d ll m o re ve y ' +
    'let lets please get got make made use using used thing things ' +
    'kind type sort many much long ever likely might may often usual usually else anything ' +
    'something someone mention mentioned mentions say said tell told describe'
  ).split(' '),
);

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

// CJK ideographs, kana and hangul: scripts written without spaces, indexed as character bigrams.
// The prolonged sound mark ー (U+30FC) is of the Common script, yet it is a letter of katakana
// words: without it "シェーダー" fell apart into "シェ" and "ダ", two unrelated pieces.
const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\u30FC';
// Letters and digits of other scripts form words; a CJK character always ends such a word
// ("用pnpm安装" is 用 / pnpm / 安装).
const RUN_RE = new RegExp(`[${CJK}]+|(?:(?![${CJK}])[\\p{L}\\p{N}])+`, 'gu');
const CJK_RE = new RegExp(`^[${CJK}]`, 'u');
/** No character of those scripts comes before U+1100 (Hangul Jamo): below it, no test is needed. */
const FIRST_CJK = 0x1100;
const NO_RUNS: readonly string[] = [];

// CJK function words ("我的", "什么", "时候", "需要"; "です", "ます") and particles ("的", "了", "の",
// "は", "を"): without them every Chinese or Japanese sentence shares bigrams with every other, and
// "我的牙医在哪里" would recall a note about "我的车". They split a run like spaces do, so no bigram
// straddles one ("什么时候交" must not leave "么时" behind). Both sides of a match are cut the same way.
const CJK_STOP_WORDS = new Set(
  (
    '什么时候 为什么 怎么样 是不是 有没有 ' +
    '我的 你的 他的 她的 它的 我们 你们 他们 她们 咱们 自己 什么 怎么 怎样 哪里 哪儿 哪个 哪些 ' +
    '这个 那个 这些 那些 这样 那样 这里 那里 一个 一些 一下 一点 没有 不是 就是 还是 也是 都是 ' +
    '只是 可以 可能 需要 应该 已经 因为 所以 但是 如果 然后 而且 或者 还有 时候 知道 觉得 的话 ' +
    '请问 多少 是否 我想 想要 我要 帮我 给我 ' +
    '我們 你們 他們 什麼 怎麼 這個 這些 這樣 這裡 那裡 哪裡 沒有 應該 已經 因為 時候 還是 還有 覺得 ' +
    'です ます ました でした ません して した する ない ある いる この その あの これ それ あれ ' +
    'どこ どれ から まで ので けど ください'
  ).split(' '),
);
const CJK_STOP_CHARS = new Set('的了吗呢吧啊呀嗎我你他她它のはがをにでともへやかねよ');
// A lone hiragana left between particles is an inflection ending ("し" of します), not a topic.
const HIRAGANA_RE = /^\p{Script=Hiragana}$/u;
const CJK_STOP_MAX = 4;

/** A CJK run cut at its function words and particles; each piece is indexed as bigrams. */
function cjkSegments(run: string): string[] {
  const chars = Array.from(run);
  const segments: string[] = [];
  let current = '';
  for (let i = 0; i < chars.length; ) {
    let skip = 0;
    for (let n = Math.min(CJK_STOP_MAX, chars.length - i); n >= 2 && skip === 0; n--) {
      if (CJK_STOP_WORDS.has(chars.slice(i, i + n).join(''))) skip = n;
    }
    if (skip === 0 && CJK_STOP_CHARS.has(chars[i]!)) skip = 1;
    if (skip > 0) {
      if (current) segments.push(current);
      current = '';
      i += skip;
    } else {
      current += chars[i]!;
      i++;
    }
  }
  if (current) segments.push(current);
  return segments;
}

// Stemming dominates indexing time and vocabularies repeat, so stems are remembered (bounded).
const stemCache = new Map<string, string>();
const STEM_CACHE_LIMIT = 50_000;

function cachedStem(base: string): string {
  let stemmed = stemCache.get(base);
  if (stemmed === undefined) {
    if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
    stemmed = stem(base);
    stemCache.set(base, stemmed);
  }
  return stemmed;
}

// The stem of each adjacent pair, by first word then second: a pair's text is made only on a miss
// (concatenating and hashing every pair of a directory was a large part of a cold index build).
const pairStemCache = new Map<string, Map<string, string>>();
let pairStems = 0;

function cachedPairStem(first: string, second: string): string {
  let seconds = pairStemCache.get(first);
  let stemmed = seconds?.get(second);
  if (stemmed === undefined) {
    if (pairStems >= STEM_CACHE_LIMIT) {
      pairStemCache.clear();
      pairStems = 0;
      seconds = undefined;
    }
    if (seconds === undefined) {
      seconds = new Map();
      pairStemCache.set(first, seconds);
    }
    stemmed = stem(first + second);
    seconds.set(second, stemmed);
    pairStems++;
  }
  return stemmed;
}

/** Base form and stem of one lower-case word. */
export function stemWord(word: string): string {
  return cachedStem(IRREGULAR_FORMS.get(word) ?? word);
}

// Small numbers are written both ways ("two kids", "2 kids"); index them as digits.
const NUMBER_WORDS = new Map(
  'zero one two three four five six seven eight nine ten eleven twelve'
    .split(' ')
    .map((word, value) => [word, String(value)]),
);

export interface AnalyzedText {
  /** Index terms in order: stems of content words, CJK bigrams. */
  terms: string[];
  /** Stems of adjacent content-word pairs written together ("road trip" → "roadtrip"). */
  pairs: string[];
  /** Content words before stemming (base forms), for character n-grams. */
  words: string[];
}

/** Text as the tokenizer reads it (NFKC, lower case, possessive 's dropped). */
export function normalized(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/['’]s\b/g, '');
}

export function analyze(text: string): AnalyzedText {
  const terms: string[] = [];
  const pairs: string[] = [];
  const words: string[] = [];
  let previous: string | undefined;
  // The runs as strings (`match` with the g flag): no match object per word, which was the largest
  // share of what a cold index build allocated (a seventh at 2,000 memories).
  const runs = normalized(text).match(RUN_RE) ?? NO_RUNS;
  for (let r = 0; r < runs.length; r++) {
    const run = runs[r]!;
    if (run.charCodeAt(0) >= FIRST_CJK && CJK_RE.test(run)) {
      for (const segment of cjkSegments(run)) {
        const chars = Array.from(segment);
        if (chars.length === 1 && !HIRAGANA_RE.test(segment)) terms.push(segment);
        for (let i = 0; i + 1 < chars.length; i++) terms.push(chars[i]! + chars[i + 1]!);
      }
      previous = undefined;
      continue;
    }
    if (STOP_WORDS.has(run)) continue;
    const base = NUMBER_WORDS.get(run) ?? IRREGULAR_FORMS.get(run) ?? run;
    terms.push(cachedStem(base));
    words.push(base);
    if (previous !== undefined) pairs.push(cachedPairStem(previous, base));
    previous = base;
  }
  return { terms, pairs, words };
}

/** Index terms of `text` in order (duplicates kept; callers that need sets dedupe). */
export function tokenize(text: string): string[] {
  return analyze(text).terms;
}

/**
 * The CJK bigrams of `text`, one chain per piece written without a break (as `analyze` cuts them):
 * consecutive bigrams of a chain overlap by a character, so several of them matched in a row are
 * one longer word ("ファイル" is ファ, ァイ, イル), not three.
 */
export function cjkBigramChains(text: string): string[][] {
  const chains: string[][] = [];
  for (const match of normalized(text).matchAll(RUN_RE)) {
    if (!CJK_RE.test(match[0])) continue;
    for (const segment of cjkSegments(match[0])) {
      const chars = Array.from(segment);
      if (chars.length < 2) continue;
      const chain: string[] = [];
      for (let i = 0; i + 1 < chars.length; i++) chain.push(chars[i]! + chars[i + 1]!);
      chains.push(chain);
    }
  }
  return chains;
}

/** True for an index term that is one CJK character (a piece left alone between particles). */
export function isSingleCjkTerm(term: string): boolean {
  return CJK_RE.test(term) && Array.from(term).length === 1;
}

// An identifier written as code: words joined by dots, underscores or "::" ("sync.Once",
// "arrival_estimate", "torch.no_grad").
const WORD = `(?:(?![${CJK}])[\\p{L}\\p{N}])+`;
const IDENTIFIER_RE = new RegExp(`${WORD}(?:(?:[._]|::)${WORD})+`, 'gu');
// The same, or a word with an underscore at either end (a prefix such as "dw_" for "dw_ tables").
const CODE_RE = new RegExp(`${WORD}(?:(?:[._]|::)${WORD})+|_${WORD}|${WORD}_`, 'gu');

const stemOf = (word: string) => stemWord(NUMBER_WORDS.get(word) ?? word);

function partsOf(text: string, re: RegExp): Set<string> {
  const parts = new Set<string>();
  for (const match of text.matchAll(re))
    for (const word of match[0].split(/[._:]+/))
      if (word && !STOP_WORDS.has(word)) parts.add(stemOf(word));
  return parts;
}

/**
 * The words `text` writes only as parts of an identifier ("sync" and "once" in "how does sync.Once
 * work", not "sync" in "sync.Once and the sync job"), as stems. Such a part names something else
 * than the word alone: "sync.Once" is no Argo CD sync.
 */
export function identifierParts(text: string): Set<string> {
  const norm = normalized(text);
  if (!/[._:]/.test(norm)) return new Set();
  const parts = partsOf(norm, IDENTIFIER_RE);
  if (parts.size === 0) return parts;
  for (const word of norm.replace(IDENTIFIER_RE, ' ').match(RUN_RE) ?? [])
    parts.delete(stemOf(word));
  return parts;
}

/**
 * The words `text` writes as code, as stems: parts of an identifier ("sync.Once") or words with an
 * underscore at one end ("dw_" tables). Null when there are none.
 */
export function codeWords(text: string): Set<string> | null {
  if (!/[._:]/.test(text)) return null;
  const words = partsOf(normalized(text), CODE_RE);
  return words.size > 0 ? words : null;
}
