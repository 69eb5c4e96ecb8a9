import {
  link,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  symlink,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type LocalTeamServer, startLocalTeamServer } from '../local-team-server.js';
import type { TeamClientConfig } from './config.js';
import { TeamSync } from './team-sync.js';

let base: string;
let n = 0;
const servers: LocalTeamServer[] = [];
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'engram-team-sync-'));
});
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});
afterAll(() => rm(base, { recursive: true, force: true }));

async function server(limits = {}) {
  const s = await startLocalTeamServer({ limits });
  servers.push(s);
  return s;
}
async function client(s: LocalTeamServer, config?: TeamClientConfig, extra = {}) {
  const teamDir = join(base, `c${++n}`, 'team');
  await mkdir(teamDir, { recursive: true });
  const cfg = config ?? { url: s.url, token: await s.token('acme'), repo: 'acme' };
  return { teamDir, sync: new TeamSync({ teamDir, config: () => cfg, ...extra }), cfg };
}
const put = (dir: string, key: string, text: string) =>
  mkdir(join(dir, key, '..'), { recursive: true }).then(() => writeFile(join(dir, key), text));

describe('team sync client', () => {
  it('pushes local files, then a second client pulls them; the server wins per key, local-only files stay', async () => {
    const s = await server();
    const a = await client(s);
    await put(a.teamDir, 'conventions.md', 'use pnpm');
    await put(a.teamDir, 'dir/deploy.md', 'deploy on fridays? no');
    const pushed = await a.sync.push();
    expect(pushed).toMatchObject({
      pushed: ['conventions.md', 'dir/deploy.md'],
      skipped: [],
      batches: 1,
      conflicts: 0,
    });

    const b = await client(s, a.cfg);
    await put(b.teamDir, 'conventions.md', 'my local edit');
    await put(b.teamDir, 'mine.md', 'local only');
    const pulled = await b.sync.pull();
    expect(pulled.written.sort()).toEqual(['conventions.md', 'dir/deploy.md']);
    expect(await readFile(join(b.teamDir, 'conventions.md'), 'utf8')).toBe('use pnpm');
    expect(await readFile(join(b.teamDir, 'mine.md'), 'utf8')).toBe('local only');
  });

  it('sends only keys whose checksum differs from the last known server checksum', async () => {
    const s = await server();
    const a = await client(s);
    await put(a.teamDir, 'a.md', '1');
    await put(a.teamDir, 'b.md', '2');
    await a.sync.push();
    const before = s.logs.filter((l) => l.method === 'PUT').length;
    expect((await a.sync.push()).pushed).toEqual([]);
    expect(s.logs.filter((l) => l.method === 'PUT').length).toBe(before);
    await put(a.teamDir, 'b.md', '2b');
    expect((await a.sync.push()).pushed).toEqual(['b.md']);
  });

  it('never deletes on the server when a local file is deleted; the next pull restores it', async () => {
    const s = await server();
    const a = await client(s);
    await put(a.teamDir, 'keep.md', 'shared');
    await a.sync.push();
    await unlink(join(a.teamDir, 'keep.md'));
    await a.sync.push();
    expect(Object.keys((await s.store.getHashes('acme'))!.checksums)).toEqual(['keep.md']);
    await a.sync.pull();
    expect(await readFile(join(a.teamDir, 'keep.md'), 'utf8')).toBe('shared');
  });

  it('on 412 refreshes with the hashes view and retries', async () => {
    const s = await server();
    const a = await client(s);
    const b = await client(s, a.cfg);
    await put(a.teamDir, 'a.md', 'from a');
    await put(b.teamDir, 'b.md', 'from b');
    await a.sync.pull();
    await b.sync.pull();
    await a.sync.push();
    const report = await b.sync.push();
    expect(report).toMatchObject({ pushed: ['b.md'], conflicts: 1 });
    expect(report.failure).toBeUndefined();
    const gets = s.logs.filter((l) => l.method === 'GET').map((l) => l.path);
    expect(gets.length).toBeGreaterThan(0);
    const hashes = await s.store.getHashes('acme');
    expect(Object.keys(hashes!.checksums).sort()).toEqual(['a.md', 'b.md']);
  });

  it('holds back a file with a secret, reporting file, line, rule and a redacted match, and pushes the rest', async () => {
    const s = await server();
    const a = await client(s);
    const token = `${['gh', 'p_'].join('')}aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5`;
    await put(a.teamDir, 'leak.md', `notes\nthe token is ${token} ok`);
    await put(a.teamDir, 'fine.md', `placeholder ${['gh', 'p_'].join('')}${'x'.repeat(36)}`);
    const report = await a.sync.push();
    expect(report.pushed).toEqual(['fine.md']);
    expect(report.skipped).toEqual([
      { key: 'leak.md', reason: 'secret', rule: 'github-pat', line: 2, match: expect.any(String) },
    ]);
    expect(report.skipped[0]!.match).not.toContain(token.slice(6));
    expect(JSON.stringify(await s.store.getEntries('acme'))).not.toContain(token);
  });

  it('refuses server keys that would write outside the team folder and reports them', async () => {
    const s = await server();
    const a = await client(s);
    const outside = join(base, `outside-${n}`);
    await mkdir(outside, { recursive: true });
    await symlink(outside, join(a.teamDir, 'linked'));
    // Straight into the store: our own server refuses such keys, a hostile one would not.
    const absolute = join(outside, 'abs.md');
    await s.store.putEntries(
      'acme',
      [
        { key: 'linked/evil.md', content: 'pwned' },
        { key: '../../evil.md', content: 'pwned' },
        { key: absolute, content: 'pwned' },
        { key: '..\\..\\evil.md', content: 'pwned' },
        { key: 'ok.md', content: 'fine' },
      ],
      {
        maxEntries: 10,
      },
    );
    const report = await a.sync.pull();
    expect(report.written).toEqual(['ok.md']);
    expect(report.refused.map((r) => r.key).sort()).toEqual(
      ['../../evil.md', '..\\..\\evil.md', absolute, 'linked/evil.md'].sort(),
    );
    expect(report.refused.find((r) => r.key === 'linked/evil.md')?.reason).toBe(
      'path goes through a symlink',
    );
    await expect(readFile(join(outside, 'evil.md'), 'utf8')).rejects.toThrow();
    await expect(readFile(absolute, 'utf8')).rejects.toThrow();
    await expect(readFile(join(a.teamDir, '..', '..', 'evil.md'), 'utf8')).rejects.toThrow();
  });

  it('never follows a team folder that is a symbolic link: a push reads nothing and a pull writes nothing through it', async () => {
    const s = await server();
    const cfg = { url: s.url, token: await s.token('acme'), repo: 'acme' };
    const memory = join(base, `linked-team-${++n}`);
    const outside = join(base, `outside-folder-${n}`);
    await mkdir(memory, { recursive: true });
    await mkdir(outside, { recursive: true });
    await writeFile(join(outside, 'diary.md'), 'outside sentinel');
    const teamDir = join(memory, 'team');
    await symlink(outside, teamDir);
    const sync = new TeamSync({ teamDir, config: () => cfg });
    await expect(sync.push()).rejects.toThrow(/symbolic link/);
    expect(JSON.stringify(await s.store.getEntries('acme'))).not.toContain('outside sentinel');
    await s.store.putEntries('acme', [{ key: 'pulled.md', content: 'from the server' }], {
      maxEntries: 10,
    });
    await expect(sync.pull()).rejects.toThrow(/symbolic link/);
    expect((await readdir(outside)).sort()).toEqual(['diary.md']);
  });

  it('does not push a hard link to a file outside the team folder', async () => {
    const s = await server();
    const a = await client(s);
    const outside = join(base, `outside-file-${++n}.md`);
    await writeFile(outside, 'outside sentinel');
    await link(outside, join(a.teamDir, 'linked.md'));
    await put(a.teamDir, 'plain.md', 'shared');
    const report = await a.sync.push();
    expect(report.pushed).toEqual(['plain.md']);
    expect(report.skipped).toEqual([{ key: 'linked.md', reason: 'hard_link' }]);
    expect(JSON.stringify(await s.store.getEntries('acme'))).not.toContain('outside sentinel');
  });

  it('never sends a body over the cap, measured on the wire by the server', async () => {
    const s = await server({ maxBodyBytes: 8 * 1024 });
    const a = await client(s, undefined, { maxBodyBytes: 8 * 1024 });
    for (let i = 0; i < 60; i++)
      await put(a.teamDir, `m${String(i).padStart(3, '0')}.md`, `"quoted" é\n`.repeat(40 + i));
    const report = await a.sync.push();
    expect(report.failure).toBeUndefined();
    expect(report.pushed).toHaveLength(60);
    expect(report.batches).toBeGreaterThan(5);
    const received = s.logs.filter((l) => l.method === 'PUT').map((l) => l.bytesIn!);
    expect(received).toHaveLength(report.batches);
    expect(Math.max(...received)).toBeLessThanOrEqual(8 * 1024);
    expect(a.sync.http!.sentBodies).toEqual(received);
  });

  it('packs under the limits the server announces, so nothing over its cap goes on the wire', async () => {
    const s = await server({ maxBodyBytes: 4096, maxEntryBytes: 1024 });
    const a = await client(s);
    for (let i = 0; i < 20; i++)
      await put(a.teamDir, `n${String(i).padStart(2, '0')}.md`, 'y'.repeat(500));
    await put(a.teamDir, 'big.md', 'z'.repeat(2000));
    const report = await a.sync.push();
    expect(report.failure).toBeUndefined();
    expect(report.pushed).toHaveLength(20);
    expect(report.skipped).toEqual([{ key: 'big.md', reason: 'too_large' }]);
    const puts = s.logs.filter((l) => l.method === 'PUT');
    expect(puts.every((l) => l.status === 200)).toBe(true);
    expect(Math.max(...puts.map((l) => l.bytesIn!))).toBeLessThanOrEqual(4096);
  });

  it('re-forms its batches when a 413 names a smaller limit than it knew', async () => {
    const s = await server({ maxBodyBytes: 4096 });
    const a = await client(s);
    await put(a.teamDir, 'first.md', 'x');
    await a.sync.push();
    // A state written before the server announced limits (or by an older client).
    const statePath = join(a.teamDir, '.engram-sync.json');
    const state = JSON.parse(await readFile(statePath, 'utf8'));
    delete state.limits;
    await writeFile(statePath, JSON.stringify(state));
    for (let i = 0; i < 20; i++) await put(a.teamDir, `m${i}.md`, 'y'.repeat(500));
    const report = await a.sync.push();
    expect(report.failure).toBeUndefined();
    expect(report.pushed).toHaveLength(20);
    const puts = s.logs.filter((l) => l.method === 'PUT');
    expect(puts.filter((l) => l.status === 413)).toHaveLength(1);
    expect(
      Math.max(...puts.filter((l) => l.status === 200).map((l) => l.bytesIn!)),
    ).toBeLessThanOrEqual(4096);
  });
});
