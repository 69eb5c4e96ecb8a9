import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type LocalTeamServer, startLocalTeamServer } from '../local-team-server.js';
import type { TeamClientConfig } from './config.js';
import { TeamSync } from './team-sync.js';
import { TeamWatcher } from './watcher.js';

let base: string;
let n = 0;
const servers: LocalTeamServer[] = [];
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'engram-team-watch-'));
});
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});
afterAll(() => rm(base, { recursive: true, force: true }));

async function setup(config: () => TeamClientConfig) {
  const teamDir = join(base, `w${++n}`, 'team');
  await mkdir(teamDir, { recursive: true });
  const sync = new TeamSync({ teamDir, config });
  const pushes: unknown[] = [];
  const watcher = new TeamWatcher({ sync, teamDir, debounceMs: 2, onPush: (r) => pushes.push(r) });
  return { teamDir, sync, watcher, pushes };
}

/** 10,000 events in 100 waves, each followed by the debounced push it triggers (if any). */
async function feedEvents(watcher: TeamWatcher, total = 10_000, waves = 100): Promise<void> {
  for (let w = 0; w < waves; w++) {
    for (let i = 0; i < total / waves; i++) watcher.notify({ kind: 'write', key: `k${i}.md` });
    await watcher.idle();
  }
}

describe('team watcher and permanent failures', () => {
  it('a client without credentials fed 10,000 file events makes at most 1 push attempt', async () => {
    const s = await startLocalTeamServer();
    servers.push(s);
    const t = await setup(() => ({ url: s.url, repo: 'acme' })); // no token
    await writeFile(join(t.teamDir, 'a.md'), 'x');
    await feedEvents(t.watcher);
    expect(t.sync.attempts).toBeLessThanOrEqual(1);
    expect(s.logs).toHaveLength(0);
    expect(t.sync.suppressedBecause?.kind).toBe('no_credentials');
  });

  it('a rejected token costs one request, however many events follow; new credentials lift it', async () => {
    const s = await startLocalTeamServer();
    servers.push(s);
    let config: TeamClientConfig = { url: s.url, token: 'egt_revoked', repo: 'acme' };
    const t = await setup(() => config);
    await writeFile(join(t.teamDir, 'a.md'), 'x');
    await feedEvents(t.watcher);
    expect(s.logs).toHaveLength(1);
    expect(s.logs[0]!.status).toBe(401);
    expect(t.sync.attempts).toBe(1);
    config = { ...config, token: await s.token('acme') };
    t.watcher.notify({ kind: 'write' });
    await t.watcher.idle();
    expect(t.sync.suppressedBecause).toBeUndefined();
    expect(Object.keys((await s.store.getHashes('acme'))!.checksums)).toEqual(['a.md']);
  });

  it('a 413 for too many entries is lifted by deleting a team file, and not before', async () => {
    const s = await startLocalTeamServer({ limits: { maxEntries: 2 } });
    servers.push(s);
    const token = await s.token('acme');
    const t = await setup(() => ({ url: s.url, token, repo: 'acme' }));
    for (const k of ['a.md', 'b.md', 'c.md']) await writeFile(join(t.teamDir, k), k);
    t.watcher.notify({ kind: 'write' });
    await t.watcher.idle();
    expect(t.sync.suppressedBecause).toMatchObject({ kind: 'http', status: 413, limit: 2 });
    const puts = () => s.logs.filter((l) => l.method === 'PUT').length;
    expect(puts()).toBe(1);
    await feedEvents(t.watcher, 500, 10);
    expect(puts()).toBe(1);
    await unlink(join(t.teamDir, 'c.md'));
    t.watcher.notify({ kind: 'unlink', key: 'c.md' });
    await t.watcher.idle();
    expect(puts()).toBe(2);
    expect(t.sync.suppressedBecause).toBeUndefined();
    expect(Object.keys((await s.store.getHashes('acme'))!.checksums).sort()).toEqual([
      'a.md',
      'b.md',
    ]);
  });

  it('follows the folder on disk: pull at start, a saved file becomes a push', async () => {
    const s = await startLocalTeamServer();
    servers.push(s);
    const token = await s.token('acme');
    await s.store.putEntries('acme', [{ key: 'from-server.md', content: 'hello' }], {
      maxEntries: 10,
    });
    const t = await setup(() => ({ url: s.url, token, repo: 'acme' }));
    const pulled = await t.watcher.start();
    expect(pulled.written).toEqual(['from-server.md']);
    await mkdir(join(t.teamDir, 'sub'), { recursive: true });
    await writeFile(join(t.teamDir, 'sub', 'new.md'), 'new fact');
    for (let i = 0; i < 200 && !(await s.store.getHashes('acme'))!.checksums['sub/new.md']; i++) {
      await new Promise((r) => setTimeout(r, 50));
      await t.watcher.idle();
    }
    await t.watcher.stop();
    expect(Object.keys((await s.store.getHashes('acme'))!.checksums).sort()).toEqual([
      'from-server.md',
      'sub/new.md',
    ]);
  });
});
