import { abortedError, ModelError } from './model-error.js';

export interface RetryOptions {
  /** Attempts after the first one, for retryable failures only. */
  maxRetries?: number;
  /** First backoff; doubles per attempt. */
  baseDelayMs?: number;
  /** Ceiling for one backoff, and for a server's Retry-After. */
  maxDelayMs?: number;
  /** Source of jitter in [0, 1); injected so the policy is testable. */
  random?: () => number;
}

export const DEFAULT_RETRY = { maxRetries: 2, baseDelayMs: 500, maxDelayMs: 8_000 } as const;
/** Default per-request timeout: background calls must not hang a session. */
export const DEFAULT_TIMEOUT_MS = 120_000;

/**
 * Backoff before retry number `attempt` (0-based): exponential with "equal jitter" (half fixed,
 * half random) so many clients that failed together do not retry together. A server's
 * Retry-After wins when it asks for longer, capped at `maxDelayMs`.
 */
export function retryDelayMs(
  attempt: number,
  options: { baseDelayMs: number; maxDelayMs: number },
  random: number,
  retryAfterMs?: number,
): number {
  const exp = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt);
  const jittered = exp / 2 + (random * exp) / 2;
  const wanted = retryAfterMs === undefined ? jittered : Math.max(jittered, retryAfterMs);
  return Math.min(options.maxDelayMs, wanted);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortedError(signal.reason));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError(signal?.reason));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export interface CallPolicy {
  signal?: AbortSignal | undefined;
  timeoutMs: number;
  retry?: RetryOptions | undefined;
}

/**
 * Run one model call with our own retry loop (the SDKs' built-in retries are switched off so the
 * behaviour is the same for every provider and testable): each attempt gets a fresh signal that
 * fires on the caller's abort or on the timeout; `classify` turns SDK errors into ModelErrors.
 */
export async function callWithRetries<T>(
  call: (signal: AbortSignal) => Promise<T>,
  classify: (error: unknown) => ModelError,
  policy: CallPolicy,
): Promise<T> {
  const maxRetries = policy.retry?.maxRetries ?? DEFAULT_RETRY.maxRetries;
  const delays = {
    baseDelayMs: policy.retry?.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs,
    maxDelayMs: policy.retry?.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs,
  };
  const random = policy.retry?.random ?? Math.random;
  const outer = policy.signal;
  for (let attempt = 0; ; attempt++) {
    if (outer?.aborted) throw abortedError(outer.reason);
    const controller = new AbortController();
    let timedOut = false;
    const onAbort = () => controller.abort(outer?.reason);
    outer?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, policy.timeoutMs);
    let failure: ModelError;
    try {
      return await call(controller.signal);
    } catch (error) {
      if (outer?.aborted) throw abortedError(error);
      failure = timedOut
        ? new ModelError(`the model did not answer within ${policy.timeoutMs} ms`, {
            isRetryable: true,
            cause: error,
          })
        : classify(error);
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    }
    if (!failure.isRetryable || attempt >= maxRetries) throw failure;
    await sleep(retryDelayMs(attempt, delays, random(), failure.retryAfterMs), outer);
  }
}
