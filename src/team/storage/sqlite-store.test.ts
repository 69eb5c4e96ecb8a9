import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from './sqlite-store.js';
import { runTeamStoreContract } from './store.contract.js';

let dir: string;
let n = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engram-team-sqlite-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

runTeamStoreContract(
  'SQLite',
  async () => openSqliteStore(join(dir, `t${++n}`, 'team.db')),
  async () => openSqliteStore(join(dir, `t${n}`, 'team.db')),
);

describe('SQLite team store', () => {
  it('keeps its data in the file across reopen', async () => {
    const path = join(dir, 'reopen.db');
    const first = openSqliteStore(path);
    await first.ensureRepo('acme');
    await first.putEntries('acme', [{ key: 'a.md', content: 'kept' }], { maxEntries: 5 });
    await first.close();
    const second = openSqliteStore(path);
    expect((await second.getEntries('acme'))?.entries.map((e) => e.content)).toEqual(['kept']);
    await second.close();
  });
});
