import { describe, expect, it } from 'vitest';
import {
  analyzeForIndex,
  analyzeForLaterStorage,
  type RankableMemory,
  rankerDocumentFrom,
} from './offline-ranker.js';
import { analyze } from './tokenize.js';

const MEMORIES: RankableMemory[] = [
  {
    file: 'a.md',
    type: 'feedback',
    name: 'Running migrations: staging databases, retries and timeouts',
    description:
      'Children’s bookings were cancelled; we re-ran 3 jobs at 10:30 — 用pnpm安装 façade',
    body: 'The kubelet keeps evicting pods.\n**Why:** memory pressure.\n',
    mtimeMs: 0,
  },
  { file: 'b.md', type: 'user', description: 'ᄀᄀ 한국어 シェーダー', mtimeMs: 0 },
  { file: 'c.md', type: 'project', name: '', description: 'one', body: '', mtimeMs: 0 },
];

describe('the analysis a cache entry keeps', () => {
  it('serializes to the same bytes as the eager stored form, and reads back as the same document', () => {
    for (const memory of MEMORIES) {
      const eager = analyzeForIndex(memory);
      const later = analyzeForLaterStorage(memory);
      expect(later.document).toEqual(eager.document);
      expect(JSON.stringify(later.stored)).toBe(JSON.stringify(eager.stored));
      expect(rankerDocumentFrom(later.stored)).toEqual(eager.document);
      expect(rankerDocumentFrom(JSON.parse(JSON.stringify(later.stored)))).toEqual(eager.document);
    }
  });

  it('indexes Hangul Jamo, the first character of the CJK scripts, as bigrams', () => {
    expect(analyze('ᄀᄀ').terms).toEqual(['ᄀᄀ']);
    expect(analyze('ᄀᄀ').words).toEqual([]);
    // The character before it is a letter of another script: a word, stemmed like any other.
    expect(analyze('ჿჿ ok').words).toEqual(['ჿჿ', 'ok']);
  });
});
