import { randomUUID } from 'node:crypto';
import type Anthropic from '@anthropic-ai/sdk';
import { importOptional } from '../util/optional-import.js';
import {
  fromAnthropicContent,
  fromAnthropicStopReason,
  fromAnthropicUsage,
  toAnthropicPrefix,
} from './anthropic-convert.js';
import { callWithRetries, DEFAULT_TIMEOUT_MS, type RetryOptions } from './retry.js';
import { classifySdkError } from './sdk-errors.js';
import type { LanguageModel, ModelRequest, ModelResponse } from './types.js';

export interface AnthropicModelOptions {
  apiKey?: string;
  /** A bearer token instead of an API key (ANTHROPIC_AUTH_TOKEN, used by proxies and gateways). */
  authToken?: string;
  baseURL?: string;
  model: string;
  /** Retries for retryable failures (default 2). Shorthand for `retry.maxRetries`. */
  maxRetries?: number;
  /** Per-request timeout (default 120 s); a request may override it. */
  timeoutMs?: number;
  retry?: RetryOptions;
  fetch?: typeof fetch;
  /** Default max_tokens when a request names none. */
  maxTokens?: number;
}

export const DEFAULT_MAX_TOKENS = 4096;

/** A LanguageModel on the official Anthropic SDK (non-streaming Messages API). */
export function createAnthropicModel(options: AnthropicModelOptions): LanguageModel {
  const clientOptions = {
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    ...(options.authToken === undefined || options.apiKey !== undefined
      ? {}
      : { authToken: options.authToken }),
    ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
    // Our own retry loop owns backoff so every provider behaves the same and tests can see it.
    maxRetries: 0,
    timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
  // The SDK loads on the first call: hooks and the CLI start up without it when no model runs.
  let client: Promise<Anthropic> | undefined;
  const connect = () =>
    (client ??= importOptional(
      '@anthropic-ai/sdk',
      'An Anthropic model',
      () => import('@anthropic-ai/sdk'),
    ).then(({ default: Sdk }) => new Sdk(clientOptions)));
  const retry: RetryOptions = { ...options.retry };
  if (options.maxRetries !== undefined) retry.maxRetries = options.maxRetries;

  async function generate(request: ModelRequest): Promise<ModelResponse> {
    const params = {
      model: options.model,
      max_tokens: request.maxTokens ?? options.maxTokens ?? DEFAULT_MAX_TOKENS,
      ...toAnthropicPrefix(request, request.cacheBreakpointIndex),
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    };
    const timeoutMs = request.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const response = await callWithRetries(
      async (signal) =>
        (await connect()).messages.create(
          params as unknown as Anthropic.MessageCreateParamsNonStreaming,
          {
            signal,
            timeout: timeoutMs,
          },
        ),
      (error) => classifySdkError(error, 'anthropic'),
      { signal: request.signal, timeoutMs, retry },
    );
    return {
      message: {
        id: response.id ?? randomUUID(),
        role: 'assistant',
        content: fromAnthropicContent(
          response.content as unknown as ReadonlyArray<Record<string, unknown>>,
        ),
      },
      stopReason: fromAnthropicStopReason(response.stop_reason),
      usage: fromAnthropicUsage(response.usage as unknown as Record<string, unknown>),
      model: response.model ?? options.model,
    };
  }

  return { provider: 'anthropic', modelId: options.model, generate };
}
