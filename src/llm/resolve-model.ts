import { redactUrlCredentials } from '../confine/policy.js';
import { createAnthropicModel } from './anthropic-model.js';
import { createOpenAIModel, PLACEHOLDER_API_KEY } from './openai-model.js';
import type { LanguageModel } from './types.js';

export type ModelResolution =
  | { ok: true; model: LanguageModel; description: string }
  | { ok: false; reason: string };

export interface ResolveModelOptions {
  env?: Record<string, string | undefined>;
  settings?: { model?: string };
}

/** Cheap, fast defaults: background work (recall, extraction, notes) runs on small models. */
export const DEFAULT_ANTHROPIC_MODEL = 'claude-haiku-4-5';
export const DEFAULT_OPENAI_MODEL = 'gpt-5-mini';
export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** How to configure a model: every "no model" message ends with it. */
export const CONFIGURE_MODEL_HINT =
  'Set ANTHROPIC_API_KEY (Anthropic), or OPENAI_API_KEY (OpenAI), or ' +
  'OPENAI_BASE_URL plus ENGRAM_MODEL=openai:<model> for an OpenAI-compatible server such as ' +
  'Ollama (e.g. OPENAI_BASE_URL=http://localhost:11434/v1 ENGRAM_MODEL=openai:llama3.2). ' +
  'ENGRAM_MODEL=anthropic:<id> or openai:<id> picks the model.';

export const NO_MODEL_HINT = `No model is configured. ${CONFIGURE_MODEL_HINT}`;

type Provider = 'anthropic' | 'openai';

function parseSpec(spec: string): { provider?: Provider; id: string } {
  const match = /^(anthropic|openai):(.*)$/.exec(spec.trim());
  if (match) return { provider: match[1] as Provider, id: (match[2] ?? '').trim() };
  return { id: spec.trim() };
}

function inferProvider(id: string, env: Record<string, string | undefined>): Provider | undefined {
  if (/^claude/i.test(id)) return 'anthropic';
  if (/^(gpt-|o\d|chatgpt)/i.test(id)) return 'openai';
  if (env.ANTHROPIC_API_KEY || env.ANTHROPIC_AUTH_TOKEN) return 'anthropic';
  if (env.OPENAI_API_KEY || env.OPENAI_BASE_URL) return 'openai';
  // A bare Anthropic-compatible proxy (no key needed) is the last resort.
  if (env.ANTHROPIC_BASE_URL) return 'anthropic';
  return undefined;
}

const isOfficialOpenAI = (url: string) => /\/\/api\.openai\.com\b/.test(url);

const nonEmpty = (v: string | undefined) => (v && v.trim() !== '' ? v.trim() : undefined);

/**
 * The model engram uses for background work, from the environment (which wins) and settings.
 * Never throws: without configuration it says how to configure, and callers degrade.
 */
export function resolveModel(options: ResolveModelOptions = {}): ModelResolution {
  const raw = options.env ?? process.env;
  const env: Record<string, string | undefined> = {};
  for (const key of [
    'ENGRAM_MODEL',
    'ANTHROPIC_API_KEY',
    'ANTHROPIC_AUTH_TOKEN',
    'ANTHROPIC_BASE_URL',
    'OPENAI_API_KEY',
    'OPENAI_BASE_URL',
  ])
    env[key] = nonEmpty(raw[key]);
  const spec = env.ENGRAM_MODEL ?? nonEmpty(options.settings?.model);
  const parsed = spec === undefined ? undefined : parseSpec(spec);
  if (parsed && parsed.id === '')
    return {
      ok: false,
      reason: `No model is available: ENGRAM_MODEL "${spec}" names no model id. ${CONFIGURE_MODEL_HINT}`,
    };
  const provider =
    parsed?.provider ?? (parsed ? inferProvider(parsed.id, env) : inferProvider('', env));
  if (provider === undefined) return { ok: false, reason: NO_MODEL_HINT };

  if (provider === 'anthropic') {
    const baseURL = env.ANTHROPIC_BASE_URL;
    const token = env.ANTHROPIC_AUTH_TOKEN;
    if (!env.ANTHROPIC_API_KEY && !token && !baseURL)
      return {
        ok: false,
        reason: `No model is available: "${parsed?.id}" needs ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN, or ANTHROPIC_BASE_URL for a proxy). ${CONFIGURE_MODEL_HINT}`,
      };
    const id = parsed?.id ?? DEFAULT_ANTHROPIC_MODEL;
    const model = createAnthropicModel({
      model: id,
      // A key wins over a token (as in the SDK); a bare base URL (a local proxy) gets a placeholder.
      ...(env.ANTHROPIC_API_KEY || !token
        ? { apiKey: env.ANTHROPIC_API_KEY ?? PLACEHOLDER_API_KEY }
        : { authToken: token }),
      // Explicit, so the SDK never picks up a different process environment than `env`.
      baseURL: baseURL ?? ANTHROPIC_DEFAULT_BASE_URL,
    });
    return {
      ok: true,
      model,
      description: `anthropic:${id}${baseURL ? ` at ${redactUrlCredentials(baseURL)}` : ''}`,
    };
  }

  const baseURL = env.OPENAI_BASE_URL;
  if (!env.OPENAI_API_KEY && !baseURL)
    return {
      ok: false,
      reason: `No model is available: "${parsed?.id}" needs OPENAI_API_KEY or OPENAI_BASE_URL. ${CONFIGURE_MODEL_HINT}`,
    };
  // A compatible server with no model named: ask it on the first call (one served model is used;
  // several produce an error listing them). OpenAI itself serves many, so it gets our default.
  const askServer = parsed === undefined && baseURL !== undefined && !isOfficialOpenAI(baseURL);
  const id = parsed?.id ?? (askServer ? undefined : DEFAULT_OPENAI_MODEL);
  const model = createOpenAIModel({
    model: id,
    apiKey: env.OPENAI_API_KEY ?? PLACEHOLDER_API_KEY,
    baseURL: baseURL ?? OPENAI_DEFAULT_BASE_URL,
  });
  const named = id ?? 'the model the server serves';
  return {
    ok: true,
    model,
    description: `openai:${named}${baseURL ? ` at ${redactUrlCredentials(baseURL)}` : ''}`,
  };
}
