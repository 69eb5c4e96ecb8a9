import type { Message } from 'engram/llm';
import { estimateMessagesTokens } from 'engram/llm';
import { chooseKeptRange, decideNotesUpdate } from 'engram/session';
import { describe, expect, it } from 'vitest';
import { prose } from '../support/transcripts.js';
import { call, padTo, resultFor, text } from './support.js';

describe('update thresholds', () => {
  const history = () =>
    padTo([text('user', 'reconcile the March ledger'), text('assistant', '')], 12_000);

  it('9,999 tokens: no first update; 10,000 after a pause: first update', () => {
    const small = padTo([text('user', 'hello'), text('assistant', '')], 9_999);
    expect(decideNotesUpdate({ messages: small, cursor: {} }).kind).toBe('skip');
    const enough = padTo([text('user', 'hello'), text('assistant', '')], 10_000);
    expect(decideNotesUpdate({ messages: enough, cursor: {} }).kind).toBe('update');
  });

  function grown(calls: number, growth: number, endWithText: boolean) {
    const before = history();
    const cursor = {
      tokensAtLastUpdate: estimateMessagesTokens(before),
      lastMessageId: before.at(-1)!.id,
    };
    const after = [...before];
    for (let i = 0; i < calls; i++) {
      const use = call();
      after.push(use, resultFor(use, 'ok'));
    }
    if (endWithText) after.push(text('assistant', ''));
    padTo(after, cursor.tokensAtLastUpdate + growth);
    return decideNotesUpdate({ messages: after, cursor });
  }

  it('+5,000 tokens with 2 tool calls and tools in the last turn: no update', () => {
    expect(grown(2, 5_000, false).kind).toBe('skip');
  });
  it('+5,000 tokens with 3 tool calls: update', () => {
    expect(grown(3, 5_000, false).kind).toBe('update');
  });
  it('+5,000 tokens and the last assistant turn made no tool call: update', () => {
    expect(grown(1, 5_000, true).kind).toBe('update');
    expect(grown(0, 5_000, true).kind).toBe('update');
  });
  it('many tool calls but +4,999 tokens: no update', () => {
    expect(grown(12, 4_999, false).kind).toBe('skip');
    expect(grown(12, 4_999, true).kind).toBe('skip');
  });

  it('re-reading one large file many times: cumulative usage is huge, at most one update', () => {
    const file = prose(6_000, 'schema');
    const messages: Message[] = [text('user', 'why does the accrual job double-post?')];
    let cursor: { tokensAtLastUpdate?: number; lastMessageId?: string } = {};
    let cumulative = 0;
    let updates = 0;
    for (let i = 0; i < 20; i++) {
      const use: Message = {
        id: `r${i}`,
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: `toolu_r${i}`,
            name: 'Read',
            input: { file_path: '/srv/ledger/schema.sql' },
          },
        ],
      };
      // Claude Code answers a re-read of an unchanged file with a short stub, not the file again.
      messages.push(use, resultFor(use, i === 0 ? file : 'File unchanged since last read.'));
      cumulative += estimateMessagesTokens(messages); // what the provider bills: the whole context each call
      const d = decideNotesUpdate({ messages, cursor });
      if (d.kind === 'update') {
        updates++;
        cursor = { tokensAtLastUpdate: d.contextTokens, lastMessageId: messages.at(-1)!.id };
      }
    }
    expect(cumulative).toBeGreaterThan(100_000);
    expect(updates).toBeLessThanOrEqual(1);
  });
});

describe('cut rules', () => {
  it('a boundary inside a multi-part reply or between tool_use and tool_result moves earlier', () => {
    const m: Message[] = [text('user', 'start')];
    for (let i = 0; i < 8; i++)
      m.push(text('assistant', prose(400, `a${i}`)), text('user', prose(400, `u${i}`)));
    const at = m.length;
    // One reply in three messages sharing the API message id (as a host that does not regroup).
    m.push(
      {
        id: 'msg_split',
        role: 'assistant',
        content: [{ type: 'thinking', thinking: 'compare totals', signature: 's' }],
      },
      {
        id: 'msg_split',
        role: 'assistant',
        content: [{ type: 'text', text: 'Summing the journal.' }],
      },
      {
        id: 'msg_split',
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: 'toolu_sum',
            name: 'Bash',
            input: { command: 'psql -c "select sum(amount) from journal"' },
          },
        ],
      },
      {
        id: 'res',
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_sum', content: prose(11_000, 'rows') },
        ],
      },
    );
    for (let i = 0; i < 6; i++)
      m.push(text('assistant', prose(300, `b${i}`)), text('user', prose(300, `v${i}`)));
    const limits = { minTokens: 1, minTextMessages: 1, maxTokens: 40_000 };
    for (const boundary of [at, at + 1, at + 2]) {
      const range = chooseKeptRange(m, boundary, limits);
      expect(range.start, `boundary ${boundary}`).toBeLessThanOrEqual(at);
    }
  });
});
