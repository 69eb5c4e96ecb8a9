// Shared setup for the forked-agent tests (scripted model server). Importing it registers this setup's vitest hooks for the importing file.
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createFileTools,
  directorySandbox,
  FILE_TOOL_DEFINITIONS,
  type Message,
  runForkedAgent,
} from 'engram/llm';
import { type ScriptedModelServer, scriptedModel, startScriptedModelServer } from 'engram/test';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { requireBuild, runCliProcess, tempRoot } from '../support/cli-process.js';

/**
 * Black-box tests of model layer, written from the documented behaviour: the public entry points
 * (`engram/llm`, `engram/test`, the root `engram`) and the built CLI as a child process, with the
 * REAL Anthropic and OpenAI SDKs talking to the scripted model server on loopback.
 */

export let temp: Awaited<ReturnType<typeof tempRoot>>;
let server: ScriptedModelServer;

beforeAll(async () => {
  requireBuild();
  temp = await tempRoot('engram-acc4-');
});
afterAll(() => temp.cleanup());
afterEach(async () => {
  await server?.close();
});

export const fresh = (name: string) => temp.fresh(name);
export const cli = runCliProcess;

export const text = (id: string, role: 'user' | 'assistant', t: string): Message => ({
  id,
  role,
  content: [{ type: 'text', text: t }],
});

/** A main conversation about a garden-planning app, in Portuguese, with one tool round trip. */
export function mainConversation(): Message[] {
  return [
    text('m1', 'user', 'Olá! O app de horta deve avisar quando regar os tomateiros.'),
    {
      id: 'm2',
      role: 'assistant',
      content: [
        { type: 'text', text: 'Vou ver o agendador primeiro.' },
        { type: 'tool_use', id: 'toolu_main1', name: 'read', input: { path: 'agenda.md' } },
      ],
    },
    {
      id: 'm3',
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_main1', content: '1\tregar: 07:00' }],
    },
    text('m4', 'assistant', 'O agendador já rega às 07:00.'),
    text('m5', 'user', 'Perfeito. E lembre: nunca usar cron, o servidor reinicia toda noite.'),
  ];
}

export const SYSTEM = 'Você é um assistente de jardinagem. Responda em português.';

/** Escapes a fork tries: absolute path out, `../`, a symlink out, a delete. */
export async function escapeScenario(api: 'anthropic' | 'openai') {
  server = await startScriptedModelServer();
  const model = scriptedModel(server, api);
  const base = await fresh(`escape-${api}`);
  const memory = join(base, 'memoria');
  const outside = join(base, 'fora');
  await mkdir(memory);
  await mkdir(outside);
  await writeFile(join(outside, 'segredo.txt'), 'intocado\n');
  await writeFile(join(memory, 'velho.md'), 'antigo\n');
  await symlink(outside, join(memory, 'atalho'));
  server.push(
    { toolUse: [{ name: 'write', input: { path: join(outside, 'abs.md'), content: 'x' } }] },
    { toolUse: [{ name: 'write', input: { path: '../fora/dotdot.md', content: 'x' } }] },
    { toolUse: [{ name: 'write', input: { path: 'atalho/link.md', content: 'x' } }] },
    {
      toolUse: [
        {
          name: 'edit',
          input: {
            path: 'atalho/../../fora/segredo.txt',
            old_string: 'intocado',
            new_string: 'mudado',
          },
        },
      ],
    },
    { toolUse: [{ name: 'delete', input: { path: 'velho.md' } }] },
    { toolUse: [{ name: 'write', input: { path: 'novo.md', content: 'dentro\n' } }] },
    { text: 'pronto' },
  );
  const result = await runForkedAgent({
    model,
    prefix: { system: SYSTEM, tools: FILE_TOOL_DEFINITIONS, messages: mainConversation() },
    prompt: 'Salve o que importa.',
    tools: createFileTools(memory),
    canUseTool: directorySandbox(memory),
    maxTurns: 10,
  });
  expect(result.status).toBe('completed');
  expect(result.turns).toBe(7);
  expect(result.toolCalls.map((c) => [c.name, c.allowed, c.isError])).toEqual([
    ['write', false, true],
    ['write', false, true],
    ['write', false, true],
    ['edit', false, true],
    ['delete', false, true],
    ['write', true, false],
  ]);
  // Each refusal reached the model as an error result on the next request.
  for (let i = 1; i <= 5; i++) {
    const raw = server.requests[i]?.rawBody ?? '';
    if (api === 'anthropic') expect(raw).toContain('"is_error":true');
    else expect(raw).toContain('"role":"tool"');
  }
  expect((await readdir(outside)).sort()).toEqual(['segredo.txt']);
  expect(await readFile(join(outside, 'segredo.txt'), 'utf8')).toBe('intocado\n');
  expect(await readFile(join(memory, 'velho.md'), 'utf8')).toBe('antigo\n');
  expect(await readFile(join(memory, 'novo.md'), 'utf8')).toBe('dentro\n');
}

export async function loopScenario(api: 'anthropic' | 'openai') {
  server = await startScriptedModelServer({
    fallback: { toolUse: [{ name: 'list', input: { path: '.' } }] },
  });
  const model = scriptedModel(server, api);
  const memory = await fresh(`loop-${api}`);
  const result = await runForkedAgent({
    model,
    prefix: { system: SYSTEM, tools: FILE_TOOL_DEFINITIONS, messages: mainConversation() },
    prompt: 'Continue listando.',
    tools: createFileTools(memory),
    canUseTool: directorySandbox(memory),
    maxTurns: 4,
  });
  expect(result.status).toBe('max_turns');
  expect(server.requests.length).toBe(4);
}

export async function retryScenario(api: 'anthropic' | 'openai') {
  server = await startScriptedModelServer();
  const model = scriptedModel(server, api);
  server.push({ error: { status: 429 } }, { text: 'ok depois de esperar' });
  const ok = await model.generate({ tools: [], messages: [text('r1', 'user', 'oi')] });
  expect(server.requests.length).toBe(2);
  expect(JSON.stringify(ok.message.content)).toContain('ok depois de esperar');

  server.push({ error: { status: 400, message: 'pedido inválido' } });
  const before = server.requests.length;
  const failure = await model.generate({ tools: [], messages: [text('r2', 'user', 'oi')] }).then(
    () => undefined,
    (e: unknown) => e as { code?: string; status?: number; isRetryable?: boolean },
  );
  expect(server.requests.length - before).toBe(1);
  expect(failure?.status).toBe(400);
  expect(failure?.isRetryable).toBe(false);
  expect(typeof failure?.code).toBe('string');
  expect(server.pending()).toBe(0);

  server.push({ error: { status: 503 } }, { error: { status: 503 } }, { error: { status: 503 } });
  const exhausted = await model.generate({ tools: [], messages: [text('r3', 'user', 'oi')] }).then(
    () => undefined,
    (e: unknown) => e as { status?: number; isRetryable?: boolean },
  );
  expect(exhausted?.status).toBe(503);
  expect(exhausted?.isRetryable).toBe(true);

  // A dropped connection, a 408 and a 409 are retried too.
  server.push({ hangUp: true }, { error: { status: 408 } }, { text: 'de volta' });
  const n = server.requests.length;
  const back = await model.generate({ tools: [], messages: [text('r4', 'user', 'oi')] });
  expect(JSON.stringify(back.message.content)).toContain('de volta');
  expect(server.requests.length - n).toBe(3);
  server.push({ error: { status: 409 } }, { text: 'ok' });
  await model.generate({ tools: [], messages: [text('r5', 'user', 'oi')] });
  expect(server.pending()).toBe(0);
}

export async function abortScenario(api: 'anthropic' | 'openai') {
  server = await startScriptedModelServer();
  const model = scriptedModel(server, api);
  const controller = new AbortController();
  // Abort once the request has reached the server, whatever the machine's load: a timer could
  // fire before the request leaves.
  server.push(() => {
    controller.abort();
    return { text: 'tarde demais', delayMs: 20_000 };
  });
  const result = await runForkedAgent({
    model,
    prefix: { system: SYSTEM, tools: FILE_TOOL_DEFINITIONS, messages: mainConversation() },
    prompt: 'Devagar.',
    tools: [],
    canUseTool: () => ({ behavior: 'allow' }),
    maxTurns: 5,
    signal: controller.signal,
  });
  expect(result.status).toBe('aborted');
  expect(server.requests.length).toBe(1);
}

/** Starts this test's scripted model server; the `afterEach` hook above closes it. */
export async function startServer(
  ...args: Parameters<typeof startScriptedModelServer>
): Promise<ScriptedModelServer> {
  server = await startScriptedModelServer(...args);
  return server;
}
