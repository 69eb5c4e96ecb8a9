import { limitsFromHeaders, type TeamLimits } from '../limits.js';
import { etagFor } from '../server/routes.js';

export interface TeamHttpOptions {
  url: string;
  token: string;
  repo: string;
  /** Per request (default 30 s). */
  timeoutMs?: number;
  /** Called after every request (for load figures; never sees content). */
  onRequest?: (info: { method: string; status: number; ms: number }) => void;
}

export type HttpResult<T> =
  | { ok: true; status: number; version: number; body: T; limits: Partial<TeamLimits> }
  | { ok: false; status: number; version?: number; body: Record<string, unknown> }
  | { ok: false; status: 0; error: string };

export interface FullView {
  version: number;
  entries: Record<string, unknown>;
  checksums: Record<string, unknown>;
}
export interface HashesView {
  version: number;
  checksums: Record<string, unknown>;
}

/** The team server's HTTP API, one method per call; failures are values, never throws. */
export class TeamHttpClient {
  /** Bytes of every request body sent, in order (what went on the wire). */
  readonly sentBodies: number[] = [];
  requests = 0;

  constructor(readonly options: TeamHttpOptions) {}

  private endpoint(key?: string): string {
    const base = `${this.options.url}/v1/repos/${encodeURIComponent(this.options.repo)}/memories`;
    return key === undefined ? base : `${base}/${key.split('/').map(encodeURIComponent).join('/')}`;
  }

  getAll(): Promise<HttpResult<FullView>> {
    return this.call('GET', this.endpoint());
  }

  getHashes(): Promise<HttpResult<HashesView>> {
    return this.call('GET', `${this.endpoint()}?view=hashes`);
  }

  /** `body` is sent byte for byte as given: the batch planner measured exactly this string. */
  put(body: string, ifVersion: number | undefined): Promise<HttpResult<{ version: number }>> {
    return this.call('PUT', this.endpoint(), body, ifVersion);
  }

  delete(key: string, ifVersion?: number): Promise<HttpResult<{ version: number }>> {
    return this.call('DELETE', this.endpoint(key), undefined, ifVersion);
  }

  private async call<T>(
    method: string,
    url: string,
    body?: string,
    ifVersion?: number,
  ): Promise<HttpResult<T>> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.options.token}`,
      accept: 'application/json',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (ifVersion !== undefined) headers['if-match'] = etagFor(ifVersion);
    this.requests++;
    if (body !== undefined) this.sentBodies.push(Buffer.byteLength(body));
    const started = performance.now();
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, {
        method,
        headers,
        ...(body !== undefined ? { body } : {}),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
      });
      text = await response.text();
    } catch (error) {
      this.options.onRequest?.({ method, status: 0, ms: performance.now() - started });
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      return { ok: false, status: 0, error: cause ?? String(error) };
    }
    this.options.onRequest?.({ method, status: response.status, ms: performance.now() - started });
    let parsed: Record<string, unknown> = {};
    try {
      parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      parsed = { error: 'unreadable_response' };
    }
    const version = versionFrom(response.headers.get('etag'), parsed.version);
    if (!response.ok) {
      return {
        ok: false,
        status: response.status,
        ...(version !== undefined ? { version } : {}),
        body: parsed,
      };
    }
    return {
      ok: true,
      status: response.status,
      version: version ?? 0,
      body: parsed as T,
      limits: limitsFromHeaders(response.headers),
    };
  }
}

function versionFrom(etag: string | null, bodyVersion: unknown): number | undefined {
  const m = etag ? /^(?:W\/)?"?(\d+)"?$/.exec(etag.trim()) : null;
  if (m) return Number(m[1]);
  return typeof bodyVersion === 'number' ? bodyVersion : undefined;
}
