import { describe, expect, it } from 'vitest';
import type { Message } from '../llm/types.js';
import { successfulToolsSinceLastTurn } from './recent-tools.js';

const user = (id: string, text: string): Message => ({
  id,
  role: 'user',
  content: [{ type: 'text', text }],
});
const calls = (id: string, ...tools: [string, string][]): Message => ({
  id,
  role: 'assistant',
  content: tools.map(([toolId, name]) => ({
    type: 'tool_use' as const,
    id: toolId,
    name,
    input: {},
  })),
});
const results = (id: string, ...r: [string, boolean][]): Message => ({
  id,
  role: 'user',
  content: r.map(([toolId, isError]) => ({
    type: 'tool_result' as const,
    tool_use_id: toolId,
    content: 'out',
    ...(isError ? { is_error: true } : {}),
  })),
});

describe('successfulToolsSinceLastTurn', () => {
  const history = [
    user('u0', 'first task'),
    calls('a0', ['x', 'Edit']),
    results('r0', ['x', false]),
    user('u1', 'second task'),
    calls('a1', ['1', 'Read'], ['2', 'Grep'], ['3', 'Bash']),
    results('r1', ['1', false], ['2', false], ['3', false]),
    calls('a2', ['4', 'Grep'], ['5', 'Glob']),
    results('r2', ['4', true]),
  ];

  it('lists tools that succeeded and never failed since the previous user turn', () => {
    // Grep failed once: a struggling tool gets its docs back. Glob has no result yet. Edit was
    // in an earlier turn.
    expect(successfulToolsSinceLastTurn(history)).toEqual(['Bash', 'Read']);
  });

  it('looks at the previous turn when the new prompt is already the last message', () => {
    expect(successfulToolsSinceLastTurn([...history, user('u2', 'third task')])).toEqual([
      'Bash',
      'Read',
    ]);
  });

  it('does not treat an injected reminder as a user turn', () => {
    const withReminder = [
      ...history.slice(0, 6),
      user('inj', '<system-reminder>\nx\n</system-reminder>'),
    ];
    expect(successfulToolsSinceLastTurn(withReminder)).toEqual(['Bash', 'Grep', 'Read']);
  });

  it('counts a bare-string user message as a turn, as provider SDKs allow', () => {
    const plain = { id: 'u9', role: 'user', content: 'next task' } as unknown as Message;
    expect(successfulToolsSinceLastTurn([...history, plain])).toEqual(['Bash', 'Read']);
    const second = { id: 'u1', role: 'user', content: 'second task' } as unknown as Message;
    const mixed = [...history.slice(0, 3), second, ...history.slice(4)];
    expect(successfulToolsSinceLastTurn(mixed)).toEqual(['Bash', 'Read']); // not Edit, turn 1's
  });

  it('is empty without history', () => {
    expect(successfulToolsSinceLastTurn([])).toEqual([]);
  });
});
