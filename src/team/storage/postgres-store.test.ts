import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore, parsePostgresUrl } from './postgres-store.js';
import {
  dropSchema,
  requirePostgres,
  testPostgresUrl,
  uniqueSchemaName,
} from './postgres-test-schema.js';
import { runTeamStoreContract } from './store.contract.js';

const schemas: string[] = [];
beforeAll(() => requirePostgres());
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

let current = '';
runTeamStoreContract(
  'PostgreSQL',
  async () => {
    current = uniqueSchemaName();
    schemas.push(current);
    return openPostgresStore({ connectionString: testPostgresUrl(), schema: current, max: 4 });
  },
  async () => openPostgresStore({ connectionString: testPostgresUrl(), schema: current, max: 4 }),
);

describe('PostgreSQL team store', () => {
  it('runs its migrations once when several instances start together', async () => {
    const schema = uniqueSchemaName();
    schemas.push(schema);
    const stores = await Promise.all(
      Array.from({ length: 5 }, () =>
        openPostgresStore({ connectionString: testPostgresUrl(), schema, max: 2 }),
      ),
    );
    await stores[0]!.ensureRepo('acme');
    await stores[1]!.putEntries('acme', [{ key: 'a.md', content: 'x' }], { maxEntries: 5 });
    expect((await stores[4]!.getHashes('acme'))?.version).toBe(1);
    await Promise.all(stores.map((s) => s.close()));
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: testPostgresUrl() });
    await client.connect();
    const steps = await client.query(`SELECT step FROM "${schema}".migrations`);
    await client.end();
    expect(steps.rows).toEqual([{ step: 1 }]);
  });

  it('takes its schema from the URL, leaving the rest to pg', () => {
    expect(parsePostgresUrl('postgres://u@h:5432/db?schema=s1&sslmode=disable')).toEqual({
      connectionString: 'postgres://u@h:5432/db?sslmode=disable',
      schema: 's1',
    });
  });
});
