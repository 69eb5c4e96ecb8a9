import { describe, expect, it } from 'vitest';
import { estimateMessagesTokens } from '../llm/tokens.js';
import type { Message } from '../llm/types.js';
import { assistantText, filler, toolRound, userText } from './__fixtures__/conversation.js';
import { decideNotesUpdate, type NotesCursor } from './thresholds.js';

/** A conversation of exactly `tokens` estimated tokens, ending with a plain assistant reply. */
function conversationOf(tokens: number): Message[] {
  const answer = assistantText('ok');
  const used = estimateMessagesTokens([answer]);
  return [userText(filler(tokens - used)), answer];
}

/**
 * `base` + a tail of `toolCalls` tool rounds, padded so the context grows by exactly `growth`
 * tokens. `lastTurnTools` decides whether the tail ends with a tool round or a plain reply.
 */
function grown(
  base: Message[],
  growth: number,
  toolCalls: number,
  lastTurnTools: boolean,
): Message[] {
  const tail: Message[] = [];
  for (let i = 0; i < toolCalls; i++)
    tail.push(...toolRound([{ name: 'grep', input: { pattern: 'x' }, result: 'match' }]));
  if (!lastTurnTools) tail.push(assistantText('Done for now.'));
  if (lastTurnTools && toolCalls === 0) throw new Error('a tool turn needs a tool call');
  const pad = userText('');
  const rest = estimateMessagesTokens(tail);
  pad.content = [{ type: 'text', text: filler(growth - rest) }];
  const out = [...base, pad, ...tail];
  expect(estimateMessagesTokens(out) - estimateMessagesTokens(base)).toBe(growth);
  return out;
}

const base = conversationOf(10_000);
const afterFirstUpdate: NotesCursor = {
  tokensAtLastUpdate: 10_000,
  lastMessageId: base.at(-1)!.id,
};

describe('decideNotesUpdate: the threshold table', () => {
  it('9,999 tokens: notes do not start', () => {
    const d = decideNotesUpdate({ messages: conversationOf(9_999), cursor: {} });
    expect(d.kind).toBe('skip');
    expect(d.contextTokens).toBe(9_999);
    expect(d.reason).toMatch(/start at 10000/);
  });

  it('10,000 tokens at a pause: the first update runs', () => {
    const d = decideNotesUpdate({ messages: base, cursor: {} });
    expect(d).toMatchObject({ kind: 'update', contextTokens: 10_000 });
  });

  it('+5,000 tokens with 2 tool calls and tools in the last turn: no update', () => {
    const d = decideNotesUpdate({
      messages: grown(base, 5_000, 2, true),
      cursor: afterFirstUpdate,
    });
    expect(d).toMatchObject({
      kind: 'skip',
      growthTokens: 5_000,
      toolCallsSince: 2,
      lastTurnHadToolCalls: true,
    });
  });

  it('+5,000 tokens with 3 tool calls: update', () => {
    const d = decideNotesUpdate({
      messages: grown(base, 5_000, 3, true),
      cursor: afterFirstUpdate,
    });
    expect(d).toMatchObject({ kind: 'update', growthTokens: 5_000, toolCallsSince: 3 });
  });

  it('+5,000 tokens with no tools in the last turn: update (a natural pause)', () => {
    const d = decideNotesUpdate({
      messages: grown(base, 5_000, 1, false),
      cursor: afterFirstUpdate,
    });
    expect(d).toMatchObject({ kind: 'update', toolCallsSince: 1, lastTurnHadToolCalls: false });
  });

  it('many tool calls but +4,999 tokens: no update (growth is necessary)', () => {
    const d = decideNotesUpdate({
      messages: grown(base, 4_999, 12, true),
      cursor: afterFirstUpdate,
    });
    expect(d).toMatchObject({ kind: 'skip', growthTokens: 4_999, toolCallsSince: 12 });
    const pause = decideNotesUpdate({
      messages: grown(base, 4_999, 0, false),
      cursor: afterFirstUpdate,
    });
    expect(pause.kind).toBe('skip');
  });

  it('counts tool calls only after the message the notes cover', () => {
    const earlier = [
      ...base,
      ...toolRound([{ name: 'a', result: 'r' }]),
      ...toolRound([{ name: 'b', result: 'r' }]),
    ];
    const cursor = { tokensAtLastUpdate: 10_000, lastMessageId: earlier.at(-1)!.id };
    const d = decideNotesUpdate({ messages: grown(earlier, 5_000, 1, true), cursor });
    expect(d.toolCallsSince).toBe(1);
  });
});

describe('context growth, not cumulative usage', () => {
  it('re-reading one large file many times triggers at most one update', () => {
    let messages = conversationOf(20_000);
    let cursor: NotesCursor = { tokensAtLastUpdate: 20_000, lastMessageId: messages.at(-1)!.id };
    let cumulativeInput = 0;
    let updates = 0;
    messages = [
      ...messages,
      userText('Why does parseConfig drop the port? Look at src/big.ts again each time.'),
    ];
    for (let read = 0; read < 15; read++) {
      // The first read brings the 5,000-token file in; re-reads of the unchanged file add a stub.
      const result =
        read === 0
          ? filler(5_000, 'const port = 1;\n')
          : 'File unchanged since last read: src/big.ts';
      messages = [
        ...messages,
        ...toolRound([{ name: 'read', input: { path: 'src/big.ts' }, result }]),
      ];
      // Each model call resends the whole context: this is what API usage would add up.
      cumulativeInput += estimateMessagesTokens(messages);
      const d = decideNotesUpdate({ messages, cursor });
      if (d.kind === 'update') {
        updates++;
        cursor = { tokensAtLastUpdate: d.contextTokens, lastMessageId: messages.at(-1)!.id };
      }
    }
    expect(cumulativeInput).toBeGreaterThan(300_000);
    expect(estimateMessagesTokens(messages) - 20_000).toBeLessThan(10_000);
    expect(updates).toBe(1);
  });
});
