import type { HttpResult } from './http-client.js';

/**
 * Why a push failed, and whether retrying can ever help. A permanent failure stops pushes for the
 * life of the process: otherwise writes by other sessions to the shared team folder keep
 * triggering pushes that fail the same way, forever (the reference system once saw one device
 * without credentials send 167K requests in 2.5 days). Back-off does not fix that: the trigger is
 * external and never stops. Only a signal that matches a real recovery lifts it, never time.
 */
export type PushFailureKind = 'no_credentials' | 'no_repo' | 'http' | 'network' | 'conflict';

export interface PushFailure {
  kind: PushFailureKind;
  status?: number;
  message: string;
  /** From a 413 body: the server's limit. */
  limit?: number;
}

/** What can lift a suppression: deleting a team file (the fix for too many entries), or new credentials. */
export type RecoverySignal = 'unlink' | 'credentials';

export function isPermanentFailure(failure: PushFailure): boolean {
  if (failure.kind === 'no_credentials' || failure.kind === 'no_repo') return true;
  if (failure.kind !== 'http' || failure.status === undefined) return false;
  // 409 (a concurrent change) and 429 (rate limited) can heal by themselves; the debounce of the
  // watcher already spaces the next try.
  return (
    failure.status >= 400 &&
    failure.status < 500 &&
    failure.status !== 409 &&
    failure.status !== 429
  );
}

/** The signal that would mean the user fixed this permanent failure. */
export function recoveryFor(failure: PushFailure): RecoverySignal {
  if (failure.kind === 'http' && (failure.status === 413 || failure.status === 400))
    return 'unlink';
  return 'credentials';
}

/** A failed HTTP answer as a push failure, with the hint a person needs to fix it. */
export function failureOf(res: Exclude<HttpResult<unknown>, { ok: true }>): PushFailure {
  if ('error' in res)
    return { kind: 'network', message: `cannot reach the team server: ${res.error}` };
  const body = res.body;
  const code = typeof body.error === 'string' ? body.error : `HTTP ${res.status}`;
  const limit = typeof body.limit === 'number' ? body.limit : undefined;
  const hint: Record<number, string> = {
    401: 'the token is missing or unknown: log in again',
    403: 'the token does not open this repo (or cannot write)',
    404: 'the server does not know this repo',
    413: `over the server limit${limit !== undefined ? ` (${limit})` : ''}: delete team files to get under it`,
  };
  return {
    kind: 'http',
    status: res.status,
    message: `${code}${hint[res.status] ? `: ${hint[res.status]}` : ''}`,
    ...(limit !== undefined ? { limit } : {}),
  };
}
