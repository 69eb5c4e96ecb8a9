import { describe, expect, it } from 'vitest';
import { teamChecksum } from '../checksum.js';
import { openSqliteStore } from '../storage/sqlite-store.js';
import { createTeamApp, type TeamRequestLog } from './app.js';
import { createTeamToken } from './auth.js';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field below
const json = (r: Response): Promise<any> => r.json();

async function setup(limits = {}) {
  const store = openSqliteStore(':memory:');
  const logs: TeamRequestLog[] = [];
  const app = createTeamApp({ store, limits, log: (l) => logs.push(l) });
  const write = await createTeamToken(store, 'acme', { write: true });
  const read = await createTeamToken(store, 'acme', { write: false });
  const other = await createTeamToken(store, 'other', { write: true });
  const call = (path: string, init: RequestInit & { token?: string } = {}) => {
    const headers = new Headers(init.headers);
    if (init.token) headers.set('authorization', `Bearer ${init.token}`);
    return app.request(path, { ...init, headers });
  };
  const put = (entries: Record<string, string>, token = write, ifMatch?: string) =>
    call('/v1/repos/acme/memories', {
      method: 'PUT',
      token,
      headers: { 'content-type': 'application/json', ...(ifMatch ? { 'if-match': ifMatch } : {}) },
      body: JSON.stringify({ entries }),
    });
  return { store, app, logs, write, read, other, call, put };
}

describe('team server HTTP API', () => {
  it('serves entries with sha256 checksums of the UTF-8 bytes and the version as ETag', async () => {
    const t = await setup();
    expect((await t.put({ 'a.md': 'héllo', 'x/b.md': 'two' })).status).toBe(200);
    const res = await t.call('/v1/repos/acme/memories', { token: t.read });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe('"1"');
    const body = await json(res);
    expect(body.entries).toEqual({ 'a.md': 'héllo', 'x/b.md': 'two' });
    expect(body.checksums['a.md']).toBe(teamChecksum('héllo'));
    expect(body.checksums['a.md']).toMatch(/^sha256:[0-9a-f]{64}$/);
    const hashes = await json(
      await t.call('/v1/repos/acme/memories?view=hashes', { token: t.read }),
    );
    expect(hashes).toEqual({ repo: 'acme', version: 1, checksums: body.checksums });
  });

  it('upserts only the keys sent and answers a stale If-Match with 412 and the current ETag', async () => {
    const t = await setup();
    await t.put({ 'a.md': '1', 'b.md': '2' }, t.write, '"0"');
    const ok = await t.put({ 'a.md': '1b' }, t.write, '"1"');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('etag')).toBe('"2"');
    const stale = await t.put({ 'b.md': 'lost' }, t.write, '"1"');
    expect(stale.status).toBe(412);
    expect(stale.headers.get('etag')).toBe('"2"');
    const body = await json(await t.call('/v1/repos/acme/memories', { token: t.read }));
    expect(body.entries).toEqual({ 'a.md': '1b', 'b.md': '2' });
  });

  it('answers 413 with the limit over the entry count, the entry size and the body size', async () => {
    const t = await setup({ maxEntries: 2, maxEntryBytes: 10, maxBodyBytes: 200 });
    const count = await t.put({ 'a.md': '1', 'b.md': '2', 'c.md': '3' });
    expect(count.status).toBe(413);
    expect(await json(count)).toMatchObject({ error: 'too_many_entries', limit: 2 });
    const entry = await t.put({ 'a.md': 'ü'.repeat(6) });
    expect(entry.status).toBe(413);
    expect(await json(entry)).toMatchObject({ error: 'entry_too_large', limit: 10 });
    const body = await t.put({ 'a.md': 'x'.repeat(300) });
    expect(body.status).toBe(413);
    expect(await json(body)).toEqual({ error: 'body_too_large', limit: 200 });
    const hashes = await json(
      await t.call('/v1/repos/acme/memories?view=hashes', { token: t.read }),
    );
    expect(hashes.version).toBe(0);
  });

  it('refuses keys that could leave the team directory', async () => {
    const t = await setup();
    for (const key of [
      '../evil.md',
      '/etc/x.md',
      'a\\..\\b.md',
      'a/./b.md',
      'x.txt',
      'a\u0000.md',
    ]) {
      const res = await t.put({ [key]: 'x' });
      expect(res.status, key).toBe(400);
    }
  });

  it('needs a token (401), opens only its own repo (403), and writes only with the write right', async () => {
    const t = await setup();
    await t.put({ 'a.md': 'acme only' });
    expect((await t.call('/v1/repos/acme/memories')).status).toBe(401);
    expect((await t.call('/v1/repos/acme/memories', { token: 'egt_wrong' })).status).toBe(401);
    const foreign = await t.call('/v1/repos/acme/memories', { token: t.other });
    expect(foreign.status).toBe(403);
    expect(await foreign.text()).not.toContain('acme only');
    expect((await t.put({ 'a.md': 'x' }, t.read)).status).toBe(403);
    const del = await t.call('/v1/repos/acme/memories/a.md', { method: 'DELETE', token: t.read });
    expect(del.status).toBe(403);
  });

  it('deletes one key explicitly', async () => {
    const t = await setup();
    await t.put({ 'a.md': '1', 'dir/b.md': '2' });
    const res = await t.call('/v1/repos/acme/memories/dir/b.md', {
      method: 'DELETE',
      token: t.write,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe('"2"');
    const again = await t.call('/v1/repos/acme/memories/dir%2Fb.md', {
      method: 'DELETE',
      token: t.write,
    });
    expect(again.status).toBe(404);
    const body = await json(await t.call('/v1/repos/acme/memories', { token: t.read }));
    expect(Object.keys(body.entries)).toEqual(['a.md']);
  });

  it('answers health and the OpenAPI description, and logs requests without memory content', async () => {
    const t = await setup();
    expect(await json(await t.call('/healthz'))).toEqual({ ok: true, storage: 'sqlite' });
    const spec = await json(await t.call('/openapi.json'));
    expect(Object.keys(spec.paths)).toContain('/v1/repos/{repo}/memories');
    await t.put({ 'a.md': 'the team secret sauce' });
    const putLog = t.logs.find((l) => l.method === 'PUT');
    expect(putLog).toMatchObject({ status: 200, repo: 'acme', keys: 1 });
    expect(JSON.stringify(t.logs)).not.toContain('secret sauce');
  });
});
