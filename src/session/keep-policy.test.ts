import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseClaudeCodeTranscript } from '../llm/claude-code-transcript.js';
import { estimateMessagesTokens } from '../llm/tokens.js';
import type { Message } from '../llm/types.js';
import {
  assistantText,
  ClaudeCodeTranscript,
  checkCut,
  filler,
  toolRound,
  userText,
} from './__fixtures__/conversation.js';
import { hasText, safeCuts } from './cut-points.js';
import { chooseKeptRange, chooseNewestWithinBudget, DEFAULT_KEEP_LIMITS } from './keep-policy.js';

function chat(turns: number, tokensEach: number): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < turns; i++) {
    out.push(
      userText(`question ${i} ${filler(tokensEach)}`),
      assistantText(`answer ${i} ${filler(tokensEach)}`),
    );
  }
  return out;
}

describe('chooseKeptRange: floors and ceiling', () => {
  it('a single 12,000-token tool result after the boundary does not satisfy the minimum alone', () => {
    const history = chat(10, 300);
    const boundary = history.length - 1;
    const [call, result] = toolRound([
      { name: 'read', input: { path: 'dump.log' }, result: filler(12_000) },
    ]);
    const messages = [...history, call, result];
    const range = chooseKeptRange(messages, boundary);
    const kept = messages.slice(range.start);
    // The tool result alone is over the token floor, but it has no text: extend to 5 text messages.
    expect(range.start).toBeLessThan(boundary + 1);
    expect(kept.filter(hasText).length).toBeGreaterThanOrEqual(5);
    expect(range.textMessages).toBeGreaterThanOrEqual(5);
    expect(range.tokens).toBe(estimateMessagesTokens(kept));
    expect(range.tokens).toBeLessThanOrEqual(DEFAULT_KEEP_LIMITS.maxTokens);
  });

  it('keeps everything after the boundary when it already meets both floors', () => {
    const messages = chat(40, 200);
    const boundary = 9;
    const range = chooseKeptRange(messages, boundary);
    expect(range.start).toBe(boundary + 1);
  });

  it('extends backwards until 10,000 tokens and 5 text messages, one message at a time', () => {
    const messages = chat(40, 400); // ~400 tokens per message
    const range = chooseKeptRange(messages, messages.length - 3);
    expect(range.tokens).toBeGreaterThanOrEqual(10_000);
    expect(range.tokens - estimateMessagesTokens([messages[range.start]!])).toBeLessThan(10_000);
  });

  it('never extends beyond 40,000 tokens', () => {
    // Each chat message is ~9,000 tokens; the boundary leaves a 32,000-token round after it.
    const big = [
      ...chat(5, 9_000),
      userText('read it'),
      ...toolRound([{ name: 'read', result: filler(32_000) }]),
    ];
    const range = chooseKeptRange(big, big.length - 3);
    expect(range.start).toBe(big.length - 3); // 'read it' fits; a 9,000-token message would not
    expect(range.tokens).toBeLessThanOrEqual(40_000);
    expect(range.reasons.join('\n')).toMatch(/would exceed 40000/);
  });

  it('keeps everything after the boundary even above the ceiling (nothing the notes miss is dropped)', () => {
    const messages = [
      ...chat(5, 100),
      userText('read it'),
      ...toolRound([{ name: 'read', result: filler(45_000) }]),
    ];
    const range = chooseKeptRange(messages, 10);
    expect(range.start).toBe(11);
    expect(range.tokens).toBeGreaterThan(40_000);
  });

  it('starts from the end when the boundary is unknown', () => {
    const messages = chat(30, 500);
    const range = chooseKeptRange(messages, -1);
    expect(range.tokens).toBeGreaterThanOrEqual(10_000);
    expect(range.reasons[0]).toMatch(/no notes boundary/);
  });
});

/** A Claude Code session: replies split over lines (thinking, text, two parallel tool calls). */
function claudeCodeSession(resultTokens: number): ClaudeCodeTranscript {
  const t = new ClaudeCodeTranscript();
  t.user('The port from config.yaml is ignored, fix it.');
  for (let i = 0; i < 6; i++) {
    const a = `toolu_01A${i}`;
    const b = `toolu_01B${i}`;
    t.reply(
      { thinking: `step ${i}: check both files` },
      { text: `Reading the loader and the config (step ${i}).` },
      {
        toolUse: { id: a, name: 'Read', input: { file_path: '/home/USER/project/src/config.ts' } },
      },
      { toolUse: { id: b, name: 'Grep', input: { pattern: 'port' } } },
    );
    t.results(
      { id: a, content: filler(resultTokens) },
      { id: b, content: 'src/config.ts:12: port' },
    );
  }
  t.reply({ text: 'The loader drops the port; fixed in src/config.ts:12.' });
  t.user('Thanks. Now add a test.');
  return t;
}

describe('cuts never split a tool call from its result or one reply (Claude Code transcripts)', () => {
  const noFloors = { minTokens: 0, minTextMessages: 0, maxTokens: 40_000 };

  it('regrouped transcript: a boundary on a reply moves the cut back before its tool_use', () => {
    const { messages } = parseClaudeCodeTranscript(claudeCodeSession(50).toJsonl());
    const replyIndex = messages.findIndex(
      (m) => m.role === 'assistant' && m.content.some((b) => b.type === 'tool_use'),
    );
    const resultIndex = replyIndex + 1;
    expect(messages[resultIndex]!.content.every((b) => b.type === 'tool_result')).toBe(true);
    // Notes cover the reply, so the naive cut lands on its results: it moves back to the reply.
    const range = chooseKeptRange(messages, replyIndex, noFloors);
    expect(range.start).toBe(replyIndex);
    expect(range.reasons[1]).toBe(
      `cut moved from #${resultIndex} to #${replyIndex} so no tool result loses its call and no reply is split`,
    );
    expect(checkCut(messages, range.start)).toEqual([]);
    // The regrouped reply keeps all its blocks: thinking, text and both calls.
    expect(messages[replyIndex]!.content.map((b) => b.type)).toEqual([
      'thinking',
      'text',
      'tool_use',
      'tool_use',
    ]);
  });

  it('split lines (one block per line, shared message id): cut inside a reply moves to its first line', () => {
    const t = claudeCodeSession(50);
    const messages = t.naiveMessages();
    // The first line of the third reply is its thinking block; the boundary sits right on it.
    const replyStarts = messages
      .map((m, i) => ({ m, i }))
      .filter(({ m, i }) => m.role === 'assistant' && messages[i - 1]?.role !== 'assistant');
    const third = replyStarts[2]!.i;
    const range = chooseKeptRange(messages, third, noFloors); // naive cut: between thinking and text
    expect(range.start).toBe(third);
    expect(range.reasons.join('\n')).toMatch(/cut moved from #\d+ to #\d+/);
    expect(checkCut(messages, range.start)).toEqual([]);
  });

  it('split lines: a cut between a tool_use line and its result line moves before the whole reply', () => {
    const t = claudeCodeSession(50);
    const messages = t.naiveMessages();
    const resultLine = messages.findIndex((m) => m.content.some((b) => b.type === 'tool_result'));
    const range = chooseKeptRange(messages, resultLine - 1, noFloors);
    // Lines: thinking, text, tool_use A, tool_use B, result A … : the reply begins 4 lines earlier.
    expect(range.start).toBe(resultLine - 4);
    expect(messages[range.start]!.content[0]!.type).toBe('thinking');
    expect(checkCut(messages, range.start)).toEqual([]);
  });

  it('with real defaults: a huge result after a mid-reply boundary still moves the cut earlier', () => {
    const t = claudeCodeSession(8_000); // six rounds of 8,000-token results: > 40,000 after the boundary
    const messages = t.naiveMessages();
    const firstToolUse = messages.findIndex((m) => m.content.some((b) => b.type === 'tool_use'));
    const range = chooseKeptRange(messages, firstToolUse, DEFAULT_KEEP_LIMITS);
    expect(range.tokens).toBeGreaterThan(40_000);
    expect(range.start).toBe(firstToolUse - 2); // thinking + text lines of the same reply
    expect(checkCut(messages, range.start)).toEqual([]);
  });

  it('property: every chosen range is a valid conversation and respects the ceiling when extending', () => {
    const round = fc.record({
      text: fc.boolean(),
      calls: fc.integer({ min: 0, max: 3 }),
      tokens: fc.integer({ min: 1, max: 6_000 }),
      split: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(round, { minLength: 1, maxLength: 25 }), fc.nat(), (rounds, pick) => {
        const t = new ClaudeCodeTranscript();
        rounds.forEach((r, i) => {
          t.user(`turn ${i} ${filler(Math.ceil(r.tokens / 10))}`);
          const ids = Array.from({ length: r.calls }, (_, k) => `toolu_${i}_${k}`);
          const blocks = [
            ...(r.text || r.calls === 0 ? [{ text: `reply ${i}` }] : []),
            ...ids.map((id) => ({ toolUse: { id, name: 'Read', input: { i } } })),
          ];
          t.reply(...blocks);
          if (ids.length) t.results(...ids.map((id) => ({ id, content: filler(r.tokens) })));
        });
        for (const messages of [
          t.naiveMessages(),
          parseClaudeCodeTranscript(t.toJsonl()).messages,
        ]) {
          const boundary = (pick % (messages.length + 1)) - 1;
          const range = chooseKeptRange(messages, boundary);
          expect(checkCut(messages, range.start)).toEqual([]);
          const initial = boundary >= 0 ? boundary + 1 : messages.length;
          expect(range.start).toBeLessThanOrEqual(initial);
          const mandatory = safeCuts(messages).lastIndexOf(true, initial);
          if (range.start < mandatory) expect(range.tokens).toBeLessThanOrEqual(40_000);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('chooseNewestWithinBudget', () => {
  it('keeps the newest messages that fit, cut at a safe point', () => {
    const messages = [
      ...chat(10, 1_000),
      userText('check the log'),
      ...toolRound([{ name: 'read', result: filler(3_000) }]),
      assistantText('done'),
    ];
    const range = chooseNewestWithinBudget(messages, 8_000);
    expect(range.tokens).toBeLessThanOrEqual(8_000);
    expect(checkCut(messages, range.start)).toEqual([]);
    expect(range.tokens + estimateMessagesTokens([messages[range.start - 1]!])).toBeGreaterThan(
      8_000,
    );
  });

  it('keeps the newest unit even when it alone is over budget, and says so', () => {
    const messages = [
      ...chat(2, 10),
      userText('read it'),
      ...toolRound([{ name: 'read', result: filler(9_000) }]),
    ];
    const range = chooseNewestWithinBudget(messages, 1_000);
    expect(range.start).toBe(messages.length - 2);
    expect(range.reasons[0]).toMatch(/over the 1000 budget; kept anyway/);
  });

  it('says so when the whole history fits and nothing is removed', () => {
    const range = chooseNewestWithinBudget(chat(4, 100), 40_000);
    expect(range.start).toBe(0);
    expect(range.reasons).toEqual([
      expect.stringMatching(
        /^the whole history \(8 message\(s\), \d+ tokens\) fits .*nothing removed$/,
      ),
    ]);
  });
});
