/**
 * The inspector's request rules, as pure checks: a random token on every request, loopback Host
 * only, and a same-origin check on every state-changing request. The Hono middleware in app.ts
 * applies them; nothing here touches the network or the memory directory.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

export const UI_TOKEN_HEADER = 'x-engram-token';
export const UI_TOKEN_COOKIE = 'engram_ui_token';

/** 32 random bytes, URL-safe. */
export function newUiToken(): string {
  return randomBytes(32).toString('base64url');
}

export function tokensMatch(given: string | undefined | null, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** True when a Host header names a loopback host (with the served port, when one is known). */
export function isLoopbackHost(host: string | undefined, port?: number): boolean {
  if (!host) return false;
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host.trim().toLowerCase());
  if (!m) return false;
  if (!LOOPBACK_HOSTS.has(m[1]!)) return false;
  if (port !== undefined && m[2] !== undefined && Number(m[2]) !== port) return false;
  return true;
}

/**
 * A state-changing request must come from the page this server served: its Origin (or, when a
 * browser sends none, its Referer) must be a loopback http origin whose host is the request's Host.
 */
export function isSameOrigin(
  origin: string | undefined,
  referer: string | undefined,
  host: string | undefined,
): boolean {
  const source = origin ?? referer;
  if (!source || !host) return false;
  let url: URL;
  try {
    url = new URL(source);
  } catch {
    return false;
  }
  return url.protocol === 'http:' && url.host === host.toLowerCase() && isLoopbackHost(url.host);
}

export function isStateChanging(method: string): boolean {
  return !['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase());
}

export function cookieToken(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === UI_TOKEN_COOKIE) return v.join('=');
  }
  return undefined;
}
