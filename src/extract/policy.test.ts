import { describe, expect, it } from 'vitest';
import type { Message } from '../llm/types.js';
import { isInsideDir, memoryWritesIn, writeTargets } from './memory-writes.js';
import { decideExtraction, isCompletedTurn, startAfterCursor } from './policy.js';

const MEM = '/home/u/.engram/projects/-repo/memory';
const paths = { memoryDir: MEM, cwd: '/repo' };

const text = (id: string, role: 'user' | 'assistant', t = 'x'): Message => ({
  id,
  role,
  content: [{ type: 'text', text: t }],
});
const toolUse = (id: string, name: string, input: unknown): Message => ({
  id,
  role: 'assistant',
  content: [{ type: 'tool_use', id: `t-${id}`, name, input }],
});

describe('writeTargets', () => {
  it('reads the written path of Claude Code, engram and text-editor tools', () => {
    expect(writeTargets('Write', { file_path: `${MEM}/a.md` }, paths)).toEqual([`${MEM}/a.md`]);
    expect(writeTargets('Edit', { file_path: 'src/x.ts' }, paths)).toEqual(['/repo/src/x.ts']);
    expect(writeTargets('MultiEdit', { file_path: `${MEM}/b.md` }, paths)).toEqual([`${MEM}/b.md`]);
    expect(writeTargets('NotebookEdit', { notebook_path: `${MEM}/n.ipynb` }, paths)).toEqual([
      `${MEM}/n.ipynb`,
    ]);
    expect(writeTargets('write', { path: `${MEM}/c.md` }, paths)).toEqual([`${MEM}/c.md`]);
    expect(
      writeTargets(
        'str_replace_based_edit_tool',
        { command: 'create', path: `${MEM}/d.md` },
        paths,
      ),
    ).toEqual([`${MEM}/d.md`]);
  });

  it('maps the memory tool /memories root onto the memory directory, for every writing command', () => {
    for (const command of ['create', 'str_replace', 'insert', 'delete']) {
      expect(writeTargets('memory', { command, path: '/memories/x.md' }, paths)).toEqual([
        `${MEM}/x.md`,
      ]);
    }
    expect(
      writeTargets(
        'memory',
        { command: 'rename', old_path: '/memories/a.md', new_path: '/memories/b.md' },
        paths,
      ),
    ).toEqual([`${MEM}/a.md`, `${MEM}/b.md`]);
    expect(writeTargets('memory', { command: 'view', path: '/memories' }, paths)).toEqual([]);
    expect(writeTargets('memory', { command: 'create', path: '/etc/passwd' }, paths)).toEqual([]);
  });

  it("counts engram's own MCP save and revoke as writes into the memory directory", () => {
    expect(
      writeTargets('mcp__engram__memory_save', { name: 'Use Bun, not npm!', body: 'x' }, paths),
    ).toEqual([`${MEM}/use-bun-not-npm.md`]);
    expect(writeTargets('memory_save', { name: 'x', file: 'deploys.md' }, paths)).toEqual([
      `${MEM}/deploys.md`,
    ]);
    expect(
      writeTargets('mcp__engram__memory_revoke', { file: 'deploys', reason: 'wrong' }, paths),
    ).toEqual([`${MEM}/deploys.md`]);
    expect(writeTargets('mcp__engram__memory_recall', { query: 'x' }, paths)).toEqual([]);
    const messages = [
      text('u1', 'user'),
      toolUse('a1', 'mcp__engram__memory_save', { name: 'freeze', body: 'x' }),
      text('a2', 'assistant'),
    ];
    expect(memoryWritesIn(messages, 0, paths)).toEqual(['freeze.md']);
  });

  it('treats reads, unknown tools and malformed input as writing nothing', () => {
    expect(writeTargets('Read', { file_path: `${MEM}/a.md` }, paths)).toEqual([]);
    expect(writeTargets('Bash', { command: 'ls' }, paths)).toEqual([]);
    expect(writeTargets('Write', null, paths)).toEqual([]);
    expect(writeTargets('Write', { file_path: 42 }, paths)).toEqual([]);
  });
});

describe('isInsideDir', () => {
  it('accepts the directory and its children, never siblings sharing a prefix or .. escapes', () => {
    expect(isInsideDir(MEM, MEM)).toBe(true);
    expect(isInsideDir(`${MEM}/sub/a.md`, MEM)).toBe(true);
    expect(isInsideDir(`${MEM}-evil/a.md`, MEM)).toBe(false);
    expect(isInsideDir(`${MEM}/../a.md`, MEM)).toBe(false);
  });
});

describe('memoryWritesIn', () => {
  const history: Message[] = [
    text('u1', 'user'),
    toolUse('a1', 'Write', { file_path: `${MEM}/old.md` }),
    text('u2', 'user'),
    toolUse('a2', 'Write', { file_path: '/repo/src/app.ts' }),
    toolUse('a3', 'memory', { command: 'str_replace', path: '/memories/new.md' }),
  ];

  it('lists memory-directory writes after the start index only, relative to the directory', () => {
    expect(memoryWritesIn(history, 0, paths)).toEqual(['old.md', 'new.md']);
    expect(memoryWritesIn(history, 2, paths)).toEqual(['new.md']);
    expect(memoryWritesIn(history.slice(0, 4), 2, paths)).toEqual([]);
  });

  it('ignores tool_use-shaped content in user messages', () => {
    const fake: Message = { ...toolUse('x', 'Write', { file_path: `${MEM}/a.md` }), role: 'user' };
    expect(memoryWritesIn([fake], 0, paths)).toEqual([]);
  });

  it('recognises the directory under an alias such as its realpath', () => {
    const msg = toolUse('a', 'Write', { file_path: '/private/mem/a.md' });
    expect(memoryWritesIn([msg], 0, { ...paths, memoryDirAliases: ['/private/mem'] })).toEqual([
      'a.md',
    ]);
  });
});

describe('startAfterCursor and isCompletedTurn', () => {
  const msgs = [
    text('u1', 'user'),
    text('a1', 'assistant'),
    text('u2', 'user'),
    text('a2', 'assistant'),
  ];

  it('starts after the cursor, and from the beginning when the cursor was compacted away', () => {
    expect(startAfterCursor(msgs, undefined)).toBe(0);
    expect(startAfterCursor(msgs, 'a1')).toBe(2);
    expect(startAfterCursor(msgs, 'a2')).toBe(4);
    expect(startAfterCursor(msgs, 'gone')).toBe(0);
  });

  it('calls a turn complete only when the assistant replied without tool calls', () => {
    expect(isCompletedTurn(msgs)).toBe(true);
    expect(isCompletedTurn(msgs.slice(0, 3))).toBe(false);
    expect(isCompletedTurn([...msgs, toolUse('a3', 'read', { path: 'x' })])).toBe(false);
    expect(isCompletedTurn([])).toBe(false);
  });
});

describe('decideExtraction', () => {
  const base = { cursor: undefined, turnsSinceLastRun: 0, everyNTurns: 1, trailing: false, paths };
  const msgs = [text('u1', 'user'), text('a1', 'assistant')];

  it('runs over the messages after the cursor and resets the turn counter', () => {
    expect(decideExtraction({ ...base, messages: msgs })).toEqual({
      kind: 'run',
      start: 0,
      newMessageCount: 2,
      advanceTo: 'a1',
      turnsSinceLastRun: 0,
    });
  });

  it('skips when nothing is new', () => {
    expect(decideExtraction({ ...base, messages: msgs, cursor: 'a1' })).toMatchObject({
      kind: 'skip',
      reason: 'no_new_messages',
    });
  });

  it('checks the main agent write before the throttle, and moves the cursor to the end', () => {
    const wrote = [
      ...msgs,
      toolUse('a2', 'Write', { file_path: `${MEM}/x.md` }),
      text('a3', 'assistant'),
    ];
    expect(decideExtraction({ ...base, everyNTurns: 5, messages: wrote })).toEqual({
      kind: 'skip',
      reason: 'main_agent_wrote',
      advanceTo: 'a3',
      written: ['x.md'],
      turnsSinceLastRun: 0,
    });
    // A write before the cursor does not count again.
    expect(
      decideExtraction({
        ...base,
        messages: [...wrote, text('u4', 'user'), text('a4', 'assistant')],
        cursor: 'a3',
      }),
    ).toMatchObject({ kind: 'run', newMessageCount: 2 });
  });

  it('throttles to every Nth turn, but never a trailing run', () => {
    const first = decideExtraction({ ...base, everyNTurns: 3, messages: msgs });
    expect(first).toEqual({ kind: 'skip', reason: 'throttled', turnsSinceLastRun: 1 });
    const second = decideExtraction({
      ...base,
      everyNTurns: 3,
      turnsSinceLastRun: 1,
      messages: msgs,
    });
    expect(second).toMatchObject({ kind: 'skip', turnsSinceLastRun: 2 });
    expect(
      decideExtraction({ ...base, everyNTurns: 3, turnsSinceLastRun: 2, messages: msgs }),
    ).toMatchObject({
      kind: 'run',
    });
    expect(
      decideExtraction({ ...base, everyNTurns: 3, trailing: true, messages: msgs }),
    ).toMatchObject({
      kind: 'run',
    });
  });
});
