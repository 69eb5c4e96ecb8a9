/**
 * Acceptance for issue 4 (model layer), written from the issue text: the public entry points
 * (`engram/llm`, `engram/test`, the root `engram`) and the built CLI as a child process, with the
 * REAL Anthropic and OpenAI SDKs talking to the scripted model server on loopback.
 */
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as root from 'engram';
import {
  createAnthropicModel,
  createFileTools,
  createOpenAIModel,
  directorySandbox,
  estimateMessagesTokens,
  FILE_TOOL_DEFINITIONS,
  type Message,
  resolveModel,
  runForkedAgent,
  singleFileSandbox,
} from 'engram/llm';
import { type ScriptedModelServer, scriptedModel, startScriptedModelServer } from 'engram/test';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, requireBuild, runCliProcess, tempRoot } from './support.js';

let temp: Awaited<ReturnType<typeof tempRoot>>;
let server: ScriptedModelServer;

beforeAll(async () => {
  requireBuild();
  temp = await tempRoot('engram-acc4-');
});
afterAll(() => temp.cleanup());
afterEach(async () => {
  await server?.close();
});

const fresh = (name: string) => temp.fresh(name);
const cli = runCliProcess;

const text = (id: string, role: 'user' | 'assistant', t: string): Message => ({
  id,
  role,
  content: [{ type: 'text', text: t }],
});

/** A main conversation about a garden-planning app, in Portuguese, with one tool round trip. */
function mainConversation(): Message[] {
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

const SYSTEM = 'Você é um assistente de jardinagem. Responda em português.';

describe('issue 4: public names', () => {
  it('exports the names the issue uses, from engram/llm, engram/test and the root', () => {
    for (const fn of [runForkedAgent, resolveModel, directorySandbox, singleFileSandbox]) {
      expect(typeof fn).toBe('function');
    }
    expect(typeof createAnthropicModel).toBe('function');
    expect(typeof createOpenAIModel).toBe('function');
    expect(typeof createFileTools).toBe('function');
    expect(FILE_TOOL_DEFINITIONS.map((t) => t.name).sort()).toEqual(
      ['edit', 'grep', 'list', 'read', 'write'].sort(),
    );
    const r = root as Record<string, unknown>;
    expect(typeof r.runForkedAgent).toBe('function');
    expect(typeof r.resolveModel).toBe('function');
  });

  it('resolveModel() with nothing configured says no model is available and how to set one', () => {
    const r = resolveModel({ env: {} });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reason).toMatch(/no model/i);
    expect(r.reason).toContain('ANTHROPIC_API_KEY');
    expect(r.reason).toContain('OPENAI_BASE_URL');
  });

  it('one token estimator: characters-based, corrected by a real usage anchor', () => {
    const msgs = mainConversation();
    const estimate = estimateMessagesTokens(msgs);
    expect(estimate).toBeGreaterThan(10);
    expect(estimate).toBeLessThan(200);
    const usage = { inputTokens: 5000, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    const anchored = estimateMessagesTokens(msgs, { messageCount: 3, usage });
    expect(anchored).toBeGreaterThan(5000);
    expect(anchored).toBeLessThan(5000 + estimate);
  });
});

describe('issue 4: a fork through the real Anthropic SDK', () => {
  it('sends the main request system, tools and messages byte for byte, then only its own', async () => {
    server = await startScriptedModelServer();
    const model = scriptedModel(server);
    const messages = mainConversation();
    // The main agent's own request.
    await model.generate({ system: SYSTEM, tools: FILE_TOOL_DEFINITIONS, messages });
    const main = server.requests[0]?.body;
    server.push({ text: 'nada a salvar' });
    const result = await runForkedAgent({
      model,
      prefix: { system: SYSTEM, tools: FILE_TOOL_DEFINITIONS, messages },
      prompt: 'Resuma o que vale lembrar.',
      tools: createFileTools(await fresh('mem')),
      canUseTool: directorySandbox(await fresh('mem2')),
      maxTurns: 3,
    });
    expect(result.status).toBe('completed');
    const fork = server.requests[1]?.body;
    expect(JSON.stringify(fork.system)).toBe(JSON.stringify(main.system));
    expect(JSON.stringify(fork.tools)).toBe(JSON.stringify(main.tools));
    const shared = fork.messages.slice(0, main.messages.length);
    expect(JSON.stringify(shared)).toBe(JSON.stringify(main.messages));
    // Only the fork's instruction follows.
    const own = fork.messages.slice(main.messages.length);
    expect(own.length).toBe(1);
    expect(JSON.stringify(own)).toContain('Resuma o que vale lembrar.');
    // The raw body starts the same way too: the shared JSON is a byte prefix up to the messages.
    const rawMain = server.requests[0]?.rawBody ?? '';
    const rawFork = server.requests[1]?.rawBody ?? '';
    const cut = rawMain.indexOf('"messages"');
    expect(cut).toBeGreaterThan(0);
    expect(rawFork.includes(JSON.stringify(main.messages).slice(0, -1))).toBe(true);
    // Cache breakpoints sit on the stable prefix: system, the tool list, the shared messages.
    expect(JSON.stringify(fork.system)).toContain('cache_control');
    expect(fork.tools.at(-1).cache_control).toBeDefined();
    expect(JSON.stringify(shared)).toContain('cache_control');
  });

  it('runForkedAgent({ prefix, prompt, tools, canUseTool, maxTurns }) uses the configured model', async () => {
    server = await startScriptedModelServer();
    server.push({ text: 'feito' });
    const saved = { ...process.env };
    for (const k of ['ENGRAM_MODEL', 'OPENAI_API_KEY', 'OPENAI_BASE_URL', 'ANTHROPIC_AUTH_TOKEN'])
      delete process.env[k];
    process.env.ANTHROPIC_BASE_URL = server.url;
    process.env.ANTHROPIC_API_KEY = 'sk-ant-env';
    try {
      const result = await runForkedAgent({
        prefix: { system: SYSTEM, tools: FILE_TOOL_DEFINITIONS, messages: mainConversation() },
        prompt: 'Sem modelo explícito.',
        tools: [],
        canUseTool: () => ({ behavior: 'allow' }),
        maxTurns: 2,
      });
      expect(result.status).toBe('completed');
      expect(result.finalText).toBe('feito');
      delete process.env.ANTHROPIC_BASE_URL;
      delete process.env.ANTHROPIC_API_KEY;
      const none = await runForkedAgent({
        prefix: { tools: [], messages: mainConversation() },
        prompt: 'x',
        tools: [],
        canUseTool: () => ({ behavior: 'allow' }),
        maxTurns: 1,
      });
      expect(none.status).toBe('error');
      expect(none.error?.message).toMatch(/no model/i);
    } finally {
      process.env = saved;
    }
  });

  it('a prefix that carries the main reply is kept unchanged too', async () => {
    // The script may be given up front, with bare strings as text replies.
    server = await startScriptedModelServer(['resposta principal', 'resposta do fork']);
    const model = scriptedModel(server);
    const messages = [...mainConversation(), text('m6', 'assistant', 'Anotado: nada de cron.')];
    await model.generate({ system: SYSTEM, tools: FILE_TOOL_DEFINITIONS, messages });
    const main = server.requests[0]?.body;
    await runForkedAgent({
      model,
      prefix: { system: SYSTEM, tools: FILE_TOOL_DEFINITIONS, messages },
      prompt: 'Extraia.',
      tools: [],
      canUseTool: () => ({ behavior: 'allow' }),
      maxTurns: 1,
    }).then((r) => expect(r.finalText).toBe('resposta do fork'));
    const fork = server.requests[1]?.body;
    expect(JSON.stringify(fork.system)).toBe(JSON.stringify(main.system));
    expect(JSON.stringify(fork.tools)).toBe(JSON.stringify(main.tools));
    expect(JSON.stringify(fork.messages.slice(0, main.messages.length))).toBe(
      JSON.stringify(main.messages),
    );
  });
});

/** Escapes a fork tries: absolute path out, `../`, a symlink out, a delete. */
async function escapeScenario(api: 'anthropic' | 'openai') {
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

describe('issue 4: the sandbox, refusals as tool errors', () => {
  it('Anthropic: outside write, ../, symlink out and delete are refused; the loop goes on', () =>
    escapeScenario('anthropic'));
  it('OpenAI-compatible: the same scenario', () => escapeScenario('openai'));

  it('a canUseTool written as a predicate (true/false) is honoured, fail closed', async () => {
    server = await startScriptedModelServer();
    const memory = await fresh('predicate');
    server.push(
      { toolUse: [{ name: 'write', input: { path: 'a.md', content: 'x' } }] },
      { toolUse: [{ name: 'list', input: { path: '.' } }] },
      { toolUse: [{ name: 'edit', input: { path: 'a.md', old_string: 'x', new_string: 'y' } }] },
      { text: 'fim' },
    );
    const result = await runForkedAgent({
      model: scriptedModel(server),
      prefix: { system: SYSTEM, tools: FILE_TOOL_DEFINITIONS, messages: mainConversation() },
      prompt: 'Tente.',
      tools: createFileTools(memory),
      // write: false; list: true; edit: a forgotten return (undefined) must not allow.
      canUseTool: ((name: string) =>
        name === 'write' ? false : name === 'list' ? true : undefined) as never,
      maxTurns: 6,
    });
    expect(result.status).toBe('completed');
    expect(result.toolCalls.map((c) => [c.name, c.allowed])).toEqual([
      ['write', false],
      ['list', true],
      ['edit', false],
    ]);
    expect(await readdir(memory)).toEqual([]);
  });

  it('built-in tools: read with line numbers, unique-match edit, list, grep', async () => {
    const dir = await fresh('tools');
    await writeFile(join(dir, 'colheita.md'), 'milho\nfeijão\nmilho\n');
    const t = Object.fromEntries(createFileTools(dir).map((x) => [x.definition.name, x]));
    const read = await t.read?.execute({ path: 'colheita.md' }, {});
    expect(read?.content).toMatch(/^\s*1\s+milho\n\s*2\s+feijão/);
    const ambiguous = await t.edit?.execute(
      { path: 'colheita.md', old_string: 'milho', new_string: 'trigo' },
      {},
    );
    expect(ambiguous?.isError).toBe(true);
    await t.edit?.execute({ path: 'colheita.md', old_string: 'feijão', new_string: 'arroz' }, {});
    expect(await readFile(join(dir, 'colheita.md'), 'utf8')).toBe('milho\narroz\nmilho\n');
    expect((await t.list?.execute({ path: '.' }, {}))?.content).toContain('colheita.md');
    expect((await t.grep?.execute({ pattern: 'milho' }, {}))?.content).toMatch(/colheita\.md:3/);
  });

  it('"edit only file F": another file in the same folder is refused', async () => {
    const dir = await fresh('single');
    const notes = join(dir, 'notas.md');
    await writeFile(notes, '# notas\n');
    const allow = singleFileSandbox(notes);
    expect((await allow('edit', { path: notes, old_string: 'a', new_string: 'b' })).behavior).toBe(
      'allow',
    );
    expect((await allow('write', { path: join(dir, 'outra.md'), content: 'x' })).behavior).toBe(
      'deny',
    );
    expect((await allow('read', { path: '/etc/hostname' })).behavior).toBe('allow');
  });
});

async function loopScenario(api: 'anthropic' | 'openai') {
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

async function retryScenario(api: 'anthropic' | 'openai') {
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

async function abortScenario(api: 'anthropic' | 'openai') {
  server = await startScriptedModelServer();
  const model = scriptedModel(server, api);
  server.push({ text: 'tarde demais', delayMs: 20_000 });
  const controller = new AbortController();
  const started = Date.now();
  setTimeout(() => controller.abort(), 100);
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
  expect(Date.now() - started).toBeLessThan(5_000);
}

describe('issue 4: loop limits, retries, abort', () => {
  it('Anthropic: maxTurns stops a model that keeps calling tools', () => loopScenario('anthropic'));
  it('OpenAI: maxTurns stops a model that keeps calling tools', () => loopScenario('openai'));
  it('Anthropic: 429 then 200 succeeds after one retry; 400 is not retried; 5xx is retryable', () =>
    retryScenario('anthropic'));
  it('OpenAI: 429 then 200 succeeds after one retry; 400 is not retried', () =>
    retryScenario('openai'));
  it('Anthropic: an aborted signal stops within the request in flight', () =>
    abortScenario('anthropic'));
  it('OpenAI: an aborted signal stops within the request in flight', () => abortScenario('openai'));

  it('OpenAI: the fork request starts with the main request messages unchanged', async () => {
    server = await startScriptedModelServer();
    const model = scriptedModel(server, { api: 'openai', model: 'gemma-local' });
    const messages = mainConversation();
    await model.generate({ system: SYSTEM, tools: FILE_TOOL_DEFINITIONS, messages });
    await runForkedAgent({
      model,
      prefix: { system: SYSTEM, tools: FILE_TOOL_DEFINITIONS, messages },
      prompt: 'Extraia.',
      tools: [],
      canUseTool: () => ({ behavior: 'allow' }),
      maxTurns: 1,
    });
    const main = server.requests[0]?.body;
    const fork = server.requests[1]?.body;
    expect(JSON.stringify(fork.tools)).toBe(JSON.stringify(main.tools));
    expect(JSON.stringify(fork.messages.slice(0, main.messages.length))).toBe(
      JSON.stringify(main.messages),
    );
    expect(fork.messages.length).toBe(main.messages.length + 1);
    expect(server.requests.every((r) => r.api === 'openai' && r.body.model === 'gemma-local')).toBe(
      true,
    );
  });
});

describe('issue 4: engram models check (child process)', () => {
  it('Anthropic-compatible base URL: one call, prints the model and the usage', async () => {
    server = await startScriptedModelServer();
    server.push({
      text: 'OK',
      usage: { input_tokens: 21, output_tokens: 3, cache_read_input_tokens: 64 },
    });
    const home = await fresh('home');
    const env = cliEnv(home, {
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: 'sk-ant-acceptance',
      ENGRAM_MODEL: 'anthropic:claude-haiku-4-5',
    });
    const r = await cli(['models', 'check'], env, home);
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests.length).toBe(1);
    expect(server.requests[0]?.api).toBe('anthropic');
    // The SDK sends the key (as x-api-key or as a bearer token, depending on its version).
    const h = server.requests[0]?.headers ?? {};
    expect(`${h['x-api-key']} ${h.authorization}`).toContain('sk-ant-acceptance');
    expect(r.stdout).toContain('claude-haiku-4-5');
    expect(r.stdout).toMatch(/21\b/);
    expect(r.stdout).toMatch(/\b3\b/);
    expect(r.stdout).toMatch(/64 cache read/);
  });

  it('OpenAI-compatible base URL (--json): model and usage as data', async () => {
    server = await startScriptedModelServer();
    server.push({
      text: 'OK',
      usage: { input_tokens: 17, output_tokens: 2, cache_read_input_tokens: 40 },
    });
    const home = await fresh('home');
    const env = cliEnv(home, {
      OPENAI_BASE_URL: `${server.url}/v1`,
      ENGRAM_MODEL: 'openai:qwen3-local',
    });
    const r = await cli(['models', 'check', '--json'], env, home);
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests[0]?.api).toBe('openai');
    expect(server.requests[0]?.body.model).toBe('qwen3-local');
    const out = JSON.parse(r.stdout);
    expect(out.ok).toBe(true);
    expect(out.model).toBe('qwen3-local');
    expect(out.usage.inputTokens).toBe(17);
    expect(out.usage.outputTokens).toBe(2);
    expect(out.usage.cacheReadTokens).toBe(40);
  });

  it('an OpenAI-compatible base URL alone is enough: the served model is used', async () => {
    server = await startScriptedModelServer({ models: ['mistral-small-local'] });
    const home = await fresh('home');
    const env = cliEnv(home, { OPENAI_BASE_URL: `${server.url}/v1` });
    const r = await cli(['models', 'check'], env, home);
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests.length).toBe(1);
    expect(server.requests[0]?.body.model).toBe('mistral-small-local');
    expect(r.stdout).toContain('mistral-small-local');
    expect(r.stdout).toMatch(/usage: \d+ input, \d+ output/);
  });

  it('nothing configured: exits non-zero and says how to configure a model', async () => {
    const home = await fresh('home');
    const r = await cli(['models', 'check'], cliEnv(home, {}), home);
    expect(r.code).not.toBe(0);
    expect(`${r.stdout}${r.stderr}`).toMatch(/ANTHROPIC_API_KEY/);
  });

  it('a failing endpoint: exit non-zero with the status', async () => {
    server = await startScriptedModelServer();
    server.push({ error: { status: 401, message: 'bad key' } });
    const home = await fresh('home');
    const env = cliEnv(home, { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'nope' });
    const r = await cli(['models', 'check', '--json'], env, home);
    expect(r.code).not.toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.ok).toBe(false);
    expect(out.error.status).toBe(401);
    expect(server.requests.length).toBe(1);
  });
});
