import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { scriptedModel } from './scripted-model.js';
import { type ScriptedModelServer, startScriptedModelServer } from './scripted-model-server.js';

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field.
const json = async (r: Response): Promise<any> => r.json();
const post = (url: string, body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('startScriptedModelServer', () => {
  it('answers steps in order, then the fallback, and records requests', async () => {
    server = await startScriptedModelServer({ steps: [{ text: 'first' }] });
    server.push((req) => ({ text: `echo ${req.body.messages[0].content}` }));
    expect(server.pending()).toBe(2);
    const a = await post(`${server.url}/v1/messages`, { model: 'm', messages: [] }).then(json);
    expect(a).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'm',
      content: [{ type: 'text', text: 'first' }],
      stop_reason: 'end_turn',
    });
    const b = await json(
      await post(`${server.openaiBaseURL}/chat/completions`, {
        model: 'm',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    );
    expect(b.choices[0]).toMatchObject({
      message: { role: 'assistant', content: 'echo hi' },
      finish_reason: 'stop',
    });
    const c = await post(`${server.url}/v1/messages`, {}).then(json);
    expect(c.content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(server.requests.map((r) => r.api)).toEqual(['anthropic', 'openai', 'anthropic']);
    expect(server.requests[1]!.rawBody).toBe(
      JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(server.pending()).toBe(0);
  });

  it('answers 500 when the script is empty and the fallback is null; 404 elsewhere', async () => {
    server = await startScriptedModelServer({ fallback: null });
    expect((await post(`${server.url}/v1/messages`, {})).status).toBe(500);
    expect((await post(`${server.url}/v2/other`, {})).status).toBe(404);
  });

  it('serves scripted errors in each API format', async () => {
    server = await startScriptedModelServer({
      steps: [{ error: { status: 429, message: 'slow down' } }, { error: { status: 400 } }],
    });
    const a = await post(`${server.url}/v1/messages`, {});
    expect(a.status).toBe(429);
    expect(await json(a)).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'slow down' },
    });
    const b = await post(`${server.openaiBaseURL}/chat/completions`, {});
    expect(b.status).toBe(400);
    expect((await json(b)).error.message).toBe('scripted 400');
  });

  it('closes idempotently and refuses connections afterwards', async () => {
    const s = await startScriptedModelServer();
    await s.close();
    await s.close();
    await expect(post(`${s.url}/v1/messages`, {})).rejects.toThrow();
  });

  it.each(['anthropic', 'openai'] as const)(
    'plays Anthropic content blocks and a dropped connection through the real SDK (%s)',
    async (api) => {
      server = await startScriptedModelServer();
      server.push(
        { hangUp: true },
        {
          content: [
            { type: 'text', text: 'saving' },
            { type: 'tool_use', id: 'call_9', name: 'write', input: { path: 'a.md' } },
          ],
        },
      );
      const response = await scriptedModel(server, api).generate({
        tools: [{ name: 'write', input_schema: { type: 'object' } }],
        messages: [{ id: 'u', role: 'user', content: [{ type: 'text', text: 'go' }] }],
      });
      // The hang-up was a network fault, retried once.
      expect(server.requests).toHaveLength(2);
      expect(response.stopReason).toBe('tool_use');
      expect(response.message.content).toEqual([
        { type: 'text', text: 'saving' },
        { type: 'tool_use', id: 'call_9', name: 'write', input: { path: 'a.md' } },
      ]);
    },
  );

  it('streams a reply as server-sent events when the request asks for a stream', async () => {
    server = await startScriptedModelServer({
      steps: [{ text: 'streamed', toolUse: [{ name: 'note', input: { a: 1 }, id: 'toolu_1' }] }],
    });
    const client = new Anthropic({ baseURL: server.anthropicBaseURL, apiKey: 'test' });
    const stream = client.messages.stream({
      model: 'm',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const message = await stream.finalMessage();
    expect(message.content).toMatchObject([
      { type: 'text', text: 'streamed' },
      { type: 'tool_use', id: 'toolu_1', name: 'note', input: { a: 1 } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(server.requests[0]!.body.stream).toBe(true);
  });
});
