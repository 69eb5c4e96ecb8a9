import { describe, expect, it } from 'vitest';
import { estimateMessagesTokens, estimateMessageTokens, estimateTextTokens } from './tokens.js';
import type { Message } from './types.js';

const msg = (text: string, role: 'user' | 'assistant' = 'user'): Message => ({
  id: text,
  role,
  content: [{ type: 'text', text }],
});

describe('token estimator', () => {
  it('counts about four characters a token, rounding up', () => {
    expect(estimateTextTokens('')).toBe(0);
    expect(estimateTextTokens('abcd')).toBe(1);
    expect(estimateTextTokens('abcde')).toBe(2);
  });

  it('counts Han, kana and Hangul at about one token a character', () => {
    expect(estimateTextTokens('错误由中间件统一处理')).toBe(10);
    expect(estimateTextTokens('テストは実DBで')).toBe(7);
    expect(estimateTextTokens('한국어')).toBe(3);
    // Mixed: 4 ASCII characters (1 token) plus 2 Han characters.
    expect(estimateTextTokens('use 中文')).toBe(3);
  });

  it('counts every block kind', () => {
    const m: Message = {
      id: 'x',
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'aaaa' },
        { type: 'tool_use', id: 't', name: 'read', input: { p: 1 } },
        { type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'bbbbbbbb' }] },
      ],
    };
    // 'read{"p":1}' is 11 characters -> 3 tokens.
    expect(estimateMessageTokens(m)).toBe(1 + 3 + 2);
  });

  it('replaces the estimate of what a real usage covered by that usage', () => {
    const messages = [msg('a'.repeat(400)), msg('b'.repeat(40), 'assistant'), msg('c'.repeat(8))];
    expect(estimateMessagesTokens(messages)).toBe(100 + 10 + 2);
    const usage = { inputTokens: 90, outputTokens: 12, cacheReadTokens: 1000, cacheWriteTokens: 0 };
    expect(estimateMessagesTokens(messages, { messageCount: 2, usage })).toBe(1102 + 2);
    // An anchor that covers more messages than exist (history was compacted) is ignored.
    expect(estimateMessagesTokens(messages, { messageCount: 5, usage })).toBe(112);
  });
});
