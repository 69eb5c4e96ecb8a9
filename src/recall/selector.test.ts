import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAIModel } from '../llm/openai-model.js';
import type { Message } from '../llm/types.js';
import {
  type ScriptedModelServer,
  scriptedModel,
  startScriptedModelServer,
} from '../testing/index.js';
import {
  assistantText,
  NOW,
  type Seed,
  seedMemories,
  tempMemoryDir,
  userText,
} from './__fixtures__/memdir.js';
import { SELECT_TOOL_NAME } from './prompts.js';
import { recall } from './recall.js';

let server: ScriptedModelServer;
let dir: string;

beforeAll(async () => {
  server = await startScriptedModelServer({ fallback: null });
  dir = tempMemoryDir();
  await seedMemories(dir, [
    {
      file: 'grep-usage.md',
      description: 'How to call Grep: flags and output modes',
      type: 'reference',
    },
    {
      file: 'grep-gotcha.md',
      description: 'Grep silently skips files over 1 MB; warn',
      type: 'feedback',
    },
    { file: 'deploy.md', description: 'Deploy to staging before production', type: 'project' },
    {
      file: 'user-role.md',
      description: 'The user is a data engineer new to TypeScript',
      type: 'user',
    },
  ]);
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

const pick = (...files: string[]) => ({ toolUse: [{ name: SELECT_TOOL_NAME, input: { files } }] });

describe.each(['anthropic', 'openai'] as const)('LLM selector over the %s API', (api) => {
  it('injects nothing when the model returns an empty list', async () => {
    server.push(pick());
    const result = await recall({
      dir,
      query: 'what rhymes with orange',
      model: scriptedModel(server, api),
      now: NOW,
    });
    expect(result.selected).toEqual([]);
    expect(result.text).toBe('');
    expect(result.shape).toMatchObject({
      selector: 'model',
      fallback: false,
      candidates: 4,
      selected: 0,
    });
  });

  it('sends the query and manifest with a tool constrained to the manifest names', async () => {
    server.push(pick('deploy.md', 'invented.md', 'deploy.md'));
    const result = await recall({
      dir,
      query: 'ship the release today',
      model: scriptedModel(server, api),
      now: NOW,
    });
    expect(result.selected.map((m) => m.file)).toEqual(['deploy.md']);
    const body = JSON.stringify(server.requests[0]?.body);
    expect(body).toContain('ship the release today');
    expect(body).toMatch(
      /- \[project\] deploy\.md \(2026-11-29T11:59:00\.000Z\): Deploy to staging/,
    );
    expect(body).toContain(SELECT_TOOL_NAME);
    expect(body).toContain('"enum":[');
  });
});

describe('LLM selector', () => {
  it('accepts a bare JSON array in text and keeps at most five known names', async () => {
    server.push({ text: 'Here you go: ["user-role.md", "grep-gotcha.md", "nope.md"]' });
    const result = await recall({
      dir,
      query: 'help me search the code',
      model: scriptedModel(server),
      now: NOW,
    });
    expect(result.selected.map((m) => m.file)).toEqual(['user-role.md', 'grep-gotcha.md']);
  });

  it('tells the selector which tools are working, derived from the history', async () => {
    const messages: Message[] = [
      userText('u1', 'find the flaky test'),
      {
        id: 'a1',
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 't1', name: 'Grep', input: { pattern: 'flaky' } },
          { type: 'tool_use', id: 't2', name: 'Bash', input: { command: 'npm test' } },
        ],
      },
      {
        id: 'u2',
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: 'src/a.test.ts' },
          { type: 'tool_result', tool_use_id: 't2', content: 'boom', is_error: true },
        ],
      },
      assistantText('a2', 'found it'),
      userText('u3', 'now grep for the helper'),
    ];
    server.push(pick('grep-gotcha.md'));
    await recall({
      dir,
      query: 'now grep for the helper',
      messages,
      model: scriptedModel(server),
      now: NOW,
    });
    const body = JSON.stringify(server.requests[0]?.body);
    expect(body).toContain('<tools_in_use>\\nGrep\\n</tools_in_use>');
    expect(body).not.toMatch(/tools_in_use>[^<]*Bash/);
  });

  it('falls back to the offline ranker when the model call fails, and says so', async () => {
    server.push({ error: { status: 400, message: 'bad request' } });
    const result = await recall({
      dir,
      query: 'deploy to staging now',
      model: scriptedModel(server),
      now: NOW,
    });
    expect(result.shape.fallback).toBe(true);
    expect(result.shape.fallbackUsed).toBe(true);
    expect(result.shape.fallbackReason).toBeTruthy();
    expect(result.selected.map((m) => m.file)).toEqual(['deploy.md']);
    expect(result.notes.join(' ')).toMatch(/offline ranker/);
  });

  it('falls back when the model is slower than the selector timeout', async () => {
    server.push({ ...pick('user-role.md'), delayMs: 5_000 });
    const result = await recall({
      dir,
      query: 'deploy to staging now',
      model: scriptedModel(server),
      selectorTimeoutMs: 200,
      now: NOW,
    });
    expect(result.shape).toMatchObject({ fallback: true, selector: 'model' });
    expect(result.selected.map((m) => m.file)).toEqual(['deploy.md']);
  });

  it('beyond 200 memories, shows the selector the 200 the offline ranker finds most related', async () => {
    const big = tempMemoryDir();
    const seeds: Seed[] = Array.from({ length: 230 }, (_, i) => ({
      file: `note-${String(i).padStart(3, '0')}.md`,
      description: `ordinary note number ${i}`,
    }));
    seeds.push({
      file: 'ancient.md',
      description: 'kubernetes ingress certificate renewal',
      ageDays: 900,
    });
    await seedMemories(big, seeds);
    server.push(pick('ancient.md'));
    const result = await recall({
      dir: big,
      query: 'renew the ingress certificate',
      model: scriptedModel(server),
      now: NOW,
    });
    const sent: string = server.requests[0]?.body.messages[0].content[0].text ?? '';
    const manifest = sent.split('<memories>\n')[1]!.split('\n</memories>')[0]!.split('\n');
    expect(manifest).toHaveLength(200);
    expect(manifest[0]).toMatch(/^- \[project\] ancient\.md /); // the old but relevant one leads
    expect(result.shape).toMatchObject({
      total: 231,
      candidates: 200,
      prefiltered: true,
      fallback: false,
    });
    expect(result.selected.map((m) => m.file)).toEqual(['ancient.md']);
  });

  it('falls back when the answer is not a list', async () => {
    server.push({ text: 'I think the deploy memory might help.' });
    const result = await recall({
      dir,
      query: 'deploy to staging now',
      model: scriptedModel(server),
      now: NOW,
    });
    expect(result.shape.fallback).toBe(true);
    expect(result.selected.map((m) => m.file)).toEqual(['deploy.md']);
  });
});

describe('the recall shape names the model that answered', () => {
  it('an OpenAI-compatible server with no model named: the served model id, not a placeholder', async () => {
    const served = await startScriptedModelServer({ fallback: null, models: ['qwen2.5-coder-7b'] });
    try {
      served.push(pick('deploy.md'));
      const result = await recall({
        dir,
        query: 'deploy to staging now',
        model: createOpenAIModel({ baseURL: served.openaiBaseURL, model: undefined }),
        now: NOW,
      });
      expect(result.selected.map((m) => m.file)).toEqual(['deploy.md']);
      expect(result.shape.model).toBe('qwen2.5-coder-7b');
    } finally {
      await served.close();
    }
  });
});
