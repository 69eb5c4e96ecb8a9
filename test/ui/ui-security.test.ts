import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createUiApp } from '../../src/ui/app.js';
import { isLoopbackHost, isSameOrigin } from '../../src/ui/security.js';
import { uiFixture } from './ui-fixture.js';

const TOKEN = 'test-token-0123456789';
const HOST = '127.0.0.1:4567';

async function setup() {
  const f = await uiFixture();
  const app = createUiApp({ engram: f.engram, token: TOKEN, port: 4567 });
  const get = (path: string, headers: Record<string, string> = {}) =>
    app.request(`http://${HOST}${path}`, { headers: { host: HOST, ...headers } });
  return { ...f, app, get };
}

describe('the inspector refuses what it must', () => {
  it('refuses a request without the token, or with a wrong one', async () => {
    const { get } = await setup();
    expect((await get('/api/memories')).status).toBe(401);
    expect((await get('/')).status).toBe(401);
    expect((await get('/api/memories', { 'x-engram-token': 'wrong' })).status).toBe(401);
    expect((await get('/api/memories', { 'x-engram-token': TOKEN })).status).toBe(200);
    expect((await get('/api/memories', { cookie: `engram_ui_token=${TOKEN}` })).status).toBe(200);
  });

  it('sets an HttpOnly SameSite cookie when the page is loaded with ?token=', async () => {
    const { get } = await setup();
    const res = await get(`/?token=${TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toMatch(/engram_ui_token=.*HttpOnly; SameSite=Strict/);
    expect(await res.text()).toContain('/assets/app.js');
  });

  it('refuses a request addressed to a non-loopback Host, even with the token', async () => {
    const { app } = await setup();
    for (const host of ['evil.example:4567', '10.0.0.1:4567', '127.0.0.1.evil.example', '']) {
      const res = await app.request(`http://${HOST}/api/memories`, {
        headers: { host, 'x-engram-token': TOKEN },
      });
      expect(res.status, host).toBe(403);
    }
  });

  it('refuses a state-changing request with a wrong or missing Origin', async () => {
    const { app, dir } = await setup();
    const post = (origin?: string) =>
      app.request(`http://${HOST}/api/memories/release-freeze.md/revoke`, {
        method: 'POST',
        headers: {
          host: HOST,
          'x-engram-token': TOKEN,
          'content-type': 'application/json',
          ...(origin ? { origin } : {}),
        },
        body: JSON.stringify({ reason: 'the freeze was lifted' }),
      });
    expect((await post('http://evil.example')).status).toBe(403);
    expect((await post('http://127.0.0.1:9999')).status).toBe(403);
    expect((await post()).status).toBe(403);
    expect(await readFile(join(dir, 'release-freeze.md'), 'utf8')).not.toMatch(/revoked/);
    const ok = await post(`http://${HOST}`);
    expect(ok.status).toBe(200);
    expect(await readFile(join(dir, 'release-freeze.md'), 'utf8')).toMatch(/status: revoked/);
    expect(await readFile(join(dir, 'MEMORY.md'), 'utf8')).not.toContain('release-freeze.md');
  });

  it('refuses path traversal out of the memory directory', async () => {
    const { get } = await setup();
    const h = { 'x-engram-token': TOKEN };
    for (const p of ['..%2Fsecret.md', '%2E%2E%2Fsecret.md', '..%5Csecret.md', '%2Fetc%2Fpasswd']) {
      const res = await get(`/api/memories/${p}`, h);
      expect(res.status, p).toBeGreaterThanOrEqual(400);
      expect(res.status, p).toBeLessThan(500);
      expect(await res.text()).not.toContain('OUTSIDE-SECRET');
    }
    const traversal = await get('/api/memories/..%2Fsecret.md?layer=user', h);
    expect(await traversal.text()).not.toContain('OUTSIDE-SECRET');
  });

  it('judges hosts and origins', () => {
    expect(isLoopbackHost('127.0.0.1:80', 80)).toBe(true);
    expect(isLoopbackHost('localhost:80', 81)).toBe(false);
    expect(isLoopbackHost('127.0.0.2')).toBe(false);
    expect(isSameOrigin('http://127.0.0.1:5', undefined, '127.0.0.1:5')).toBe(true);
    expect(isSameOrigin(undefined, 'http://127.0.0.1:5/x', '127.0.0.1:5')).toBe(true);
    expect(isSameOrigin('null', undefined, '127.0.0.1:5')).toBe(false);
    expect(isSameOrigin('https://127.0.0.1:5', undefined, '127.0.0.1:5')).toBe(false);
  });
});

describe('the inspector API', () => {
  it('lists memories, runs a recall, reports the index, doctor and stats', async () => {
    const { get } = await setup();
    const h = { 'x-engram-token': TOKEN };
    const list = (await (await get('/api/memories', h)).json()) as { memories: { file: string }[] };
    expect(list.memories.map((m) => m.file).sort()).toEqual([
      'postgres-migrations.md',
      'prefers-tabs.md',
      'release-freeze.md',
    ]);
    const one = (await (await get('/api/memories/postgres-migrations.md', h)).json()) as {
      body: string;
      frontmatter: string;
    };
    expect(one.body).toContain('npm run migrate');
    expect(one.frontmatter).toMatch(/^---\n[\s\S]*type: feedback/);

    const recall = (await (
      await get(`/api/recall?q=${encodeURIComponent('how do I run the postgres migrations')}`, h)
    ).json()) as {
      selected: { file: string }[];
      text: string;
      injectedBytes: number;
      ranked: { file: string; words: string[] }[];
    };
    expect(recall.selected.map((s) => s.file)).toContain('postgres-migrations.md');
    expect(recall.text).toContain('npm run migrate');
    expect(recall.injectedBytes).toBe(Buffer.byteLength(recall.text));
    expect(recall.ranked[0]!.file).toBe('postgres-migrations.md');
    expect(recall.ranked[0]!.words.length).toBeGreaterThan(0);

    const index = (await (await get('/api/index', h)).json()) as Record<string, unknown>;
    expect(index).toMatchObject({ lines: 3, maxLines: 200, maxBytes: 25000, orphans: [] });
    expect((await get('/api/doctor', h)).status).toBe(200);
    expect((await get('/api/stats', h)).status).toBe(200);
    expect((await get('/api/sessions', h)).status).toBe(200);
    expect((await get('/api/recall?q=x&selector=bogus', h)).status).toBe(400);
  });
});
