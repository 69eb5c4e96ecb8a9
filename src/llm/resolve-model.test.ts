import { describe, expect, it } from 'vitest';
import { startScriptedModelServer } from '../testing/scripted-model-server.js';
import { NO_MODEL_HINT, resolveModel } from './resolve-model.js';

describe('resolveModel', () => {
  it('says how to configure when nothing is set', () => {
    const r = resolveModel({ env: {} });
    expect(r).toEqual({ ok: false, reason: NO_MODEL_HINT });
    expect(NO_MODEL_HINT).toMatch(/ANTHROPIC_API_KEY/);
    expect(NO_MODEL_HINT).toMatch(/OPENAI_BASE_URL/);
    expect(NO_MODEL_HINT).toMatch(/ENGRAM_MODEL/);
  });

  it('uses Anthropic with a default model when only its key is set', () => {
    const r = resolveModel({ env: { ANTHROPIC_API_KEY: 'k' } });
    expect(r.ok && r.model.provider).toBe('anthropic');
    expect(r.ok && r.description).toBe('anthropic:claude-haiku-4-5');
  });

  it('honours ENGRAM_MODEL with and without a provider prefix', () => {
    const a = resolveModel({
      env: { ENGRAM_MODEL: 'anthropic:claude-sonnet-4-5', ANTHROPIC_API_KEY: 'k' },
    });
    expect(a.ok && a.model.modelId).toBe('claude-sonnet-4-5');
    const o = resolveModel({
      env: { ENGRAM_MODEL: 'gpt-5', OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' },
    });
    expect(o.ok && o.model.provider).toBe('openai');
    const bare = resolveModel({
      env: { ENGRAM_MODEL: 'llama3.2', OPENAI_BASE_URL: 'http://localhost:11434/v1' },
    });
    expect(bare.ok && bare.description).toBe('openai:llama3.2 at http://localhost:11434/v1');
  });

  it('lets the environment win over settings', () => {
    const r = resolveModel({
      env: { ENGRAM_MODEL: 'openai:qwen3', OPENAI_BASE_URL: 'http://h/v1' },
      settings: { model: 'anthropic:claude-x' },
    });
    expect(r.ok && r.model.modelId).toBe('qwen3');
    const s = resolveModel({
      env: { ANTHROPIC_API_KEY: 'k' },
      settings: { model: 'claude-opus-4-1' },
    });
    expect(s.ok && s.model.modelId).toBe('claude-opus-4-1');
  });

  it('an OpenAI-compatible base URL alone asks the server which model it serves', async () => {
    const one = await startScriptedModelServer({ models: ['qwen3-8b'] });
    const many = await startScriptedModelServer({ models: ['llama3.2', 'mistral'] });
    try {
      const r = resolveModel({ env: { OPENAI_BASE_URL: one.openaiBaseURL } });
      if (!r.ok) throw new Error(r.reason);
      const reply = await r.model.generate({ tools: [], messages: [] });
      expect(one.requests[0]?.body.model).toBe('qwen3-8b');
      expect(reply.model).toBe('qwen3-8b');
      expect(r.model.modelId).toBe('qwen3-8b');
      const m = resolveModel({ env: { OPENAI_BASE_URL: many.openaiBaseURL } });
      if (!m.ok) throw new Error(m.reason);
      const error = await m.model.generate({ tools: [], messages: [] }).catch((e: unknown) => e);
      expect(String((error as Error).message)).toMatch(
        /serves 2 models; pick one with ENGRAM_MODEL=openai:<model> \(llama3\.2, mistral\)/,
      );
      expect(many.requests.length).toBe(0);
      // OpenAI itself serves many models: it gets the default, not a guess.
      const official = resolveModel({
        env: { OPENAI_BASE_URL: 'https://api.openai.com/v1', OPENAI_API_KEY: 'k' },
      });
      expect(official.ok && official.model.modelId).toBe('gpt-5-mini');
    } finally {
      await one.close();
      await many.close();
    }
  });

  it('explains a provider whose credentials are missing', () => {
    const r = resolveModel({
      env: { ENGRAM_MODEL: 'anthropic:claude-haiku-4-5', OPENAI_API_KEY: 'k' },
    });
    expect(!r.ok && r.reason).toMatch(/needs ANTHROPIC_API_KEY/);
    const empty = resolveModel({ env: { ENGRAM_MODEL: 'openai:', OPENAI_API_KEY: 'k' } });
    expect(!empty.ok && empty.reason).toMatch(/names no model id/);
    const blank = resolveModel({ env: { ANTHROPIC_API_KEY: '  ' } });
    expect(blank.ok).toBe(false);
    // Every refusal says that no model is available, then how to configure one.
    for (const r of [empty, blank]) expect(!r.ok && r.reason).toMatch(/^No model is/);
    const named = resolveModel({ env: { ENGRAM_MODEL: 'claude-sonnet-4-5' } });
    expect(!named.ok && named.reason).toMatch(
      /^No model is available: "claude-sonnet-4-5" needs ANTHROPIC_API_KEY.*ENGRAM_MODEL=/,
    );
    expect(!named.ok && named.reason).not.toContain('No model is configured');
  });

  it('takes a bare ANTHROPIC_BASE_URL (a keyless proxy) as Anthropic, after any real credentials', () => {
    const proxy = resolveModel({ env: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/' } });
    expect(proxy.ok && proxy.description).toBe('anthropic:claude-haiku-4-5 at http://127.0.0.1:9/');
    const both = resolveModel({
      env: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/', OPENAI_API_KEY: 'k' },
    });
    expect(both.ok && both.model.provider).toBe('openai');
  });

  it('accepts ANTHROPIC_AUTH_TOKEN and sends it as a bearer token', async () => {
    const server = await startScriptedModelServer();
    try {
      const r = resolveModel({
        env: { ANTHROPIC_AUTH_TOKEN: 'tok', ANTHROPIC_BASE_URL: server.anthropicBaseURL },
      });
      if (!r.ok) throw new Error(r.reason);
      await r.model.generate({
        tools: [],
        messages: [{ id: 'u', role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      });
      expect(server.requests[0]!.headers.authorization).toBe('Bearer tok');
      expect(server.requests[0]!.body.model).toBe('claude-haiku-4-5');
    } finally {
      await server.close();
    }
  });
});
