import { createAnthropicModel } from '../llm/anthropic-model.js';
import { createOpenAIModel } from '../llm/openai-model.js';
import type { RetryOptions } from '../llm/retry.js';
import type { LanguageModel } from '../llm/types.js';
import type { ScriptedModelServer } from './scripted-model-server.js';

export interface ScriptedModelOptions {
  model?: string;
  /** Defaults to 1 ms backoff so retry tests stay fast. */
  retry?: RetryOptions;
  timeoutMs?: number;
}

/**
 * A LanguageModel made by the REAL provider (official SDK) pointed at a scripted server, so a
 * test exercises the same conversion, HTTP and retry code as production.
 */
export function scriptedModel(
  server: ScriptedModelServer,
  apiOrOptions:
    | 'anthropic'
    | 'openai'
    | (ScriptedModelOptions & { api?: 'anthropic' | 'openai' }) = 'anthropic',
  moreOptions: ScriptedModelOptions = {},
): LanguageModel {
  // Both `scriptedModel(server, 'openai', { model })` and `scriptedModel(server, { api, model })`.
  const api = typeof apiOrOptions === 'string' ? apiOrOptions : (apiOrOptions.api ?? 'anthropic');
  const options = typeof apiOrOptions === 'string' ? moreOptions : apiOrOptions;
  const common = {
    apiKey: 'test-key',
    model: options.model ?? 'scripted-model',
    retry: { baseDelayMs: 1, maxDelayMs: 5, ...options.retry },
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  };
  return api === 'anthropic'
    ? createAnthropicModel({ ...common, baseURL: server.anthropicBaseURL })
    : createOpenAIModel({ ...common, baseURL: server.openaiBaseURL });
}
