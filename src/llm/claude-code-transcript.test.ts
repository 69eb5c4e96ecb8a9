import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  loadTranscriptFile,
  parseClaudeCodeTranscript,
  withoutThinking,
} from './claude-code-transcript.js';

// A transcript shaped like Claude Code 2.1.x writes it: full envelopes, one content block per
// assistant line sharing message.id, hook progress lines chained in between, a tool result that
// points at its own tool_use line, snapshots without envelope, and a half-written last line.
const SESSION = '4d5611e5-241a-462a-8d15-5122611a9569';
const CWD = '/home/USER/projects/demo';

function envelope(uuid: string, parentUuid: string | null, extra: Record<string, unknown>) {
  return {
    parentUuid,
    isSidechain: false,
    userType: 'external',
    cwd: CWD,
    sessionId: SESSION,
    version: '2.1.39',
    gitBranch: 'main',
    ...extra,
    uuid,
    timestamp: '2026-02-12T16:02:25.284Z',
  };
}

function user(uuid: string, parent: string | null, content: unknown, extra = {}) {
  return envelope(uuid, parent, { type: 'user', message: { role: 'user', content }, ...extra });
}

function assistant(uuid: string, parent: string, msgId: string, block: unknown) {
  return envelope(uuid, parent, {
    type: 'assistant',
    requestId: `req_${msgId}`,
    message: {
      model: 'claude-opus-4-6',
      id: msgId,
      type: 'message',
      role: 'assistant',
      content: [block],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 3, cache_creation_input_tokens: 15005, output_tokens: 9 },
    },
  });
}

function progress(uuid: string, parent: string, toolUseID: string) {
  return envelope(uuid, parent, {
    type: 'progress',
    data: { type: 'hook_progress', hookEvent: 'PreToolUse', hookName: 'PreToolUse:Bash' },
    toolUseID,
    parentToolUseID: toolUseID,
  });
}

const snapshot = {
  type: 'file-history-snapshot',
  messageId: 'u1',
  snapshot: { messageId: 'u1', trackedFileBackups: {}, timestamp: '2026-02-12T16:02:25.227Z' },
  isSnapshotUpdate: false,
};

function realisticLines(): unknown[] {
  return [
    snapshot,
    envelope('p0', null, {
      type: 'progress',
      data: { type: 'hook_progress', hookEvent: 'SessionStart' },
    }),
    user('u1', 'p0', 'Run the tests and tell me what fails.', {
      permissionMode: 'default',
      thinkingMetadata: { maxThinkingTokens: 31999 },
    }),
    user('meta1', 'u1', 'Caveat: skill text injected by the harness', { isMeta: true }),
    assistant('a1', 'meta1', 'msg_1', { type: 'text', text: '\n\n' }),
    assistant('a2', 'a1', 'msg_1', { type: 'thinking', thinking: 'Check both.', signature: 'sig' }),
    assistant('a3', 'a2', 'msg_1', {
      type: 'tool_use',
      id: 'toolu_X',
      name: 'Bash',
      input: { command: 'npm test' },
      caller: { type: 'direct' },
    }),
    progress('p1', 'a3', 'toolu_X'),
    assistant('a4', 'p1', 'msg_1', {
      type: 'tool_use',
      id: 'toolu_Y',
      name: 'Read',
      input: { file_path: 'a.ts' },
    }),
    progress('p2', 'a4', 'toolu_Y'),
    // The result of the first call points at its own tool_use line, not at the latest line.
    user(
      'r1',
      'a3',
      [{ tool_use_id: 'toolu_X', type: 'tool_result', content: '2 failed', is_error: false }],
      {
        toolUseResult: { stdout: '2 failed', stderr: '', interrupted: false, isImage: false },
      },
    ),
    user('r2', 'p2', [
      {
        tool_use_id: 'toolu_Y',
        type: 'tool_result',
        content: [{ type: 'text', text: 'export {}' }],
      },
    ]),
    {
      type: 'queue-operation',
      operation: 'enqueue',
      timestamp: '2026-02-12T16:03:00.000Z',
      sessionId: SESSION,
    },
    assistant('a5', 'r2', 'msg_2', { type: 'text', text: 'Two tests fail in a.ts.' }),
    envelope('s1', 'a5', { type: 'system', subtype: 'turn_duration', durationMs: 5000 }),
    { type: 'some-future-type', payload: 1 },
    snapshot,
    user('u2', 's1', [{ type: 'text', text: 'Fix them.' }]),
    envelope('side1', 'u2', {
      type: 'user',
      isSidechain: true,
      message: { role: 'user', content: 'sub' },
    }),
  ];
}

function toJsonl(lines: unknown[]): string {
  return `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;
}

describe('parseClaudeCodeTranscript', () => {
  it('rebuilds the conversation from a real-shaped multi-line transcript', () => {
    const text = `${toJsonl(realisticLines())}{"parentUuid":"u2","type":"assistant","message":{"id":"msg_3","con`;
    const result = parseClaudeCodeTranscript(text);
    expect(result.sessionId).toBe(SESSION);
    expect(result.cwd).toBe(CWD);
    expect(result.messages.map((m) => [m.id, m.role])).toEqual([
      ['u1', 'user'],
      ['a4', 'assistant'],
      ['r2', 'user'],
      ['a5', 'assistant'],
      ['u2', 'user'],
    ]);
    const reply = result.messages[1]!;
    // The whitespace-only text line is dropped; thinking and both calls are regrouped in order.
    expect(reply.content).toEqual([
      { type: 'thinking', thinking: 'Check both.', signature: 'sig' },
      { type: 'tool_use', id: 'toolu_X', name: 'Bash', input: { command: 'npm test' } },
      { type: 'tool_use', id: 'toolu_Y', name: 'Read', input: { file_path: 'a.ts' } },
    ]);
    expect(result.messages[2]!.content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_X', content: '2 failed' },
      {
        type: 'tool_result',
        tool_use_id: 'toolu_Y',
        content: [{ type: 'text', text: 'export {}' }],
      },
    ]);
    expect(result.messages[4]!.content).toEqual([{ type: 'text', text: 'Fix them.' }]);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toMatch(/truncated last line/);
  });

  it('keeps meta lines only when asked', () => {
    const result = parseClaudeCodeTranscript(toJsonl(realisticLines()), { includeMeta: true });
    expect(result.messages.map((m) => m.id)).toContain('meta1');
    expect(result.warnings).toEqual([]);
  });

  it('follows the active branch after a rewind and ignores the abandoned one', () => {
    const lines = [
      user('u1', null, 'first question'),
      assistant('a1', 'u1', 'msg_1', { type: 'text', text: 'first answer' }),
      user('u2', 'a1', 'abandoned follow-up'),
      assistant('a2', 'u2', 'msg_2', { type: 'text', text: 'abandoned answer' }),
      user('u3', 'a1', 'rewritten follow-up'),
      assistant('a3', 'u3', 'msg_3', { type: 'text', text: 'kept answer' }),
    ];
    const result = parseClaudeCodeTranscript(toJsonl(lines));
    expect(result.messages.map((m) => m.id)).toEqual(['u1', 'a1', 'u3', 'a3']);
  });

  it('starts at a compact boundary: the summary and what follows, not what came before', () => {
    const lines = [
      user('u1', null, 'before compaction'),
      assistant('a1', 'u1', 'msg_1', { type: 'text', text: 'old answer' }),
      envelope('c1', null, {
        type: 'system',
        subtype: 'compact_boundary',
        content: 'Conversation compacted',
        logicalParentUuid: 'a1',
        compactMetadata: { trigger: 'auto', preTokens: 150000 },
      }),
      user('sum', 'c1', 'Summary of the earlier conversation', { isCompactSummary: true }),
      assistant('a2', 'sum', 'msg_2', { type: 'text', text: 'continuing' }),
    ];
    const result = parseClaudeCodeTranscript(toJsonl(lines));
    expect(result.messages.map((m) => m.id)).toEqual(['sum', 'a2']);
  });

  it('keeps only the context after a boundary for a long session compacted once', () => {
    const lines: unknown[] = [];
    let parent: string | null = null;
    for (let turn = 0; turn < 30; turn++) {
      lines.push(user(`u${turn}`, parent, `question ${turn} ${'detail '.repeat(200)}`));
      lines.push(assistant(`a${turn}`, `u${turn}`, `msg_${turn}`, { type: 'text', text: 'ok' }));
      parent = `a${turn}`;
    }
    lines.push(
      envelope('c1', null, {
        type: 'system',
        subtype: 'compact_boundary',
        content: 'Conversation compacted',
        logicalParentUuid: parent,
        compactMetadata: { trigger: 'manual', preTokens: 60000 },
      }),
      user('sum', 'c1', 'Summary: thirty questions answered', { isCompactSummary: true }),
    );
    parent = 'sum';
    for (let turn = 30; turn < 33; turn++) {
      lines.push(user(`u${turn}`, parent, `question ${turn}`));
      lines.push(assistant(`a${turn}`, `u${turn}`, `msg_${turn}`, { type: 'text', text: 'ok' }));
      parent = `a${turn}`;
    }
    const { messages } = parseClaudeCodeTranscript(toJsonl(lines));
    expect(messages).toHaveLength(7);
    expect(messages[0]!.content).toEqual([
      { type: 'text', text: 'Summary: thirty questions answered' },
    ]);
  });

  it('cuts at the last boundary even when the chain cannot be walked', () => {
    const lines = [
      user('u1', null, 'before compaction'),
      envelope('c1', null, {
        type: 'system',
        subtype: 'compact_boundary',
        logicalParentUuid: 'u1',
      }),
      user('sum', 'c1', 'Summary', { isCompactSummary: true }),
      user('u2', 'missing-parent', 'after'),
    ];
    const result = parseClaudeCodeTranscript(toJsonl(lines));
    expect(result.messages.map((m) => m.id)).toEqual(['sum', 'u2']);
  });

  it('answers a call without a recorded result and drops a result without its call', () => {
    const lines = [
      user('u1', null, [
        { type: 'tool_result', tool_use_id: 'toolu_gone', content: 'cut by compaction' },
      ]),
      user('u2', 'u1', 'go'),
      assistant('a1', 'u2', 'msg_1', { type: 'tool_use', id: 'toolu_A', name: 'Bash', input: {} }),
    ];
    const result = parseClaudeCodeTranscript(toJsonl(lines));
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    const answer = result.messages[2]!.content[0];
    expect(answer).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_A', is_error: true });
    expect(result.warnings.join('\n')).toMatch(/toolu_gone.*dropped/);
    expect(result.warnings.join('\n')).toMatch(/toolu_A .*no recorded result/);
  });

  it('skips garbage in the middle and says where', () => {
    const text = `${JSON.stringify(user('u1', null, 'hi'))}\nnot json\n[1,2]\n${JSON.stringify(
      assistant('a1', 'u1', 'm', { type: 'text', text: 'hello' }),
    )}\n`;
    const result = parseClaudeCodeTranscript(text);
    expect(result.messages.map((m) => m.id)).toEqual(['u1', 'a1']);
    expect(result.warnings).toEqual([
      'line 2: invalid JSON, skipped',
      'line 3: not a JSON object, skipped',
    ]);
  });

  it('returns an empty conversation for an empty file', () => {
    expect(parseClaudeCodeTranscript('')).toEqual({ messages: [], warnings: [] });
  });
});

describe('loadTranscriptFile', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engram-transcript-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a .jsonl transcript', async () => {
    const path = join(dir, `${SESSION}.jsonl`);
    await writeFile(path, toJsonl(realisticLines()));
    const result = await loadTranscriptFile(path);
    expect(result.sessionId).toBe(SESSION);
    expect(result.messages).toHaveLength(5);
  });

  it('drops thinking blocks with their signatures, from transcripts and neutral JSON alike', async () => {
    const path = join(dir, `${SESSION}.jsonl`);
    await writeFile(path, toJsonl(realisticLines()));
    const loaded = await loadTranscriptFile(path);
    // Loading is faithful; withoutThinking is the one step before another model sees it.
    expect(loaded.messages.flatMap((m) => m.content.map((b) => b.type))).toContain('thinking');
    const blocks = withoutThinking(loaded.messages).flatMap((m) => m.content.map((b) => b.type));
    expect(blocks).not.toContain('thinking');
    expect(blocks).toContain('tool_use');
    const neutral = join(dir, 'n.json');
    await writeFile(
      neutral,
      JSON.stringify([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature: 's' }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 's' },
            { type: 'text', text: 'hello' },
          ],
        },
      ]),
    );
    expect(withoutThinking((await loadTranscriptFile(neutral)).messages)).toEqual([
      { id: 'm0', role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { id: 'm2', role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
    ]);
  });

  it('reads a one-line .jsonl transcript as a transcript, not as neutral JSON', async () => {
    const path = join(dir, 'one.jsonl');
    await writeFile(path, JSON.stringify(user('u1', null, 'only line')));
    const result = await loadTranscriptFile(path);
    expect(result.messages).toEqual([
      { id: 'u1', role: 'user', content: [{ type: 'text', text: 'only line' }] },
    ]);
  });

  it('reads neutral messages as an array or under "messages"', async () => {
    const messages = [
      { id: 'x', role: 'user', content: 'plain string' },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    ];
    const arrayPath = join(dir, 'a.json');
    const objectPath = join(dir, 'o.json');
    await writeFile(arrayPath, JSON.stringify(messages));
    await writeFile(objectPath, JSON.stringify({ messages }));
    const expected = [
      { id: 'x', role: 'user', content: [{ type: 'text', text: 'plain string' }] },
      { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    ];
    expect((await loadTranscriptFile(arrayPath)).messages).toEqual(expected);
    expect((await loadTranscriptFile(objectPath)).messages).toEqual(expected);
  });

  it('reads a chat-completions log: system skipped, tool calls paired with tool results', async () => {
    const path = join(dir, 'chat.json');
    await writeFile(
      path,
      JSON.stringify([
        { role: 'system', content: 'You are helpful.' },
        { role: 'user', content: [{ type: 'text', text: 'list the files' }] },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'ls', arguments: '{"path":"."}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'a.txt' },
        { role: 'assistant', content: 'There is a.txt.' },
      ]),
    );
    expect((await loadTranscriptFile(path)).messages).toEqual([
      { id: 'm0', role: 'user', content: [{ type: 'text', text: 'list the files' }] },
      {
        id: 'm1',
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'c1', name: 'ls', input: { path: '.' } }],
      },
      {
        id: 'm2',
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'a.txt' }],
      },
      { id: 'm3', role: 'assistant', content: [{ type: 'text', text: 'There is a.txt.' }] },
    ]);
  });

  it('refuses a neutral message without a role and reports a missing file', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify([{ content: 'no role' }]));
    await expect(loadTranscriptFile(bad)).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(loadTranscriptFile(join(dir, 'missing.jsonl'))).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});
