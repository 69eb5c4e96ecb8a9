import { randomUUID } from 'node:crypto';
import type OpenAI from 'openai';
import { DEFAULT_MAX_TOKENS } from './anthropic-model.js';
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

export interface OpenAIModelOptions {
  apiKey?: string;
  /** An OpenAI-compatible server: Ollama, vLLM, llama.cpp server, LM Studio. */
  baseURL?: string;
  model: string;
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
    (client ??= import('openai').then(({ default: Sdk }) => new Sdk(clientOptions)));
  const officialApi =
    options.baseURL === undefined || /\/\/api\.openai\.com\b/.test(options.baseURL);
  const retry: RetryOptions = { ...options.retry };
  if (options.maxRetries !== undefined) retry.maxRetries = options.maxRetries;

  async function generate(request: ModelRequest): Promise<ModelResponse> {
    const params = {
      model: options.model,
      // OpenAI's newer models only accept max_completion_tokens; compatible servers (Ollama,
      // vLLM, llama.cpp) reliably understand the older max_tokens.
      [officialApi ? 'max_completion_tokens' : 'max_tokens']:
        request.maxTokens ?? options.maxTokens ?? DEFAULT_MAX_TOKENS,
      messages: toOpenAIMessages(request),
      ...(request.tools.length ? { tools: toOpenAITools(request.tools) } : {}),
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    };
    const timeoutMs = request.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
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
      model: completion.model || options.model,
    };
  }

  return { provider: 'openai', modelId: options.model, generate };
}
