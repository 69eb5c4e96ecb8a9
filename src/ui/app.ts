/**
 * The inspector's HTTP app (Hono): the security rules first, then the page, its assets and the
 * JSON API under /api/. An adapter only: every answer comes from views.ts / the library.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Context, Hono } from 'hono';
import { repairMemoryDir } from '../drift/index.js';
import { readMemory, resolveMemoryRef, revokeMemory } from '../memdir/index.js';
import type { Engram } from '../runtime/index.js';
import { EngramError, isEngramError } from '../util/errors.js';
import {
  cookieToken,
  isLoopbackHost,
  isSameOrigin,
  isStateChanging,
  tokensMatch,
  UI_TOKEN_COOKIE,
  UI_TOKEN_HEADER,
} from './security.js';
import {
  doctorReport,
  indexHealth,
  listMemories,
  memoryDetail,
  memoryLocation,
  playground,
  recallCharts,
} from './views.js';

export interface UiAppOptions {
  engram: Engram;
  token: string;
  /** The port served, when known: a Host naming another port is refused. */
  port?: number;
  /** Where app.js / app.css are (default: the built dist/ui-assets). */
  assetsDir?: string;
}

const ASSET_CANDIDATES = ['../ui-assets/', '../../ui-assets/', '../../dist/ui-assets/'];

function defaultAssetsDir(): string | undefined {
  for (const rel of ASSET_CANDIDATES) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(`${dir}app.js`)) return dir;
  }
  return undefined;
}

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>engram inspector</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<link rel="stylesheet" href="/assets/app.css"></head>
<body><div id="app">Loading…</div><script type="module" src="/assets/app.js"></script></body></html>`;

function statusFor(error: unknown): 400 | 403 | 404 | 500 {
  if (isEngramError(error, 'not_found')) return 404;
  if (error instanceof EngramError) {
    if (error.code === 'refused' || error.code === 'invalid_path') return 403;
    if (error.code === 'invalid_input') return 400;
  }
  if ((error as { name?: string })?.name === 'ConfinementError') return 403;
  return 500;
}

export function createUiApp(options: UiAppOptions): Hono {
  const { engram, token } = options;
  const assets = options.assetsDir ?? defaultAssetsDir();
  const app = new Hono();

  app.use('*', async (c, next) => {
    const host = c.req.header('host');
    if (!isLoopbackHost(host, options.port)) return c.json({ error: 'host not allowed' }, 403);
    const given =
      c.req.query('token') ?? c.req.header(UI_TOKEN_HEADER) ?? cookieToken(c.req.header('cookie'));
    if (!tokensMatch(given, token)) return c.json({ error: 'token required' }, 401);
    if (
      isStateChanging(c.req.method) &&
      !isSameOrigin(c.req.header('origin'), c.req.header('referer'), host)
    ) {
      return c.json({ error: 'cross-origin request refused' }, 403);
    }
    await next();
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('X-Frame-Options', 'DENY');
  });

  app.onError((error, c) => c.json({ error: (error as Error).message }, statusFor(error)));

  app.get('/', (c) => {
    c.header('Set-Cookie', `${UI_TOKEN_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict`);
    c.header(
      'Content-Security-Policy',
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:",
    );
    return c.html(PAGE);
  });

  app.get('/assets/:name', (c) => {
    const name = c.req.param('name');
    if (!assets || !['app.js', 'app.css'].includes(name))
      return c.json({ error: 'not found' }, 404);
    const type = name.endsWith('.js') ? 'text/javascript' : 'text/css';
    return c.body(readFileSync(`${assets}${name}`, 'utf8'), 200, { 'Content-Type': type });
  });

  const layerOf = (c: Context) => c.req.query('layer') ?? 'project';

  app.get('/api/memories', async (c) => c.json({ memories: await listMemories(engram) }));
  app.get('/api/memories/:file', async (c) =>
    c.json(await memoryDetail(engram, c.req.param('file'), layerOf(c))),
  );
  app.post('/api/memories/:file/revoke', async (c) => {
    const { dir } = memoryLocation(engram, c.req.param('file'), layerOf(c));
    const body = (await c.req.json().catch(() => ({}))) as { reason?: unknown };
    if (typeof body.reason !== 'string' || body.reason.trim() === '')
      throw new EngramError('invalid_input', 'a reason is required');
    const file = await resolveMemoryRef(dir, c.req.param('file'));
    const doc = await readMemory(dir, file);
    if (doc.header.status === 'revoked')
      throw new EngramError('invalid_input', `${file} is already revoked.`);
    await revokeMemory(dir, file, { reason: body.reason, clock: engram.clock });
    return c.json({ file, status: 'revoked' });
  });
  app.get('/api/recall', async (c) => {
    const q = c.req.query('q') ?? '';
    const selector = c.req.query('selector') ?? 'offline';
    if (selector !== 'offline' && selector !== 'model')
      throw new EngramError('invalid_input', 'selector is offline or model');
    return c.json(await playground(engram, q, selector));
  });
  app.get('/api/index', async (c) => c.json(await indexHealth(engram)));
  app.post('/api/index/fix', async (c) => {
    const report = await engram.doctor({ verifyBudgetMs: 0 });
    return c.json(await repairMemoryDir(engram.memoryDir, report, engram.clock));
  });
  app.get('/api/doctor', async (c) => c.json(await doctorReport(engram)));
  app.get('/api/stats', async (c) => {
    const [stats, charts] = await Promise.all([engram.stats(), recallCharts(engram)]);
    return c.json({ ...stats, charts });
  });
  app.get('/api/sessions', async (c) => {
    const sessions = await engram.sessions.listSessionsTouchedSince(0).catch(() => []);
    return c.json({ sessions: sessions.slice(0, 20) });
  });
  return app;
}
