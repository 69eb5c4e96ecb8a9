import { randomUUID } from 'node:crypto';
import type OpenAI from 'openai';
import { redactUrlCredentials } from '../confine/policy.js';
import { importOptional } from '../util/optional-import.js';
import { DEFAULT_MAX_TOKENS } from './anthropic-model.js';
import { ModelError } from './model-error.js';
import {
  fromOpenAIFinishReason,
  fromOpenAIMessage,
  fromOpenAIUsage,
  toOpenAIMessages,
  toOpenAITools,
} from './openai-convert.js';
import { callWithRetries, DEFAULT_TIMEOUT_MS, type RetryOptions } from './retry.js';
import { classifySdkError } from './sdk-errors.js';
import type { LanguageModel, ModelRequest, ModelResponse } from './types.js';

/** What `modelId` reads before a server-chosen model is known. */
export const SERVER_CHOSEN_MODEL = '(served model)';

export interface OpenAIModelOptions {
  apiKey?: string;
  /** An OpenAI-compatible server: Ollama, vLLM, llama.cpp server, LM Studio. */
  baseURL?: string;
  /**
   * The model id. `undefined` asks the server (`GET /models`) on the first call: a server that
   * serves exactly one model (vLLM, llama.cpp, LM Studio with one loaded) needs no name.
   */
  model: string | undefined;
  maxRetries?: number;
  timeoutMs?: number;
  retry?: RetryOptions;
  fetch?: typeof fetch;
  maxTokens?: number;
}

/** Local OpenAI-compatible servers ignore the key, but the SDK refuses to start without one. */
export const PLACEHOLDER_API_KEY = 'engram-no-key';

/** A LanguageModel on the official OpenAI SDK (Chat Completions, non-streaming). */
export function createOpenAIModel(options: OpenAIModelOptions): LanguageModel {
  const apiKey =
    options.apiKey ?? (options.baseURL !== undefined ? PLACEHOLDER_API_KEY : undefined);
  const clientOptions = {
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
    maxRetries: 0,
    timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
  // The SDK loads on the first call: hooks and the CLI start up without it when no model runs.
  let client: Promise<OpenAI> | undefined;
  const connect = () =>
    (client ??= importOptional(
      'openai',
      'An OpenAI or OpenAI-compatible model',
      () => import('openai'),
    ).then(({ default: Sdk }) => new Sdk(clientOptions)));
  const officialApi =
    options.baseURL === undefined || /\/\/api\.openai\.com\b/.test(options.baseURL);
  const retry: RetryOptions = { ...options.retry };
  if (options.maxRetries !== undefined) retry.maxRetries = options.maxRetries;

  let modelId = options.model;
  let discovery: Promise<string> | undefined;
  const discover = (request: ModelRequest, timeoutMs: number) =>
    (discovery ??= callWithRetries(
      async (signal) => {
        const page = await (await connect()).models.list({ signal, timeout: timeoutMs });
        return page.data.map((m) => m.id);
      },
      (error) => classifySdkError(error, 'openai'),
      { signal: request.signal, timeoutMs, retry },
    ).then(
      (ids) => {
        if (ids.length !== 1 || !ids[0])
          throw new ModelError(
            ids.length === 0
              ? `The server at ${redactUrlCredentials(options.baseURL ?? '')} lists no model; set ENGRAM_MODEL=openai:<model>.`
              : `The server at ${redactUrlCredentials(options.baseURL ?? '')} serves ${ids.length} models; pick one with ENGRAM_MODEL=openai:<model> (${ids.slice(0, 10).join(', ')}${ids.length > 10 ? ', …' : ''}).`,
            { isRetryable: false },
          );
        modelId = ids[0];
        return ids[0];
      },
      (error: unknown) => {
        discovery = undefined; // a network fault may pass: ask again on the next call
        throw error;
      },
    ));

  async function generate(request: ModelRequest): Promise<ModelResponse> {
    const timeoutMs = request.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const model = modelId ?? (await discover(request, timeoutMs));
    const params = {
      model,
      // OpenAI's newer models only accept max_completion_tokens; compatible servers (Ollama,
      // vLLM, llama.cpp) reliably understand the older max_tokens.
      [officialApi ? 'max_completion_tokens' : 'max_tokens']:
        request.maxTokens ?? options.maxTokens ?? DEFAULT_MAX_TOKENS,
      messages: toOpenAIMessages(request),
      ...(request.tools.length ? { tools: toOpenAITools(request.tools) } : {}),
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    };
    const completion = await callWithRetries(
      async (signal) =>
        (await connect()).chat.completions.create(
          params as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming,
          {
            signal,
            timeout: timeoutMs,
          },
        ),
      (error) => classifySdkError(error, 'openai'),
      { signal: request.signal, timeoutMs, retry },
    );
    const choice = completion.choices?.[0];
    return {
      message: {
        id: completion.id || randomUUID(),
        role: 'assistant',
        content: choice ? fromOpenAIMessage(choice.message) : [],
      },
      stopReason: fromOpenAIFinishReason(choice?.finish_reason),
      usage: fromOpenAIUsage(completion.usage),
      model: completion.model || model,
    };
  }

  return {
    provider: 'openai',
    get modelId() {
      return modelId ?? SERVER_CHOSEN_MODEL;
    },
    generate,
  };
}
