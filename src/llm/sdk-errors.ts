import { isRetryableStatus, ModelError, parseRetryAfter } from './model-error.js';

/** Turn whatever the SDK threw into a ModelError with an honest `isRetryable`. */
export function classifySdkError(error: unknown, provider: string): ModelError {
  if (error instanceof ModelError) return error;
  if (error instanceof Error && 'status' in error && typeof error.status === 'number') {
    const status = error.status;
    const headers = (error as { headers?: Headers }).headers;
    const retryAfter = parseRetryAfter(
      headers && typeof headers.get === 'function' ? headers.get('retry-after') : undefined,
      Date.now(),
    );
    return new ModelError(`${provider} answered ${status}: ${error.message}`, {
      status,
      isRetryable: isRetryableStatus(status),
      ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter }),
      cause: error,
    });
  }
  // No status: the request never got an HTTP answer. Connection faults are worth another try;
  // anything else (a malformed request the SDK refused to send) is not.
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError(`${provider} request failed: ${message}`, {
    isRetryable: isNetworkFault(error),
    cause: error,
  });
}

const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
]);

function isNetworkFault(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // Both SDKs wrap fetch failures in an APIConnectionError (timeouts in a subclass).
  // Matched by class name, so this module does not load either SDK (they load on first call).
  if (inheritsFrom(error, 'APIConnectionError')) return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  return error.cause !== undefined && isNetworkFault(error.cause);
}

function inheritsFrom(error: Error, className: string): boolean {
  for (let proto = Object.getPrototypeOf(error); proto; proto = Object.getPrototypeOf(proto)) {
    if (proto.constructor?.name === className) return true;
  }
  return false;
}
