import { describe, expect, it } from 'vitest';
import { stem as porterStem } from './lexical/stem.js';
import {
  analyze,
  cjkBigramChains,
  codeWords,
  identifierParts,
  isStopWord,
  tokenize,
} from './tokenize.js';

describe('tokenize', () => {
  it('folds case, drops punctuation, possessives and stop words, and stems', () => {
    expect(tokenize("What did Caroline's kids enjoy at the Museum?!")).toEqual([
      'carolin',
      'kid',
      'enjoi',
      'museum',
    ]);
    expect(isStopWord('the')).toBe(true);
    expect(isStopWord('never')).toBe(false);
  });

  it('maps irregular forms to their base before stemming', () => {
    expect(tokenize('went')).toEqual(tokenize('go'));
    expect(tokenize('children')).toEqual(tokenize('child'));
    expect(tokenize('bought')).toEqual(tokenize('buying'));
  });

  it('conflates inflections and derivations the same way on both sides', () => {
    expect(tokenize('adoption families relaxing')).toEqual(tokenize('adopt family relax'));
  });

  it('indexes CJK as character bigrams, a lone character as itself', () => {
    expect(tokenize('不要加表情')).toEqual(['不要', '要加', '加表', '表情']);
    expect(tokenize('猫 and 狗')).toEqual(['猫', '狗']);
    expect(tokenize('用pnpm安装')).toEqual(['用', 'pnpm', '安装']);
  });

  it('cuts CJK runs at function words and particles, so no bigram straddles one', () => {
    expect(tokenize('我什么时候要付房租？')).toEqual(['要付', '付房', '房租']);
    expect(tokenize('我的牙医')).toEqual(['牙医']);
    expect(tokenize('切符はどこで買えますか')).toEqual(['切符', '買え']);
    expect(tokenize('今天的天气怎么样')).toEqual(['今天', '天气']);
  });

  it('joins adjacent words into pairs so "road trip" meets "roadtrip"', () => {
    const spaced = analyze('a road trip with kids');
    expect(spaced.pairs).toContain(tokenize('roadtrip')[0]);
    expect(spaced.words).toEqual(['road', 'trip', 'kids']);
  });

  it('indexes Hangul Jamo, the first character of the CJK scripts, as bigrams', () => {
    expect(analyze('ᄀᄀ').terms).toEqual(['ᄀᄀ']);
    expect(analyze('ᄀᄀ').words).toEqual([]);
    // The character before it is a letter of another script: a word, stemmed like any other.
    expect(analyze('ჿჿ ok').words).toEqual(['ჿჿ', 'ok']);
  });

  it('is deterministic for identical input', () => {
    const text = 'Deploying the staging cluster needs a signed tag — 部署前先打标签';
    expect(tokenize(text)).toEqual(tokenize(text));
  });
});

describe('stem (the stemmer package)', () => {
  it('matches the published algorithm on its classic examples', () => {
    const cases: Record<string, string> = {
      caresses: 'caress',
      ponies: 'poni',
      agreed: 'agre',
      plastered: 'plaster',
      motoring: 'motor',
      hopping: 'hop',
      falling: 'fall',
      filing: 'file',
      happy: 'happi',
      relational: 'relat',
      conditional: 'condit',
      digitizer: 'digit',
      vietnamization: 'vietnam',
      hopefulness: 'hope',
      formalize: 'formal',
      electrical: 'electr',
      adjustable: 'adjust',
      replacement: 'replac',
      adoption: 'adopt',
      effective: 'effect',
      generalization: 'gener',
      controll: 'control',
      roll: 'roll',
    };
    for (const [word, stem] of Object.entries(cases)) expect(porterStem(word), word).toBe(stem);
  });

  it('leaves short words, numbers and non-ASCII words alone', () => {
    expect(porterStem('is')).toBe('is');
    expect(porterStem('2023')).toBe('2023');
    expect(porterStem('café')).toBe('café');
  });
});

describe('number words', () => {
  it('index small numbers as digits', () => {
    expect(tokenize('two kids, three retries')).toEqual(tokenize('2 kids, 3 retries'));
  });
});

describe('CJK chains', () => {
  it('keeps the prolonged sound mark inside a katakana word', () => {
    // ー is of the Common script; without it "シェーダー" fell apart into シェ and ダ.
    expect(tokenize('シェーダー')).toEqual(['シェ', 'ェー', 'ーダ', 'ダー']);
  });

  it('gives the bigrams of each piece between particles, in order', () => {
    expect(cjkBigramChains('新建 Hive 表，分区字段用什么类型')).toEqual([
      ['新建'],
      ['分区', '区字', '字段', '段用'],
      ['类型'],
    ]);
    expect(cjkBigramChains('plain English only')).toEqual([]);
  });
});

describe('identifiers', () => {
  it('gives the words a prompt writes only inside dotted or snake_case identifiers', () => {
    expect([...identifierParts('how does sync.Once work')].sort()).toEqual(['onc', 'sync']);
    expect([...identifierParts('rename eta to arrival_estimate')].sort()).toEqual([
      'arriv',
      'estim',
    ]);
    // Written alone too, the word is the word.
    expect([...identifierParts('sync.Once and the sync job')]).toEqual(['onc']);
    expect(identifierParts('deploy the billing service. Then tell me').size).toBe(0);
    expect(identifierParts('the hard-code rule').size).toBe(0);
  });

  it('gives the words a memory writes as code, a prefix with an underscore included', () => {
    expect([...(codeWords('Use sync.Once for lazy init') ?? [])].sort()).toEqual(['onc', 'sync']);
    expect([...(codeWords('dw_ 开头的核心表要评审') ?? [])]).toEqual(['dw']);
    expect(codeWords('Argo CD sync runs every 3 minutes. Do not click sync')).toBeNull();
  });
});
