import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type LocalTeamServer, startLocalTeamServer } from '../local-team-server.js';
import { TeamSync } from './team-sync.js';

/** A pass-through proxy that keeps every request body exactly as it arrived on the socket. */
async function recordingProxy(target: string) {
  const bodies: Array<{ method: string; url: string; body: Buffer }> = [];
  const responses: Array<{ method: string; url: string; bytes: number }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method === 'PUT') bodies.push({ method: req.method, url: req.url!, body });
      const up = httpRequest(
        `${target}${req.url}`,
        { method: req.method, headers: req.headers },
        (upRes) => {
          const out: Buffer[] = [];
          upRes.on('data', (c: Buffer) => out.push(c));
          upRes.on('end', () => {
            const payload = Buffer.concat(out);
            responses.push({ method: req.method!, url: req.url!, bytes: payload.length });
            res.writeHead(upRes.statusCode!, upRes.headers);
            res.end(payload);
          });
        },
      );
      up.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, bodies, responses, close: () => new Promise<void>((r) => server.close(() => r())) };
}

let base: string;
let n = 0;
const cleanups: Array<() => Promise<void>> = [];
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'engram-team-wire-'));
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(() => rm(base, { recursive: true, force: true }));

async function setup(limits = {}) {
  const server: LocalTeamServer = await startLocalTeamServer({ limits });
  cleanups.push(() => server.close());
  const proxy = await recordingProxy(server.url);
  cleanups.push(proxy.close);
  const token = await server.token('acme');
  return { server, proxy, token };
}

async function teamFolder(count: number, size: number): Promise<string> {
  const dir = join(base, `f${++n}`, 'team');
  await mkdir(dir, { recursive: true });
  for (let i = 0; i < count; i++) {
    const body = `---\nname: memory ${i}\ndescription: fact number ${i} about "the build" \\ and ü\ntype: project\n---\n`;
    await writeFile(
      join(dir, `topic-${String((i * 7919) % count).padStart(4, '0')}.md`),
      body + 'x'.repeat(size),
    );
  }
  return dir;
}

describe('team sync on the wire', () => {
  it('for 300 entries the hashes view is at most 5% of the full GET', async () => {
    const t = await setup();
    const dir = await teamFolder(300, 2000);
    const sync = new TeamSync({
      teamDir: dir,
      config: () => ({ url: t.proxy.url, token: t.token, repo: 'acme' }),
    });
    expect((await sync.push()).pushed).toHaveLength(300);
    const headers = { authorization: `Bearer ${t.token}` };
    await fetch(`${t.proxy.url}/v1/repos/acme/memories`, { headers }).then((r) => r.arrayBuffer());
    await fetch(`${t.proxy.url}/v1/repos/acme/memories?view=hashes`, { headers }).then((r) =>
      r.arrayBuffer(),
    );
    const gets = t.proxy.responses.filter((r) => r.method === 'GET');
    const full = gets.find((r) => r.url === '/v1/repos/acme/memories')!.bytes;
    const hashes = gets.filter((r) => r.url.endsWith('view=hashes')).at(-1)!.bytes;
    console.log(
      `hashes view ${hashes} B / full GET ${full} B = ${((100 * hashes) / full).toFixed(2)}%`,
    );
    expect(hashes / full).toBeLessThanOrEqual(0.05);
  });

  it('two pushes of the same set form identical batches, and no body on the wire passes the cap', async () => {
    const cap = 16 * 1024;
    const a = await setup({ maxBodyBytes: cap });
    const b = await setup({ maxBodyBytes: cap });
    const dir = await teamFolder(80, 700);
    for (const t of [a, b]) {
      const sync = new TeamSync({
        teamDir: join(base, `state-${++n}`, 'team'),
        config: () => ({ url: t.proxy.url, token: t.token, repo: 'acme' }),
        maxBodyBytes: cap,
      });
      // Same files, separate sync state: point the second client at a copy of the folder.
      Object.assign(sync.options, { teamDir: dir });
      await rm(join(dir, '.engram-sync.json'), { force: true });
      const report = await sync.push();
      expect(report.failure).toBeUndefined();
      expect(report.batches).toBeGreaterThan(2);
    }
    expect(a.proxy.bodies.length).toBeGreaterThan(2);
    expect(b.proxy.bodies.map((x) => x.body.toString())).toEqual(
      a.proxy.bodies.map((x) => x.body.toString()),
    );
    for (const x of [...a.proxy.bodies, ...b.proxy.bodies])
      expect(x.body.length).toBeLessThanOrEqual(cap);
  });

  it('a retry after a partial commit sends the remaining batches exactly as first formed', async () => {
    const cap = 16 * 1024;
    const t = await setup({ maxBodyBytes: cap });
    const dir = await teamFolder(80, 700);
    let interfered = false;
    const sync = new TeamSync({
      teamDir: dir,
      config: () => ({ url: t.proxy.url, token: t.token, repo: 'acme' }),
      maxBodyBytes: cap,
      onProgress: (p) => {
        // Someone else writes between our first and second batch: the second gets a 412.
        if (p.batch === 2 && !interfered) {
          interfered = true;
          void t.server.store.putEntries('acme', [{ key: 'zz-other.md', content: 'theirs' }], {
            maxEntries: 2000,
          });
        }
      },
    });
    const report = await sync.push();
    expect(report.failure).toBeUndefined();
    expect(report.conflicts).toBe(1);
    const sent = t.proxy.bodies.map((x) => x.body.toString());
    // Batch 2 was refused, then sent again byte for byte; nothing else changed.
    expect(sent[2]).toBe(sent[1]);
    const unique = [...new Set(sent)];
    expect(unique).toHaveLength(report.batches);
  });
});
