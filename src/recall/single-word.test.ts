import { describe, expect, it } from 'vitest';
import { isSingleWordPrompt } from './single-word.js';

describe('isSingleWordPrompt', () => {
  it('skips one-word prompts in any script', () => {
    for (const q of ['ok', '  continue\n', 'yes!', '继续', '好的', '没问题', 'はい', '', '   ']) {
      expect(isSingleWordPrompt(q)).toBe(true);
    }
  });

  it('keeps phrases, including CJK sentences written without spaces', () => {
    for (const q of [
      'run the tests',
      'fix\tit',
      '怎么运行测试',
      '帮我跑一下测试',
      'テストを実行して',
    ]) {
      expect(isSingleWordPrompt(q)).toBe(false);
    }
  });
});
