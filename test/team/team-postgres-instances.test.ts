import { randomBytes } from 'node:crypto';
import { expectedFinalChecksums, runTeamLoad } from 'engram/team';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, requireBuild, runCliProcess, tempRoot } from '../support/cli-process.js';
import { pgQuery, pgUrlWithSchema, type ServeProcess, startServeProcess } from './support.js';

const root = await tempRoot('engram-team-pg-');
const schema = `engram_it_${process.pid}_${randomBytes(3).toString('hex')}`;
const db = pgUrlWithSchema(schema);
let servers: ServeProcess[] = [];
let token: string;

beforeAll(async () => {
  requireBuild();
  await pgQuery('SELECT 1'); // fails loudly when PostgreSQL is down: nothing here is skipped
  const home = await root.fresh('servers');
  // Both instances start at once on a fresh schema: the migration must run exactly once.
  servers = await Promise.all(
    [0, 1].map(() => startServeProcess(['--port', '0', '--db', db], cliEnv(home), home)),
  );
  const created = await runCliProcess(
    ['team', 'token', 'create', '--repo', 'acme', '--write', '--db', db],
    cliEnv(home),
    home,
  );
  expect(created.code, created.stderr).toBe(0);
  token = created.stdout.trim();
}, 300_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await pgQuery(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await root.cleanup();
});

describe('two team server processes on one PostgreSQL', () => {
  it('ran the schema migration once although both started together', async () => {
    expect(await pgQuery(`SELECT step FROM "${schema}".migrations`)).toEqual([{ step: 1 }]);
  });

  it('8 clients pushing overlapping keys through both: every 2xx write is in the final state, every 412 resolved by refresh and retry', async () => {
    const clients = 8;
    const pushesPerClient = 4;
    const result = await runTeamLoad({
      urls: servers.map((s) => s.url),
      token,
      repo: 'acme',
      clients,
      // A run of a known size, not a known length: a slow machine makes it longer, not smaller.
      pushesPerClient,
      keys: 6,
      // People between saves, not a tight loop: the repo version is one compare-and-swap, so
      // writers hammering it back to back would contend without end on any server.
      thinkMs: [1000, 3000],
      // The chance that a retry loses again grows with the time one round takes, that is with the
      // machine's load (docs/team.md); rounds enough that no push gives up on a slow machine
      // either (the backoff grows sixfold per round), so what is asserted is consistency.
      maxConflictRounds: 10,
      baseDir: await root.fresh('clients'),
    });
    console.log(
      `load: ${result.pushes} pushes, ${result.commits.length} commits, ${result.conflicts} conflicts (max ${result.maxConflictsInOnePush} in one push), ${result.requestsPerSecond.toFixed(1)} req/s`,
    );
    expect(result.failures).toEqual([]);
    expect(result.pushes).toBe(clients * pushesPerClient);
    // Each push wrote one key: one batch, one commit, whatever it met on the way.
    expect(result.commits.length).toBe(result.pushes);
    // Compare-and-swap: no two commits, on either instance, created the same version.
    const versions = result.commits.map((c) => c.version);
    expect(new Set(versions).size).toBe(versions.length);

    const res = await fetch(`${servers[0]!.url}/v1/repos/acme/memories?view=hashes`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const final = (await res.json()) as { version: number; checksums: Record<string, string> };
    expect(final.version).toBe(result.commits.length);
    expect(final.checksums).toEqual(expectedFinalChecksums(result.commits));
    expect(result.conflicts).toBeGreaterThan(0); // the keys really did overlap
  }, 600_000);
});
