import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  fromAnthropicContent,
  fromAnthropicRequest,
  fromAnthropicUsage,
  toAnthropicMessage,
  toAnthropicPrefix,
} from './anthropic-convert.js';
import {
  fromOpenAIMessage,
  fromOpenAIMessages,
  fromOpenAIUsage,
  toOpenAIMessages,
} from './openai-convert.js';
import type { ContentBlock, Message } from './types.js';

const conversation: Message[] = [
  { id: 'u1', role: 'user', content: [{ type: 'text', text: 'read a.md' }] },
  {
    id: 'a1',
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'plan', signature: 'sig' },
      { type: 'text', text: 'reading' },
      { type: 'tool_use', id: 't1', name: 'read', input: { path: 'a.md' } },
    ],
  },
  {
    id: 'u2',
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: '1\thi' }] },
    ],
  },
];

describe('openai tool calls without ids', () => {
  it('gives each call its own id so its result can find it', () => {
    const blocks = fromOpenAIMessage({
      content: null,
      tool_calls: [
        { id: '', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } },
        { id: '', type: 'function', function: { name: 'read', arguments: '{"path":"b"}' } },
      ],
    });
    const ids = blocks.map((b) => (b.type === 'tool_use' ? b.id : ''));
    expect(ids.every((id) => /^call_\d_/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(2);
  });
});

describe('anthropic converters', () => {
  it('round-trips content blocks', () => {
    for (const m of conversation) {
      const wire = toAnthropicMessage(m);
      expect(fromAnthropicContent(wire.content as never)).toEqual(m.content);
    }
  });

  it('drops unsigned thinking and keeps breakpoints off thinking blocks', () => {
    const m: Message = {
      id: 'a',
      role: 'assistant',
      content: [
        { type: 'text', text: 'x' },
        { type: 'thinking', thinking: 'y', signature: 's' },
      ],
    };
    const unsigned: Message = {
      id: 'b',
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'y' },
        { type: 'text', text: 'z' },
      ],
    };
    expect(toAnthropicMessage(unsigned).content).toEqual([{ type: 'text', text: 'z' }]);
    const prefix = toAnthropicPrefix({ tools: [], messages: [m] });
    expect(prefix.messages[0]!.content[0]).toMatchObject({ cache_control: { type: 'ephemeral' } });
    expect(prefix.tools).toBeUndefined();
    expect(prefix.system).toBeUndefined();
  });

  it('places the same breakpoints on a shared prefix whatever follows it', () => {
    const texts = fc.array(fc.string(), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(texts, texts, (shared, own) => {
        const toMsg = (t: string, i: number): Message => ({
          id: `m${i}`,
          role: i % 2 ? 'assistant' : 'user',
          content: [{ type: 'text', text: t }],
        });
        const main = shared.map(toMsg);
        const fork = [...main, ...own.map((t, i) => toMsg(t, i + shared.length))];
        const a = JSON.stringify(
          toAnthropicPrefix({ system: 's', tools: [], messages: main }).messages,
        );
        const b = JSON.stringify(
          toAnthropicPrefix({ system: 's', tools: [], messages: fork }, main.length - 1).messages,
        );
        return b.startsWith(a.slice(0, -1));
      }),
    );
  });

  it('keeps a main request intact inside its fork and never exceeds four breakpoints', () => {
    const roles = fc.array(fc.constantFrom('user' as const, 'assistant' as const), {
      minLength: 1,
      maxLength: 8,
    });
    const tool = { name: 't', input_schema: { type: 'object' } };
    fc.assert(
      fc.property(roles, roles, fc.boolean(), fc.boolean(), (shared, own, system, tools) => {
        const toMsg = (role: 'user' | 'assistant', i: number): Message => ({
          id: `m${i}`,
          role,
          content: [{ type: 'text', text: `t${i}` }],
        });
        const main = shared.map(toMsg);
        const fork = [...main, ...own.map((r, i) => toMsg(r, i + main.length))];
        const base = { ...(system ? { system: 's' } : {}), tools: tools ? [tool] : [] };
        const a = toAnthropicPrefix({ ...base, messages: main });
        const b = toAnthropicPrefix({ ...base, messages: fork }, main.length - 1);
        const count = (v: unknown) => JSON.stringify(v).split('"cache_control"').length - 1;
        return (
          JSON.stringify(b.messages.slice(0, main.length)) === JSON.stringify(a.messages) &&
          JSON.stringify(b.system) === JSON.stringify(a.system) &&
          JSON.stringify(b.tools) === JSON.stringify(a.tools) &&
          count(a) <= 4 &&
          count(b) <= 4 &&
          // The last shared message always carries a breakpoint.
          count(b.messages[main.length - 1]) === 1
        );
      }),
    );
  });

  it('maps usage including cache tokens', () => {
    expect(
      fromAnthropicUsage({
        input_tokens: 3,
        output_tokens: 4,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 7,
      }),
    ).toEqual({
      inputTokens: 3,
      outputTokens: 4,
      cacheReadTokens: 100,
      cacheWriteTokens: 7,
    });
  });
});

describe('openai converters', () => {
  it('round-trips a tool-calling conversation (thinking has no chat form)', () => {
    let n = 0;
    const wire = toOpenAIMessages({
      system: [
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
      ],
      messages: conversation,
    });
    expect(wire[0]).toEqual({ role: 'system', content: 'a\n\nb' });
    const back = fromOpenAIMessages(wire, () => `id${n++}`);
    expect(back.system).toBe('a\n\nb');
    const strip = (blocks: ContentBlock[]) => blocks.filter((b) => b.type !== 'thinking');
    expect(back.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(back.messages[1]!.content).toEqual(strip(conversation[1]!.content));
    expect(back.messages[2]!.content).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: '1\thi' },
    ]);
  });

  it('keeps broken tool arguments visible instead of throwing', () => {
    const back = fromOpenAIMessages(
      [
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c', type: 'function', function: { name: 'read', arguments: '{oops' } },
          ],
        },
      ],
      () => 'x',
    );
    expect(back.messages[0]!.content).toEqual([
      { type: 'tool_use', id: 'c', name: 'read', input: { _unparsed_arguments: '{oops' } },
    ]);
  });

  it('separates cached prompt tokens', () => {
    expect(
      fromOpenAIUsage({
        prompt_tokens: 100,
        completion_tokens: 5,
        prompt_tokens_details: { cached_tokens: 80 },
      }),
    ).toEqual({
      inputTokens: 20,
      outputTokens: 5,
      cacheReadTokens: 80,
      cacheWriteTokens: 0,
    });
  });
});

describe('anthropic request -> prefix', () => {
  it('reads a host request back without cache marks, and re-sends it identically', () => {
    const original = toAnthropicPrefix({
      system: 'sys',
      tools: [{ name: 'read', input_schema: { type: 'object' } }],
      messages: conversation,
    });
    let n = 0;
    const prefix = fromAnthropicRequest(original as never, () => `m${n++}`);
    expect(prefix.system).toEqual([{ type: 'text', text: 'sys' }]);
    expect(prefix.messages.map((m) => m.content)).toEqual(conversation.map((m) => m.content));
    expect(JSON.stringify(toAnthropicPrefix(prefix))).toBe(JSON.stringify(original));
    const simple = fromAnthropicRequest(
      { system: 'plain', messages: [{ role: 'user', content: 'hi' }] },
      () => 'x',
    );
    expect(simple).toEqual({
      system: 'plain',
      tools: [],
      messages: [{ id: 'x', role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
  });

  it('drops messages that convert to nothing and keeps the breakpoint on the shared prefix', () => {
    const messages: Message[] = [
      { id: 'u', role: 'user', content: [{ type: 'text', text: 'q' }] },
      { id: 'a', role: 'assistant', content: [{ type: 'thinking', thinking: 'unsigned' }] },
      { id: 'f', role: 'user', content: [{ type: 'text', text: 'fork prompt' }] },
    ];
    const wire = toAnthropicPrefix({ tools: [], messages }, 1);
    expect(wire.messages).toHaveLength(2);
    expect(wire.messages[0]!.content[0]).toMatchObject({ cache_control: { type: 'ephemeral' } });
    expect(wire.messages[1]!.content[0]).toMatchObject({ cache_control: { type: 'ephemeral' } });
  });
});
