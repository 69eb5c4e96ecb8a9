import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchedWords, type WordMark } from './matched-words.js';
import { cjkBigramChains } from './tokenize.js';

const marks = (entries: Array<[string, WordMark]>) => new Map(entries);

describe('matched query words as evidence', () => {
  it('reads CJK bigrams matched in a row as the one word they come from', () => {
    const chains = cjkBigramChains('ファイルを削除しない');
    const m = matchedWords(
      marks([
        ['ファ', 3],
        ['ァイ', 3],
        ['イル', 3],
      ]),
      chains,
    );
    expect(m).toEqual({ overlap: 1, distinctive: 1, specific: ['ファイル'] });
  });

  it('counts a lone two-character CJK word as everyday, unless the prompt holds nothing unknown', () => {
    const chains = cjkBigramChains('解释一下');
    expect(matchedWords(marks([['解释', 3]]), chains)).toEqual({
      overlap: 1,
      distinctive: 1,
      specific: [],
    });
    expect(matchedWords(marks([['解释', 3]]), chains, { shortIsWeak: false }).specific).toEqual([
      '解释',
    ]);
  });

  it('does not make a longer word of bigrams the memory holds apart', () => {
    // "タイトル" asked; the memory holds タイ and イト in "リアルタイム" and "ライト", never タイト.
    const chains = cjkBigramChains('タイトル');
    const matched = marks([
      ['タイ', 3],
      ['イト', 3],
      ['トル', 3],
    ]);
    const held = (text: string) => (word: string) => text.includes(word);
    expect(matchedWords(matched, chains, { holds: held('リアルタイムライトル') }).specific).toEqual(
      [],
    );
    expect(matchedWords(matched, chains, { holds: held('タイトル画面') }).specific).toEqual([
      'タイトル',
    ]);
  });

  it('does not take the first half of a katakana loanword for the word', () => {
    // "ゲーム" out of "ゲームパッド" (gamepad) is not the game the memory talks about.
    const chains = cjkBigramChains('ゲームパッドのボタン');
    const m = matchedWords(
      marks([
        ['ゲー', 3],
        ['ーム', 3],
      ]),
      chains,
    );
    expect(m.specific).toEqual([]);
    expect(m.distinctive).toBe(1);
  });

  it('does not count a generic CJK word as specific, however long', () => {
    const chains = cjkBigramChains('コミットを取り消す');
    const m = matchedWords(
      marks([
        ['コミ', 3],
        ['ミッ', 3],
        ['ット', 3],
      ]),
      chains,
      { isGeneric: (w) => w === 'コミット' },
    );
    expect(m).toEqual({ overlap: 1, distinctive: 1, specific: [] });
  });

  it('counts a specific word the memory holds only as a part of something else as everyday', () => {
    const marks = new Map<string, WordMark>([
      ['sync', 3],
      ['once', 3],
      ['deploi', 2],
    ]);
    const m = matchedWords(marks, [], { isPart: (w) => w === 'sync' });
    expect(m.distinctive).toBe(3);
    expect(m.specific).toEqual(['once']);
    // An overlap stays an overlap, an everyday word everyday.
    const weak = matchedWords(new Map<string, WordMark>([['sync', 1]]), [], { isPart: () => true });
    expect([weak.distinctive, weak.specific]).toEqual([0, []]);
  });

  it('property: without CJK chains every matched term is one word, worth its own mark', () => {
    const entry = fc.tuple(fc.stringMatching(/^[a-z]{2,6}$/), fc.constantFrom<WordMark>(1, 2, 3));
    fc.assert(
      fc.property(fc.uniqueArray(entry, { selector: ([t]) => t, maxLength: 8 }), (entries) => {
        const m = matchedWords(new Map(entries), []);
        expect(m.overlap).toBe(entries.length);
        expect(m.distinctive).toBe(entries.filter(([, k]) => k >= 2).length);
        expect(m.specific).toEqual(entries.filter(([, k]) => k === 3).map(([t]) => t));
      }),
    );
  });

  it('property: a CJK prompt never counts more words than marks, nor more specific than distinctive', () => {
    const prompt = fc.stringMatching(/^[数据分区字段类型新建表压缩格式告警处理流程]{1,12}$/);
    fc.assert(
      fc.property(prompt, fc.double({ min: 0, max: 1, noNaN: true }), (text, share) => {
        const chains = cjkBigramChains(text);
        const bigrams = [...new Set(chains.flat())];
        const matched = new Map<string, WordMark>(
          bigrams.filter((_, i) => (i * 0.37) % 1 < share).map((b) => [b, 3]),
        );
        const m = matchedWords(matched, chains);
        expect(m.overlap).toBeLessThanOrEqual(matched.size);
        expect(m.specific.length).toBeLessThanOrEqual(m.distinctive);
        expect(m.distinctive).toBeLessThanOrEqual(m.overlap);
        // Every specific word is three characters at least (two alone are weak).
        for (const w of m.specific) expect(Array.from(w).length).toBeGreaterThanOrEqual(3);
      }),
    );
  });
});
