import { describe, expect, it } from 'vitest';
import type { Message } from '../llm/types.js';
import { messagesSinceCursor } from './since-cursor.js';

const text = (id: string, role: 'user' | 'assistant', t: string): Message => ({
  id,
  role,
  content: [{ type: 'text', text: t }],
});

describe('messagesSinceCursor', () => {
  const history: Message[] = [
    text('u1', 'user', 'one'),
    text('a1', 'assistant', 'one done'),
    text('u2', 'user', 'two'),
    {
      id: 'a2',
      role: 'assistant',
      content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }],
    },
    {
      id: 'r2',
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }],
    },
    text('a3', 'assistant', 'two done'),
  ];

  it('starts after the cursor, at a user turn', () => {
    expect(messagesSinceCursor(history, 'a1').map((m) => m.id)).toEqual(['u2', 'a2', 'r2', 'a3']);
    expect(messagesSinceCursor(history, 'a3')).toEqual([]);
    // Never starts on a tool result cut from its call.
    expect(messagesSinceCursor(history, 'a2').map((m) => m.id)).toEqual([]);
  });

  it('treats an unknown cursor as nothing seen, and trims old turns to the token cap', () => {
    expect(messagesSinceCursor(history, 'gone')).toHaveLength(6);
    expect(messagesSinceCursor(history, undefined, 3).map((m) => m.id)).toEqual([
      'u2',
      'a2',
      'r2',
      'a3',
    ]);
  });
});
