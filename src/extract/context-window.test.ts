import { describe, expect, it } from 'vitest';
import type { Message } from '../llm/types.js';
import { fitToContext } from './context-window.js';

// 400 characters ≈ 100 tokens per text message with engram's estimator.
const text = (id: string, role: 'user' | 'assistant'): Message => ({
  id,
  role,
  content: [{ type: 'text', text: 'x'.repeat(400) }],
});
const call = (id: string): Message => ({
  id,
  role: 'assistant',
  content: [{ type: 'tool_use', id: `t-${id}`, name: 'read', input: { path: 'a' } }],
});
const result = (id: string, of: string): Message => ({
  id,
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: `t-${of}`, content: 'y'.repeat(400) }],
});

describe('fitToContext', () => {
  const history = [
    text('u1', 'user'),
    call('a1'),
    result('r1', 'a1'),
    text('a1b', 'assistant'),
    text('u2', 'user'),
    text('a2', 'assistant'),
    text('u3', 'user'),
    call('a3'),
    result('r3', 'a3'),
    text('a3b', 'assistant'),
  ];

  it('keeps everything when it fits', () => {
    expect(fitToContext(history, 10_000)).toMatchObject({ dropped: 0, messages: history });
  });

  it('drops whole turns from the front and never starts at a tool result', () => {
    const fitted = fitToContext(history, 510);
    expect(fitted.messages.map((m) => m.id)).toEqual(['u2', 'a2', 'u3', 'a3', 'r3', 'a3b']);
    expect(fitted.dropped).toBe(4);
    expect(fitted.tokens).toBeLessThanOrEqual(510);
    const tighter = fitToContext(history, 410);
    expect(tighter.messages[0]?.id).toBe('u3');
  });

  it('keeps the last turn whole even when it alone is over the budget', () => {
    expect(fitToContext(history, 10).messages.map((m) => m.id)).toEqual(['u3', 'a3', 'r3', 'a3b']);
  });
});
