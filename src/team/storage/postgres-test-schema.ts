import { randomBytes } from 'node:crypto';

/**
 * The database the PostgreSQL tests use: `ENGRAM_TEST_PG_URL`, else the local trust-auth server.
 * Tests never skip when it is down: they fail and say how to start it.
 */
export function testPostgresUrl(): string {
  return process.env.ENGRAM_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
}

/** A schema name no other run uses. */
export function uniqueSchemaName(prefix = 'engram_test'): string {
  return `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

/** Connect once to prove the server is up, with an actionable message when it is not. */
export async function requirePostgres(url = testPostgresUrl()): Promise<void> {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    throw new Error(
      `PostgreSQL is not reachable at ${url} (${String(error)}); start it (see .ci/run) or set ENGRAM_TEST_PG_URL`,
    );
  } finally {
    await client.end().catch(() => {});
  }
}

export async function dropSchema(schema: string, url = testPostgresUrl()): Promise<void> {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** The URL a server process takes with `--db`, naming its schema. */
export function postgresUrlWithSchema(schema: string, url = testPostgresUrl()): string {
  const parsed = new URL(url);
  parsed.searchParams.set('schema', schema);
  return parsed.toString();
}
