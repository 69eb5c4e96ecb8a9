/**
 * What the query words a memory matched are worth as evidence, once CJK bigrams are read as the
 * words they come from. Pure.
 *
 * A CJK word is indexed as overlapping bigrams, each a query term of its own: counted one by one,
 * "ファイル" (file) matched in a note on .meta files was three words of evidence, "スクリプト"
 * four, and every katakana loanword outweighed a real two-word match. Bigrams matched in a row
 * are one word here. And a word of two CJK characters alone ("解释", "実行", "配置": explain, run,
 * configure) is as common in any prose as an everyday English word: it counts as one (see the
 * cut-off's `everydayWeight`), a longer run ("夜間ビルド", "クラッシュ") as a specific word.
 */

/**
 * What one matched query word is worth: 1, an overlap (a word most memories hold); 2, distinctive
 * but everyday (or generic); 3, distinctive and specific.
 */
export type WordMark = 1 | 2 | 3;

export interface MatchedWords {
  /** Distinct query words matched (a run of CJK bigrams is one). */
  overlap: number;
  /** Of those, the distinctive ones (mark 2 or 3). */
  distinctive: number;
  /** Of those, the specific ones (mark 3), as their stems or the CJK run they form. */
  specific: string[];
}

export interface MatchedWordsOptions {
  /** Generic software vocabulary (lexical/generic-words.ts): a run that is one counts as everyday. */
  isGeneric?: (word: string) => boolean;
  /**
   * Whether the memory holds a run as written. Its bigrams may come from different words there
   * ("タイトル" asked, "リアルタイム" and "ライト" held: タイ and イト, never タイト): such a run is
   * no longer word, only two short ones.
   */
  holds?: (word: string) => boolean;
  /**
   * Default true: a run of two characters is weak (everyday). The ranker passes false when the
   * prompt holds nothing no memory knows (see offline-ranker.ts `holdsTheUnknown`).
   */
  shortIsWeak?: boolean;
  /**
   * A query word the memory holds only as something else: the prompt writes it only inside an
   * identifier and the memory never as code ("sync" of "sync.Once" beside "Argo CD sync"), or the
   * memory writes it only in an example ("e.g. fix(routing): …"). A specific one counts as
   * everyday (mark 2). Latin words only: CJK runs are judged above.
   */
  isPart?: (word: string) => boolean;
}

const KATAKANA_RE = /^[\p{Script=Katakana}\u30FC]$/u;

/**
 * The words behind `marks` (matched query term → its mark), where `chains` are the query's CJK
 * bigram chains in order (tokenize.ts `cjkBigramChains`).
 */
export function matchedWords(
  marks: ReadonlyMap<string, WordMark>,
  chains: readonly (readonly string[])[],
  options: MatchedWordsOptions = {},
): MatchedWords {
  // Most prompts hold no CJK: then the marks are the words (no copy; a common word can touch
  // thousands of memories).
  const left = chains.length === 0 ? marks : new Map(marks);
  const out: MatchedWords = { overlap: 0, distinctive: 0, specific: [] };
  const count = (word: string, mark: WordMark) => {
    out.overlap += 1;
    if (mark >= 2) out.distinctive += 1;
    if (mark === 3) out.specific.push(word);
  };
  for (const chain of chains) {
    const chars = [chain[0]!.slice(0, 1), ...chain.map((b) => Array.from(b).at(-1)!)];
    let start = -1;
    let best: WordMark = 1;
    const close = (end: number) => {
      if (start < 0) return;
      const word = chars.slice(start, end + 1).join('');
      count(word, best === 3 && !specificRun(chars, start, end, word, options) ? 2 : best);
      start = -1;
      best = 1;
    };
    for (let i = 0; i < chain.length; i++) {
      const mark = left.get(chain[i]!);
      if (mark === undefined) {
        close(i);
        continue;
      }
      (left as Map<string, WordMark>).delete(chain[i]!);
      if (start < 0) start = i;
      if (mark > best) best = mark;
    }
    close(chain.length);
  }
  const isPart = options.isPart;
  for (const [word, mark] of left) count(word, mark === 3 && isPart?.(word) ? 2 : mark);
  return out;
}

/**
 * A run of CJK characters `chars[start..end]` is a specific word when it is longer than two
 * characters, not generic, held as written, and, in katakana, the whole loanword the query wrote:
 * "ゲーム" out of "ゲームパッド" (gamepad) is another word's first half.
 */
function specificRun(
  chars: readonly string[],
  start: number,
  end: number,
  word: string,
  options: MatchedWordsOptions,
): boolean {
  if (end - start < 2 && (options.shortIsWeak ?? true)) return false;
  if (options.isGeneric?.(word) || (options.holds && !options.holds(word))) return false;
  const kana = (i: number) => i >= 0 && i < chars.length && KATAKANA_RE.test(chars[i]!);
  return !(kana(start) && kana(start - 1)) && !(kana(end) && kana(end + 1));
}
