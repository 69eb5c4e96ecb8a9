/**
 * Test conversations. `ClaudeCodeTranscript` writes JSONL shaped like a real Claude Code session
 * (the shapes Claude Code writes to its session JSONL files): one assistant reply split over several
 * lines, one content block per line, sharing `message.id` and `requestId`; tool results as user
 * lines whose parent is the tool_use line; an envelope with uuid/parentUuid/sessionId/cwd.
 */
import { randomUUID } from 'node:crypto';
import type { ContentBlock, Message } from '../../llm/types.js';

/** Text of exactly `tokens` estimated tokens (4 characters a token). */
export function filler(tokens: number, seed = 'x'): string {
  return seed.repeat(4 * tokens).slice(0, 4 * tokens);
}

let counter = 0;
const nextId = (prefix: string) => `${prefix}-${++counter}`;

export function userText(text: string, id = nextId('u')): Message {
  return { id, role: 'user', content: [{ type: 'text', text }] };
}

export function assistantText(text: string, id = nextId('a')): Message {
  return { id, role: 'assistant', content: [{ type: 'text', text }] };
}

/** An assistant message calling tools (optionally with text) and the user message answering them. */
export function toolRound(
  calls: Array<{ name: string; input?: unknown; result: string }>,
  text?: string,
): [Message, Message] {
  const ids = calls.map(() => `toolu_${randomUUID().replaceAll('-', '').slice(0, 20)}`);
  const content: ContentBlock[] = text ? [{ type: 'text', text }] : [];
  calls.forEach((c, i) =>
    content.push({ type: 'tool_use', id: ids[i]!, name: c.name, input: c.input ?? {} }),
  );
  return [
    { id: nextId('a'), role: 'assistant', content },
    {
      id: nextId('r'),
      role: 'user',
      content: calls.map((c, i) => ({ type: 'tool_result', tool_use_id: ids[i]!, content: c.result })),
    },
  ];
}

type ReplyBlock =
  | { text: string }
  | { thinking: string }
  | { toolUse: { id: string; name: string; input: unknown } };

export class ClaudeCodeTranscript {
  readonly lines: Record<string, unknown>[] = [];
  private parent: string | null = null;
  private toolLine = new Map<string, string>();
  private replies = 0;

  constructor(
    readonly sessionId = randomUUID(),
    readonly cwd = '/home/USER/project',
  ) {}

  private envelope(type: string) {
    const uuid = randomUUID();
    const line = {
      parentUuid: this.parent,
      isSidechain: false,
      userType: 'external',
      cwd: this.cwd,
      sessionId: this.sessionId,
      version: '2.1.39',
      gitBranch: 'main',
      type,
      uuid,
      timestamp: new Date(Date.UTC(2026, 10, 29, 12, 0, this.lines.length)).toISOString(),
    };
    this.parent = uuid;
    return line;
  }

  user(text: string): this {
    this.lines.push({ ...this.envelope('user'), message: { role: 'user', content: text } });
    return this;
  }

  /** One assistant reply, written one block per line like Claude Code does. */
  reply(...blocks: ReplyBlock[]): this {
    const id = `msg_${String(++this.replies).padStart(4, '0')}${randomUUID().slice(0, 8)}`;
    const requestId = `req_${randomUUID().slice(0, 12)}`;
    for (const block of blocks) {
      const content =
        'text' in block
          ? { type: 'text', text: block.text }
          : 'thinking' in block
            ? { type: 'thinking', thinking: block.thinking, signature: 'sig' }
            : { type: 'tool_use', ...block.toolUse, caller: { type: 'direct' } };
      const line = {
        ...this.envelope('assistant'),
        requestId,
        message: {
          model: 'claude-sonnet-4-5',
          id,
          type: 'message',
          role: 'assistant',
          content: [content],
          stop_reason: null,
          usage: { input_tokens: 10, output_tokens: 5 },
        },
      };
      if ('toolUse' in block) this.toolLine.set(block.toolUse.id, line.uuid);
      this.lines.push(line);
    }
    return this;
  }

  /** Tool results, one line each, pointing at the line of their tool_use. */
  results(...results: Array<{ id: string; content: string; isError?: boolean }>): this {
    const chainEnd = this.parent;
    for (const r of results) {
      const line = this.envelope('user');
      line.parentUuid = this.toolLine.get(r.id) ?? chainEnd;
      this.lines.push({
        ...line,
        message: {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: r.id, content: r.content, is_error: r.isError ?? false },
          ],
        },
        toolUseResult: { stdout: r.content, stderr: '', interrupted: false },
      });
    }
    return this;
  }

  toJsonl(): string {
    return `${this.lines.map((l) => JSON.stringify(l)).join('\n')}\n`;
  }

  /**
   * The lines as messages WITHOUT regrouping, one per line, as a host that does not merge split
   * replies would hold them; the Anthropic message id travels as `providerMessageId`.
   */
  naiveMessages(): Message[] {
    return this.lines.map((line) => {
      const message = line.message as { role: 'user' | 'assistant'; id?: string; content: unknown };
      const content: ContentBlock[] =
        typeof message.content === 'string'
          ? [{ type: 'text', text: message.content }]
          : (message.content as Array<Record<string, unknown>>).map((b) => {
              if (b.type === 'tool_use') return { type: 'tool_use', id: b.id, name: b.name, input: b.input } as ContentBlock;
              if (b.type === 'tool_result') return { type: 'tool_result', tool_use_id: b.tool_use_id, content: b.content } as ContentBlock;
              if (b.type === 'thinking') return { type: 'thinking', thinking: b.thinking } as ContentBlock;
              return { type: 'text', text: b.text } as ContentBlock;
            });
      const out: Message & { providerMessageId?: string } = {
        id: String(line.uuid),
        role: message.role,
        content,
      };
      if (message.id) out.providerMessageId = message.id;
      return out;
    });
  }
}

/** Every kept tool_result has its tool_use kept, and no reply key appears on both sides of `start`. */
export function checkCut(messages: readonly Message[], start: number): string[] {
  const problems: string[] = [];
  const kept = messages.slice(start);
  const keptCalls = new Set<string>();
  for (const m of kept) for (const b of m.content) if (b.type === 'tool_use') keptCalls.add(b.id);
  const allCalls = new Set<string>();
  for (const m of messages) for (const b of m.content) if (b.type === 'tool_use') allCalls.add(b.id);
  for (const m of kept) {
    for (const b of m.content) {
      if (b.type === 'tool_result' && allCalls.has(b.tool_use_id) && !keptCalls.has(b.tool_use_id)) {
        problems.push(`orphan result ${b.tool_use_id}`);
      }
    }
  }
  const key = (m: Message) => (m as { providerMessageId?: string }).providerMessageId ?? m.id;
  const before = new Set(messages.slice(0, start).filter((m) => m.role === 'assistant').map(key));
  for (const m of kept) if (m.role === 'assistant' && before.has(key(m))) problems.push(`split reply ${key(m)}`);
  const a = messages[start - 1];
  const b = messages[start];
  if (a?.role === 'assistant' && b?.role === 'assistant') problems.push('cut between consecutive assistant messages');
  return problems;
}
