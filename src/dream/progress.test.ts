import { describe, expect, it } from 'vitest';
import { applyTurn, formatProgress, initialProgress } from './progress.js';

const memoryDir = '/mem';
const sessions = [
  { id: 's1', path: '/t/s1.jsonl', mtimeMs: 2 },
  { id: 's2', path: '/t/s2.jsonl', mtimeMs: 1 },
];
const ctx = { memoryDir, sessions };
const call = (name: string, input: unknown, allowed = true, isError = false) => ({
  name,
  input,
  allowed,
  isError,
});

describe('dream progress', () => {
  it('stays "starting" while the agent only reads, and counts sessions it looked into', () => {
    let p = initialProgress(2);
    p = applyTurn(
      p,
      { turn: 1, toolCalls: [call('list', {}), call('read', { path: 'MEMORY.md' })] },
      ctx,
    );
    p = applyTurn(
      p,
      { turn: 2, toolCalls: [call('grep', { pattern: 'deploy', path: '/t/s2.jsonl' })] },
      ctx,
    );
    expect(p).toEqual({
      phase: 'starting',
      sessionsToReview: 2,
      sessionsReviewed: ['s2'],
      filesTouched: [],
      touchedIn: [],
      turns: 2,
      toolCalls: 3,
      refusedCalls: 0,
    });
  });

  it('switches to "updating" at the first successful write and lists files once, relative to the directory', () => {
    let p = initialProgress(2);
    p = applyTurn(
      p,
      { turn: 1, toolCalls: [call('write', { path: '/etc/x.md' }, false, true)] },
      ctx,
    );
    expect(p.phase).toBe('starting');
    expect(p.refusedCalls).toBe(1);
    p = applyTurn(p, { turn: 2, toolCalls: [call('edit', { path: 'a.md' }, true, true)] }, ctx);
    expect(p.phase).toBe('starting'); // a failed edit changed nothing
    p = applyTurn(
      p,
      {
        turn: 3,
        toolCalls: [
          call('edit', { path: 'a.md' }),
          call('write', { path: '/mem/MEMORY.md' }),
          call('edit', { path: '/mem/a.md' }),
          call('read', { path: '/t/s1.jsonl' }),
        ],
      },
      ctx,
    );
    expect(p.phase).toBe('updating');
    expect(p.filesTouched).toEqual(['a.md', 'MEMORY.md']);
    expect(p.sessionsReviewed).toEqual(['s1']);
    expect(formatProgress(p)).toBe('updating · 1/2 sessions reviewed · 2 files touched · turn 3');
  });

  it('names a file written in the user layer by its absolute path, with its layer', () => {
    const p = applyTurn(
      initialProgress(0),
      {
        turn: 1,
        toolCalls: [
          call('write', { path: '/home/user/memory/lang.md' }),
          call('edit', { path: 'b.md' }),
        ],
      },
      { ...ctx, userDir: '/home/user/memory' },
    );
    expect(p.filesTouched).toEqual(['/home/user/memory/lang.md', 'b.md']);
    expect(p.touchedIn).toEqual([
      { layer: 'user', file: 'lang.md', path: '/home/user/memory/lang.md' },
      { layer: 'project', file: 'b.md', path: '/mem/b.md' },
    ]);
  });
});
