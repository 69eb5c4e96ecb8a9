// The inspector names each memory's layer as recall does: a file of the team folder is layer
// `team`, and `?layer=team` reads and revokes it.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readMemory, saveMemory } from '../../src/memdir/index.js';
import { createUiApp } from '../../src/ui/app.js';
import { uiFixture } from './ui-fixture.js';

const TOKEN = 'test-token-0123456789';
const HOST = '127.0.0.1:4567';

async function setup() {
  const f = await uiFixture();
  await saveMemory(join(f.dir, 'team'), {
    type: 'project',
    name: 'staging deploys',
    description: 'Staging deploys go through the release bot on Fridays',
    body: 'Use the release bot.\n**Why:** the audit trail.\n**How to apply:** every staging deploy.',
  });
  const app = createUiApp({ engram: f.engram, token: TOKEN, port: 4567 });
  const headers = { host: HOST, 'x-engram-token': TOKEN };
  const get = async (path: string) => {
    const res = await app.request(`http://${HOST}${path}`, { headers });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const post = async (path: string, body: unknown) => {
    const res = await app.request(`http://${HOST}${path}`, {
      method: 'POST',
      headers: { ...headers, origin: `http://${HOST}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  return { ...f, get, post };
}

describe("the inspector's layers", () => {
  it('lists a team folder memory as layer team, as recall names it', async () => {
    const { get, engram } = await setup();
    const rows = (await get('/api/memories')).body.memories as Array<{
      file: string;
      layer: string;
    }>;
    expect(rows.find((r) => r.file === 'team/staging-deploys.md')?.layer).toBe('team');
    expect(rows.find((r) => r.file === 'postgres-migrations.md')?.layer).toBe('project');
    const recalled = await engram.recall({
      query: 'how do staging deploys work on Fridays',
      log: false,
    });
    expect(recalled.selected.map((m) => [m.file, m.layer])).toContainEqual([
      'team/staging-deploys.md',
      'team',
    ]);
  });

  it('reads and revokes a team memory with ?layer=team, and refuses a file outside the team folder', async () => {
    const { get, post, dir } = await setup();
    const detail = await get(
      `/api/memories/${encodeURIComponent('team/staging-deploys.md')}?layer=team`,
    );
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ file: 'team/staging-deploys.md', layer: 'team' });
    expect(detail.body.body).toContain('Use the release bot.');
    expect((await get('/api/memories/postgres-migrations.md?layer=team')).status).toBe(404);

    const revoked = await post(
      `/api/memories/${encodeURIComponent('team/staging-deploys.md')}/revoke?layer=team`,
      { reason: 'the release bot was retired' },
    );
    expect(revoked).toEqual({
      status: 200,
      body: { file: 'team/staging-deploys.md', status: 'revoked' },
    });
    expect((await readMemory(dir, 'team/staging-deploys.md')).header.status).toBe('revoked');
    const outside = await post('/api/memories/postgres-migrations.md/revoke?layer=team', {
      reason: 'not a team memory',
    });
    expect(outside.status).toBe(404);
    expect((await readMemory(dir, 'postgres-migrations.md')).header.status).toBe('active');
  });
});
