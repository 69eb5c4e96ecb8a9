import { EngramError } from '../util/errors.js';

/**
 * A failed model call. `isRetryable` follows HTTP semantics (408, 409, 429, 5xx) plus network
 * faults and timeouts; everything else (400, 401, 403, 404, 413, 422, ...) fails at once because
 * sending the same request again cannot succeed.
 */
export class ModelError extends EngramError {
  readonly status: number | undefined;
  readonly isRetryable: boolean;
  /** Server-requested wait before the next attempt (Retry-After), when it sent one. */
  readonly retryAfterMs: number | undefined;

  constructor(
    message: string,
    options: {
      status?: number;
      isRetryable: boolean;
      retryAfterMs?: number;
      cause?: unknown;
      code?: 'model_error' | 'aborted';
    },
  ) {
    super(options.code ?? 'model_error', message, { cause: options.cause });
    this.name = 'ModelError';
    this.status = options.status;
    this.isRetryable = options.isRetryable;
    this.retryAfterMs = options.retryAfterMs;
  }
}

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** The error a call ends with when the caller's AbortSignal fired. */
export function abortedError(cause?: unknown): ModelError {
  return new ModelError('the model call was aborted', {
    isRetryable: false,
    code: 'aborted',
    cause,
  });
}

/** Parse a Retry-After header (seconds or an HTTP date) into milliseconds. */
export function parseRetryAfter(
  value: string | null | undefined,
  nowMs: number,
): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

export function isModelError(value: unknown): value is ModelError {
  return value instanceof ModelError;
}
