import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ScriptedModelServer,
  scriptedModel,
  startScriptedModelServer,
} from '../testing/index.js';
import { ModelError } from './model-error.js';
import type { ConversationPrefix } from './types.js';

const request: ConversationPrefix = {
  system: 'Be brief.',
  tools: [
    {
      name: 'read',
      description: 'Read a file',
      input_schema: { type: 'object', properties: { path: { type: 'string' } } },
    },
  ],
  messages: [{ id: 'u1', role: 'user', content: [{ type: 'text', text: 'hi' }] }],
};

let server: ScriptedModelServer;
beforeEach(async () => {
  server = await startScriptedModelServer();
});
afterEach(async () => {
  await server.close();
});

for (const api of ['anthropic', 'openai'] as const) {
  describe(`${api} provider contract`, () => {
    it('returns text, tool calls, stop reason and usage', async () => {
      server.push({
        text: 'let me look',
        toolUse: [{ name: 'read', input: { path: 'a.md' }, id: 'call_1' }],
        usage: { input_tokens: 42, output_tokens: 7 },
      });
      const response = await scriptedModel(server, api).generate(request);
      expect(response.stopReason).toBe('tool_use');
      expect(response.message.role).toBe('assistant');
      expect(response.message.content).toEqual([
        { type: 'text', text: 'let me look' },
        { type: 'tool_use', id: 'call_1', name: 'read', input: { path: 'a.md' } },
      ]);
      expect(response.usage).toEqual({
        inputTokens: 42,
        outputTokens: 7,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      });
      expect(response.model).toBe('scripted-model');
      expect(server.requests[0]!.api).toBe(api);
    });

    it('succeeds after one retry when a 429 comes first', async () => {
      server.push({ error: { status: 429 } }, { text: 'ok now' });
      const response = await scriptedModel(server, api).generate(request);
      expect(response.message.content).toEqual([{ type: 'text', text: 'ok now' }]);
      expect(server.requests).toHaveLength(2);
      expect(server.requests[1]!.rawBody).toBe(server.requests[0]!.rawBody);
    });

    it('does not retry a 400', async () => {
      server.push({ error: { status: 400, message: 'messages: invalid' } }, { text: 'never' });
      const error = await scriptedModel(server, api)
        .generate(request)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ModelError);
      expect(error).toMatchObject({ code: 'model_error', status: 400, isRetryable: false });
      expect(server.requests).toHaveLength(1);
    });

    it('gives up after maxRetries on repeated 5xx', async () => {
      server.push(
        { error: { status: 503 } },
        { error: { status: 500 } },
        { error: { status: 529 } },
        { text: 'too late' },
      );
      const error = await scriptedModel(server, api, { retry: { maxRetries: 2 } })
        .generate(request)
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 529, isRetryable: true });
      expect(server.requests).toHaveLength(3);
    });

    it('times out a silent request and retries it', async () => {
      server.push({ delayMs: 20_000, text: 'slow' }, { text: 'fast' });
      const response = await scriptedModel(server, api, { timeoutMs: 1500 }).generate(request);
      expect(response.message.content).toEqual([{ type: 'text', text: 'fast' }]);
      expect(server.requests).toHaveLength(2);
    });

    it('sends nothing when the signal is already aborted, and stops mid-request on abort', async () => {
      const model = scriptedModel(server, api);
      const error = await model
        .generate({ ...request, signal: AbortSignal.abort() })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'aborted' });
      expect(server.requests).toHaveLength(0);
      const controller = new AbortController();
      // Abort once the request is in flight (reached the server), whatever the machine's speed.
      server.push(() => {
        controller.abort();
        return { delayMs: 20_000, text: 'late' };
      });
      const late = await model
        .generate({ ...request, signal: controller.signal })
        .catch((e: unknown) => e);
      expect(late).toMatchObject({ code: 'aborted', isRetryable: false });
      expect(server.requests).toHaveLength(1);
    });

    it('reports a refused connection as a retryable network fault', async () => {
      const url = server.url;
      await server.close();
      const dead = { ...server, anthropicBaseURL: url, openaiBaseURL: `${url}/v1` };
      const error = await scriptedModel(dead, api, { retry: { maxRetries: 1 } })
        .generate(request)
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'model_error', isRetryable: true, status: undefined });
      server = await startScriptedModelServer();
    });
  });
}

describe('wire formats', () => {
  it('anthropic: system blocks, tools with input_schema, no message ids', async () => {
    await scriptedModel(server).generate({ ...request, maxTokens: 100, temperature: 0 });
    const body = server.requests[0]!.body;
    expect(body).toMatchObject({ model: 'scripted-model', max_tokens: 100, temperature: 0 });
    expect(body.system).toEqual([
      { type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } },
    ]);
    expect(body.tools[0]).toMatchObject({ name: 'read', input_schema: { type: 'object' } });
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }],
      },
    ]);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer test-key');
  });

  it('openai: system message, function tools, tool results as tool messages', async () => {
    await scriptedModel(server, 'openai').generate({
      ...request,
      messages: [
        ...request.messages,
        {
          id: 'a1',
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'c1', name: 'read', input: { path: 'x' } }],
        },
        {
          id: 'u2',
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'c1', content: 'nope', is_error: true },
            { type: 'text', text: 'go on' },
          ],
        },
      ],
    });
    const body = server.requests[0]!.body;
    expect(body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'read', arguments: '{"path":"x"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'Error: nope' },
      { role: 'user', content: 'go on' },
    ]);
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'read',
          description: 'Read a file',
          parameters: request.tools[0]!.input_schema,
        },
      },
    ]);
    expect(body.max_tokens).toBe(4096);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer test-key');
  });
});
