import type { Context } from 'hono';
import { Hono } from 'hono';
import { checkTeamKey } from '../keys.js';
import { DEFAULT_TEAM_LIMITS, LIMIT_HEADERS, type TeamLimits } from '../limits.js';
import type { TeamStore } from '../storage/types.js';
import { authorize, isRepoName } from './auth.js';
import { TEAM_OPENAPI } from './openapi.js';
import { readBoundedBody } from './read-body.js';
import { etagFor, parseIfMatch, parseMemoriesPath } from './routes.js';

/** One structured log line per request. It never carries memory content, only its size. */
export interface TeamRequestLog {
  time: string;
  method: string;
  path: string;
  status: number;
  ms: number;
  repo?: string;
  bytesIn?: number;
  keys?: number;
  error?: string;
}

export interface TeamAppOptions {
  store: TeamStore;
  limits?: Partial<TeamLimits>;
  log?: (entry: TeamRequestLog) => void;
}

type Json = Record<string, unknown>;

/** The team server as a Hono app: tests call `app.request(...)`, `serve` puts it on a socket. */
export function createTeamApp(options: TeamAppOptions): Hono {
  const store = options.store;
  const limits: TeamLimits = { ...DEFAULT_TEAM_LIMITS, ...options.limits };
  const app = new Hono();

  app.use('*', async (c, next) => {
    const started = performance.now();
    await next();
    const facts = (c.get('logFacts' as never) ?? {}) as Partial<TeamRequestLog>;
    options.log?.({
      time: new Date().toISOString(),
      method: c.req.method,
      path: new URL(c.req.url).pathname,
      status: c.res.status,
      ms: Math.round((performance.now() - started) * 100) / 100,
      ...facts,
    });
  });

  app.get('/healthz', (c) => c.json({ ok: true, storage: store.kind }));
  app.get('/openapi.json', (c) => c.json(TEAM_OPENAPI));
  app.get('/v1/openapi.json', (c) => c.json(TEAM_OPENAPI));

  app.all('/v1/repos/*', async (c) => {
    const path = parseMemoriesPath(new URL(c.req.url).pathname);
    if (!path) return c.json({ error: 'not_found' }, 404);
    if (!isRepoName(path.repo)) return c.json({ error: 'invalid_repo' }, 400);
    const method = c.req.method;
    const allowed = path.key === undefined ? ['GET', 'PUT'] : ['DELETE'];
    if (!allowed.includes(method)) {
      c.header('Allow', allowed.join(', '));
      return c.json({ error: 'method_not_allowed' }, 405);
    }
    setFacts(c, { repo: path.repo });
    // The limits travel with every answer, so a client packs its batches under them from the start.
    c.header(LIMIT_HEADERS.maxEntries, String(limits.maxEntries));
    c.header(LIMIT_HEADERS.maxEntryBytes, String(limits.maxEntryBytes));
    c.header(LIMIT_HEADERS.maxBodyBytes, String(limits.maxBodyBytes));
    const auth = await authorize(store, c.req.header('authorization'), path.repo, method !== 'GET');
    if (!auth.ok) {
      if (auth.status === 401) c.header('WWW-Authenticate', 'Bearer');
      return c.json({ error: auth.error }, auth.status);
    }
    if (method === 'GET') return getMemories(c, store, path.repo, c.req.query('view'));
    if (method === 'PUT') return putMemories(c, store, limits, path.repo);
    return deleteMemory(c, store, path.repo, path.key!);
  });

  app.notFound((c) => c.json({ error: 'not_found' }, 404));
  app.onError((error, c) => {
    // The message may name a database; it goes to the log only, never to the client.
    setFacts(c, { error: error instanceof Error ? error.message : String(error) });
    return c.json({ error: 'internal_error' }, 500);
  });
  return app;
}

function setFacts(c: Context, facts: Partial<TeamRequestLog>): void {
  const previous = (c.get('logFacts' as never) ?? {}) as Json;
  c.set('logFacts' as never, { ...previous, ...facts } as never);
}

async function getMemories(c: Context, store: TeamStore, repo: string, view: string | undefined) {
  if (view === 'hashes') {
    const hashes = await store.getHashes(repo);
    if (!hashes) return c.json({ error: 'unknown_repo' }, 404);
    c.header('ETag', etagFor(hashes.version));
    return c.json({ repo, version: hashes.version, checksums: hashes.checksums });
  }
  if (view !== undefined) return c.json({ error: 'invalid_view', views: ['hashes'] }, 400);
  const all = await store.getEntries(repo);
  if (!all) return c.json({ error: 'unknown_repo' }, 404);
  const entries: Record<string, string> = {};
  const checksums: Record<string, string> = {};
  for (const e of all.entries) {
    entries[e.key] = e.content;
    checksums[e.key] = e.checksum;
  }
  c.header('ETag', etagFor(all.version));
  return c.json({ repo, version: all.version, entries, checksums });
}

async function putMemories(c: Context, store: TeamStore, limits: TeamLimits, repo: string) {
  const ifMatch = parseIfMatch(c.req.header('if-match'));
  if (ifMatch === 'invalid') return c.json({ error: 'invalid_if_match' }, 400);
  const body = await readBoundedBody(c.req.raw, limits.maxBodyBytes);
  if (!body.ok) {
    return c.json({ error: 'body_too_large', limit: limits.maxBodyBytes }, 413);
  }
  setFacts(c, { bytesIn: Buffer.byteLength(body.text) });
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.text);
  } catch {
    return c.json({ error: 'invalid_json' }, 400);
  }
  const raw = (parsed as { entries?: unknown } | null)?.entries;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return c.json({ error: 'invalid_body', expected: '{"entries": {"<key>": "<content>"}}' }, 400);
  }
  const entries: Array<{ key: string; content: string }> = [];
  for (const [key, content] of Object.entries(raw)) {
    const check = checkTeamKey(key);
    if (!check.ok) return c.json({ error: 'invalid_key', key, reason: check.reason }, 400);
    if (typeof content !== 'string') return c.json({ error: 'invalid_content', key }, 400);
    if (Buffer.byteLength(content, 'utf8') > limits.maxEntryBytes) {
      return c.json({ error: 'entry_too_large', key, limit: limits.maxEntryBytes }, 413);
    }
    entries.push({ key, content });
  }
  setFacts(c, { keys: entries.length });
  const outcome = await store.putEntries(repo, entries, {
    maxEntries: limits.maxEntries,
    ...(ifMatch === 'any' ? {} : { ifVersion: ifMatch }),
  });
  switch (outcome.kind) {
    case 'not_found':
      return c.json({ error: 'unknown_repo' }, 404);
    case 'conflict':
      c.header('ETag', etagFor(outcome.version));
      return c.json({ error: 'version_mismatch', version: outcome.version }, 412);
    case 'too_many_entries':
      return c.json({ error: 'too_many_entries', limit: outcome.limit, count: outcome.count }, 413);
    case 'ok':
      c.header('ETag', etagFor(outcome.version));
      return c.json({ version: outcome.version, keys: entries.map((e) => e.key).sort() });
  }
}

async function deleteMemory(c: Context, store: TeamStore, repo: string, key: string) {
  const check = checkTeamKey(key);
  if (!check.ok) return c.json({ error: 'invalid_key', key, reason: check.reason }, 400);
  const ifMatch = parseIfMatch(c.req.header('if-match'));
  if (ifMatch === 'invalid') return c.json({ error: 'invalid_if_match' }, 400);
  const outcome = await store.deleteEntry(
    repo,
    key,
    ifMatch === 'any' ? {} : { ifVersion: ifMatch },
  );
  if (outcome.kind === 'not_found') return c.json({ error: 'not_found', key }, 404);
  c.header('ETag', etagFor(outcome.version));
  if (outcome.kind === 'conflict') {
    return c.json({ error: 'version_mismatch', version: outcome.version }, 412);
  }
  return c.json({ version: outcome.version, deleted: key });
}
