/**
 * A writer for Claude Code-shaped session transcripts (JSONL), following the shapes Claude Code
 * writes to its session files: envelope fields on every line, one assistant reply
 * split over several lines sharing `message.id`, tool results as user lines with `toolUseResult`,
 * progress and file-history-snapshot lines in between. Acceptance tests only.
 */
import { randomUUID } from 'node:crypto';

export type ReplyBlock =
  | { thinking: string }
  | { text: string }
  | { toolUse: { id: string; name: string; input: unknown } };

export class CcTranscript {
  readonly lines: Record<string, unknown>[] = [];
  private parent: string | null = null;
  private clock = Date.parse('2026-03-14T09:00:00.000Z');
  private replies = 0;

  constructor(
    readonly sessionId: string,
    readonly cwd: string,
  ) {}

  private envelope(type: string) {
    this.clock += 1_500;
    const uuid = randomUUID();
    const line = {
      parentUuid: this.parent,
      isSidechain: false,
      userType: 'external',
      cwd: this.cwd,
      sessionId: this.sessionId,
      version: '2.1.39',
      gitBranch: 'feature/ledger',
      type,
      uuid,
      timestamp: new Date(this.clock).toISOString(),
    };
    this.parent = uuid;
    return line;
  }

  user(text: string): this {
    this.lines.push({ ...this.envelope('user'), message: { role: 'user', content: text } });
    return this;
  }

  /** One API reply, written one content block per line, all lines sharing message.id. */
  reply(...blocks: ReplyBlock[]): this {
    this.replies += 1;
    const msgId = `msg_01Acc${String(this.replies).padStart(6, '0')}`;
    const requestId = `req_01Acc${String(this.replies).padStart(6, '0')}`;
    for (const b of blocks) {
      const content =
        'thinking' in b
          ? { type: 'thinking', thinking: b.thinking, signature: `sig-${this.replies}` }
          : 'text' in b
            ? { type: 'text', text: b.text }
            : { type: 'tool_use', id: b.toolUse.id, name: b.toolUse.name, input: b.toolUse.input };
      this.lines.push({
        ...this.envelope('assistant'),
        requestId,
        message: {
          model: 'claude-sonnet-4-5',
          id: msgId,
          type: 'message',
          role: 'assistant',
          content: [content],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: 12,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 900,
            output_tokens: 40,
          },
        },
      });
    }
    return this;
  }

  result(toolUseId: string, output: string, isError = false): this {
    this.lines.push({
      ...this.envelope('user'),
      message: {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: toolUseId, content: output, is_error: isError },
        ],
      },
      toolUseResult: { stdout: output, stderr: '', interrupted: false, isImage: false },
    });
    return this;
  }

  /** Noise Claude Code writes that is not conversation. */
  noise(): this {
    this.lines.push({
      ...this.envelope('progress'),
      data: {
        type: 'hook_progress',
        hookEvent: 'PostToolUse',
        hookName: 'PostToolUse:Bash',
        command: 'true',
      },
      toolUseID: 'toolu_none',
      parentToolUseID: 'toolu_none',
    });
    this.lines.push({
      type: 'file-history-snapshot',
      messageId: randomUUID(),
      snapshot: {
        messageId: randomUUID(),
        trackedFileBackups: {},
        timestamp: new Date(this.clock).toISOString(),
      },
      isSnapshotUpdate: false,
    });
    return this;
  }

  toJsonl(count = this.lines.length): string {
    return `${this.lines
      .slice(0, count)
      .map((l) => JSON.stringify(l))
      .join('\n')}\n`;
  }
}

/** Deterministic varied text of about `tokens` tokens at ~4 characters a token. */
export function prose(tokens: number, seed = 'ledger'): string {
  const words = [
    'balance',
    'invoice',
    'reconcile',
    'tenant',
    'posting',
    'journal',
    'currency',
    'accrual',
  ];
  let out = '';
  let i = 0;
  while (out.length < tokens * 4) {
    out += `${words[i % words.length]}-${seed}-${i} `;
    i++;
  }
  return out.slice(0, tokens * 4);
}
