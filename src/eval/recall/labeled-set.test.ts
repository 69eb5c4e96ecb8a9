import { describe, expect, it } from 'vitest';
import { isEngramError } from '../../util/errors.js';
import { labeledMemoryId, parseLabeledSet } from './labeled-set.js';

const memory = (file: string, extra: Record<string, unknown> = {}) => ({
  file,
  type: 'feedback',
  description: `about ${file}`,
  ...extra,
});

const invalid = (raw: unknown) => {
  try {
    parseLabeledSet(raw, 'set');
  } catch (error) {
    expect(isEngramError(error) && error.code).toBe('invalid_input');
    return (error as Error).message;
  }
  throw new Error('the set was accepted');
};

describe('a labeled set with a user layer', () => {
  it('puts a memory without scope in the project layer and names it by its file alone', () => {
    const set = parseLabeledSet(
      { memories: [memory('a.md')], prompts: [{ prompt: 'p', gold: ['a.md'] }] },
      'set',
    );
    expect(set.memories[0]!.scope).toBe('project');
    expect(set.prompts[0]!.gold).toEqual(['a.md']);
    expect(labeledMemoryId('project', 'a.md')).toBe('a.md');
  });

  it('accepts scope or layer for the user layer and names those memories user:<file>', () => {
    const set = parseLabeledSet(
      {
        memories: [memory('a.md', { scope: 'user' }), memory('b.md', { layer: 'user' })],
        prompts: [{ prompt: 'p', gold: ['a.md', 'user:b.md'] }],
      },
      'set',
    );
    expect(set.memories.map((m) => m.scope)).toEqual(['user', 'user']);
    expect(set.prompts[0]!.gold).toEqual(['user:a.md', 'user:b.md']);
  });

  it('lets one file name sit in both layers, a bare gold name meaning the project one', () => {
    const set = parseLabeledSet(
      {
        memories: [memory('t.md', { scope: 'user' }), memory('t.md')],
        prompts: [
          { prompt: 'bare', gold: ['t.md'] },
          { prompt: 'qualified', gold: ['user:t.md', 'project:t.md'] },
        ],
      },
      'set',
    );
    expect(set.prompts.map((p) => p.gold)).toEqual([['t.md'], ['user:t.md', 't.md']]);
  });

  it('refuses a file listed twice in one layer', () => {
    expect(invalid({ memories: [memory('a.md'), memory('a.md', { scope: 'project' })] })).toMatch(
      /listed twice in the same layer/,
    );
  });

  it('refuses a gold entry naming a layer the memory is not in', () => {
    expect(
      invalid({ memories: [memory('a.md')], prompts: [{ prompt: 'p', gold: ['user:a.md'] }] }),
    ).toMatch(/names user:a\.md, which is not among the memories/);
  });

  it('refuses a memory whose scope and layer disagree, and an unknown layer', () => {
    expect(invalid({ memories: [memory('a.md', { scope: 'user', layer: 'project' })] })).toMatch(
      /give one/,
    );
    invalid({ memories: [memory('a.md', { scope: 'team' })] });
  });
});
