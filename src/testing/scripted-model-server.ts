import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer. Text and tool calls make a normal reply; `error` makes an HTTP error. */
export interface ScriptStep {
  text?: string;
  toolUse?: Array<{ name: string; input: unknown; id?: string }>;
  /**
   * The reply as Anthropic content blocks (`text`, `tool_use`), in order; an alternative to
   * `text` + `toolUse` for scripts copied from real responses. Other block kinds are ignored.
   */
  content?: Array<{ type: string; text?: string; id?: string; name?: string; input?: unknown }>;
  error?: { status: number; message?: string };
  /** Drop the connection without answering (a network fault the client should retry). */
  hangUp?: boolean;
  /** Wait before answering (a slow model; lets tests abort or time out mid-request). */
  delayMs?: number;
  /** Anthropic stop_reason (OpenAI finish_reason is mapped from it). */
  stopReason?: string;
  /** Anthropic usage fields; OpenAI replies report the cache read as `cached_tokens`. */
  usage?: Partial<{
    input_tokens: number;
    output_tokens: number;
    cache_read_input_tokens: number;
    cache_creation_input_tokens: number;
  }>;
}

export interface RecordedRequest {
  api: 'anthropic' | 'openai';
  path: string;
  headers: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: a recorded JSON body is inspected freely by tests.
  body: any;
  rawBody: string;
}

/** A step, a bare string (a text reply), or a function of the request that returns a step. */
export type ScriptEntry = ScriptStep | string | ((request: RecordedRequest) => ScriptStep | string);

export interface ScriptedModelServer {
  /** http://127.0.0.1:<port> */
  url: string;
  /** Base URL for the Anthropic SDK (it appends /v1/messages). */
  anthropicBaseURL: string;
  /** Base URL for the OpenAI SDK (it appends /chat/completions). */
  openaiBaseURL: string;
  requests: RecordedRequest[];
  push(...steps: ScriptEntry[]): void;
  /** Steps not consumed yet. */
  pending(): number;
  close(): Promise<void>;
}

export interface ScriptedModelServerOptions {
  steps?: ScriptEntry[];
  /**
   * Answer once the script is empty; `null` answers 500 instead (default: end_turn text "ok"). A
   * function answers each request from what it asks (a test routing several clients at once).
   */
  fallback?: ScriptEntry | null;
  /** What `GET /v1/models` lists (default one model, `scripted-model`). */
  models?: string[];
}

const DEFAULT_FALLBACK: ScriptStep = { text: 'ok' };

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

function errorType(status: number): string {
  if (status === 429) return 'rate_limit_error';
  if (status === 400) return 'invalid_request_error';
  if (status === 401) return 'authentication_error';
  if (status === 529) return 'overloaded_error';
  return status >= 500 ? 'api_error' : 'invalid_request_error';
}

type ReplyBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown };

/** A step's reply as ordered blocks, tool calls with ids (generated when the script names none). */
function replyBlocks(step: ScriptStep): ReplyBlock[] {
  const newId = () => `toolu_${randomUUID().replaceAll('-', '')}`;
  const blocks: ReplyBlock[] = [];
  if (step.text !== undefined) blocks.push({ type: 'text', text: step.text });
  for (const t of step.toolUse ?? [])
    blocks.push({ type: 'tool_use', id: t.id ?? newId(), name: t.name, input: t.input });
  for (const b of step.content ?? []) {
    if (b.type === 'text' && typeof b.text === 'string')
      blocks.push({ type: 'text', text: b.text });
    else if (b.type === 'tool_use' && typeof b.name === 'string')
      blocks.push({ type: 'tool_use', id: b.id ?? newId(), name: b.name, input: b.input ?? {} });
  }
  return blocks;
}

function anthropicReply(step: ScriptStep, body: { model?: string }) {
  const content = replyBlocks(step);
  return {
    id: `msg_${randomUUID().replaceAll('-', '')}`,
    type: 'message',
    role: 'assistant',
    model: body.model ?? 'scripted',
    content,
    stop_reason:
      step.stopReason ?? (content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    usage: {
      input_tokens: step.usage?.input_tokens ?? 10,
      output_tokens: step.usage?.output_tokens ?? 5,
      cache_creation_input_tokens: step.usage?.cache_creation_input_tokens ?? 0,
      cache_read_input_tokens: step.usage?.cache_read_input_tokens ?? 0,
    },
  };
}

const FINISH: Record<string, string> = {
  end_turn: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  refusal: 'content_filter',
};

/** The same reply as Anthropic's server-sent events (`stream: true`), the way Claude Code reads it. */
function sendAnthropicStream(res: ServerResponse, reply: ReturnType<typeof anthropicReply>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const event = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  const { content, stop_reason, stop_sequence, usage, ...message } = reply;
  event('message_start', {
    message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage },
  });
  content.forEach((block, index) => {
    if (block.type === 'text') {
      event('content_block_start', { index, content_block: { type: 'text', text: '' } });
      event('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
    } else {
      event('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      });
      event('content_block_delta', {
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input ?? {}) },
      });
    }
    event('content_block_stop', { index });
  });
  event('message_delta', {
    delta: { stop_reason, stop_sequence },
    usage: { output_tokens: usage.output_tokens },
  });
  event('message_stop', {});
  res.end();
}

function openaiReply(step: ScriptStep, body: { model?: string }) {
  const blocks = replyBlocks(step);
  const calls = blocks
    .filter((b) => b.type === 'tool_use')
    .map((t) => ({
      id: t.id,
      type: 'function',
      function: { name: t.name, arguments: JSON.stringify(t.input ?? {}) },
    }));
  const texts = blocks.filter((b) => b.type === 'text').map((b) => b.text);
  const stop = step.stopReason ?? (calls.length ? 'tool_use' : 'end_turn');
  const input = step.usage?.input_tokens ?? 10;
  const output = step.usage?.output_tokens ?? 5;
  const cached = step.usage?.cache_read_input_tokens ?? 0;
  return {
    id: `chatcmpl-${randomUUID()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: body.model ?? 'scripted',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: texts.length ? texts.join('') : null,
          ...(calls.length ? { tool_calls: calls } : {}),
        },
        finish_reason: FINISH[stop] ?? 'stop',
      },
    ],
    // OpenAI counts cached tokens inside prompt_tokens.
    usage: {
      prompt_tokens: input + cached,
      completion_tokens: output,
      total_tokens: input + cached + output,
      prompt_tokens_details: { cached_tokens: cached },
    },
  };
}

/**
 * A loopback server that speaks the Anthropic Messages (JSON, or server-sent events when the
 * request says `stream: true`) and OpenAI Chat Completions APIs, answering each request with the next scripted step and recording every
 * request. Test support only: tests run the real SDKs against it.
 */
export async function startScriptedModelServer(
  optionsOrSteps: ScriptedModelServerOptions | ScriptEntry[] = {},
): Promise<ScriptedModelServer> {
  // `startScriptedModelServer([...steps])` is shorthand for `{ steps: [...] }`.
  const options = Array.isArray(optionsOrSteps) ? { steps: optionsOrSteps } : optionsOrSteps;
  const script: ScriptEntry[] = [...(options.steps ?? [])];
  const fallback = options.fallback === undefined ? DEFAULT_FALLBACK : options.fallback;
  const requests: RecordedRequest[] = [];
  const models = options.models ?? ['scripted-model'];

  const server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const api = path.endsWith('/v1/messages')
      ? 'anthropic'
      : path.endsWith('/chat/completions')
        ? 'openai'
        : undefined;
    // Model discovery (OpenAI-compatible `GET /v1/models`); not a model call, so not recorded.
    if (req.method === 'GET' && path.endsWith('/models'))
      return sendJson(res, 200, {
        object: 'list',
        data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'engram-test' })),
      });
    if (req.method !== 'POST' || api === undefined)
      return sendJson(res, 404, { error: { message: `no route ${req.method} ${path}` } });
    const rawBody = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(rawBody);
    } catch {
      return sendJson(res, 400, { error: { message: 'body is not JSON' } });
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
    const recorded: RecordedRequest = { api, path, headers, body, rawBody };
    requests.push(recorded);
    const entry = script.shift();
    const next = entry ?? fallback ?? undefined;
    const picked = typeof next === 'function' ? next(recorded) : next;
    const step = typeof picked === 'string' ? { text: picked } : picked;
    if (step?.delayMs) {
      const gone = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), step.delayMs);
        // The client gave up (abort or timeout): stop waiting instead of holding the socket.
        res.on('close', () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      if (gone || res.destroyed) return;
    }
    if (step?.hangUp) {
      res.socket?.destroy();
      return;
    }
    if (!step)
      return sendJson(res, 500, {
        type: 'error',
        error: { type: 'api_error', message: 'script exhausted' },
      });
    if (step.error) {
      const message = step.error.message ?? `scripted ${step.error.status}`;
      return sendJson(
        res,
        step.error.status,
        api === 'anthropic'
          ? { type: 'error', error: { type: errorType(step.error.status), message } }
          : { error: { message, type: errorType(step.error.status), code: null } },
      );
    }
    const requestBody = body as { model?: string; stream?: boolean };
    if (api === 'anthropic' && requestBody.stream === true)
      return sendAnthropicStream(res, anthropicReply(step, requestBody));
    sendJson(
      res,
      200,
      api === 'anthropic' ? anthropicReply(step, requestBody) : openaiReply(step, requestBody),
    );
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    anthropicBaseURL: url,
    openaiBaseURL: `${url}/v1`,
    requests,
    push: (...steps) => {
      script.push(...steps);
    },
    pending: () => script.length,
    // Idempotent, so a test may close early and an afterEach may close again.
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
