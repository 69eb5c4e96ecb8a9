import type { Pool, PoolClient } from 'pg';
import { EngramError } from '../../util/errors.js';
import { teamChecksum } from '../checksum.js';
import type { DeleteOutcome, PutOutcome, StoredEntry, TeamStore } from './types.js';

export interface PostgresStoreOptions {
  connectionString: string;
  /** Tables live in this schema (created when missing); default `engram_team`. */
  schema?: string;
  /** Pool size per server instance (default 10). */
  max?: number;
}

/** Schema steps, applied in order under one advisory lock; `<schema>.migrations` records them. */
const MIGRATIONS = [
  (s: string) => `
    CREATE TABLE ${s}.repos (name TEXT PRIMARY KEY, version BIGINT NOT NULL DEFAULT 0);
    CREATE TABLE ${s}.entries (
      repo TEXT NOT NULL REFERENCES ${s}.repos(name),
      key TEXT NOT NULL,
      content TEXT NOT NULL,
      checksum TEXT NOT NULL,
      PRIMARY KEY (repo, key));
    CREATE TABLE ${s}.tokens (
      hash TEXT PRIMARY KEY,
      repo TEXT NOT NULL,
      can_write BOOLEAN NOT NULL,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now());`,
];

/** `postgres://…?schema=x`: engram's own parameter is taken off before pg sees the URL. */
export function parsePostgresUrl(url: string): PostgresStoreOptions {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema') ?? undefined;
  parsed.searchParams.delete('schema');
  return { connectionString: parsed.toString(), ...(schema ? { schema } : {}) };
}

/**
 * PostgreSQL for several server instances on one database. Every write is one transaction that
 * locks the repo row and bumps its version with a compare-and-swap, so two instances can never
 * both commit against the same version.
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<TeamStore> {
  const schemaName = options.schema ?? 'engram_team';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schemaName)) {
    throw new EngramError('invalid_input', `schema "${schemaName}" is not a plain identifier`);
  }
  const s = `"${schemaName}"`;
  const pg = (await import('pg')).default;
  const pool: Pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
  });
  // An idle client losing its connection must not crash the server; the next query reconnects.
  pool.on('error', () => {});
  try {
    await migrate(pool, schemaName, s);
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }

  async function tx<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  async function lockedVersion(client: PoolClient, repo: string): Promise<number | undefined> {
    const r = await client.query<{ version: string }>(
      `SELECT version FROM ${s}.repos WHERE name = $1 FOR UPDATE`,
      [repo],
    );
    return r.rows[0] ? Number(r.rows[0].version) : undefined;
  }

  /** The version moves only from the one we read; a lost race shows as zero rows. */
  async function bump(client: PoolClient, repo: string, from: number): Promise<number> {
    const r = await client.query<{ version: string }>(
      `UPDATE ${s}.repos SET version = version + 1 WHERE name = $1 AND version = $2 RETURNING version`,
      [repo, from],
    );
    if (!r.rows[0]) throw new EngramError('io_error', `repo ${repo} changed during the write`);
    return Number(r.rows[0].version);
  }

  return {
    kind: 'postgres',
    async ensureRepo(repo) {
      await pool.query(`INSERT INTO ${s}.repos (name) VALUES ($1) ON CONFLICT (name) DO NOTHING`, [
        repo,
      ]);
    },
    async getEntries(repo) {
      // One REPEATABLE READ snapshot, so the version and the entries belong together.
      return readSnapshot(pool, async (client) => {
        const v = await client.query<{ version: string }>(
          `SELECT version FROM ${s}.repos WHERE name = $1`,
          [repo],
        );
        if (!v.rows[0]) return undefined;
        const e = await client.query<StoredEntry>(
          `SELECT key, content, checksum FROM ${s}.entries WHERE repo = $1 ORDER BY key`,
          [repo],
        );
        return { version: Number(v.rows[0].version), entries: e.rows };
      });
    },
    async getHashes(repo) {
      // One statement is one snapshot: the version and the checksums belong together. One round
      // trip also keeps the conflict window (hashes read → next PUT) short.
      const r = await pool.query<{ version: string; key: string | null; checksum: string | null }>(
        `SELECT r.version, e.key, e.checksum FROM ${s}.repos r
         LEFT JOIN ${s}.entries e ON e.repo = r.name WHERE r.name = $1 ORDER BY e.key`,
        [repo],
      );
      if (!r.rows[0]) return undefined;
      const checksums: Record<string, string> = {};
      for (const row of r.rows) if (row.key !== null) checksums[row.key] = row.checksum!;
      return { version: Number(r.rows[0].version), checksums };
    },
    async putEntries(repo, entries, options): Promise<PutOutcome> {
      return tx(async (client) => {
        const version = await lockedVersion(client, repo);
        if (version === undefined) return { kind: 'not_found' };
        if (options.ifVersion !== undefined && version !== options.ifVersion) {
          return { kind: 'conflict', version };
        }
        const unique = new Map(entries.map((e) => [e.key, e.content]));
        const keys = [...unique.keys()];
        const existing = await client.query<{ n: string }>(
          `SELECT COUNT(*) AS n FROM ${s}.entries WHERE repo = $1 AND key = ANY($2::text[])`,
          [repo, keys],
        );
        const total = await client.query<{ n: string }>(
          `SELECT COUNT(*) AS n FROM ${s}.entries WHERE repo = $1`,
          [repo],
        );
        const count = Number(total.rows[0]!.n) + keys.length - Number(existing.rows[0]!.n);
        if (count > options.maxEntries) {
          return { kind: 'too_many_entries', limit: options.maxEntries, count };
        }
        const contents = keys.map((k) => unique.get(k)!);
        await client.query(
          `INSERT INTO ${s}.entries (repo, key, content, checksum)
           SELECT $1, k, c, h FROM unnest($2::text[], $3::text[], $4::text[]) AS t(k, c, h)
           ON CONFLICT (repo, key) DO UPDATE SET content = EXCLUDED.content, checksum = EXCLUDED.checksum`,
          [repo, keys, contents, contents.map(teamChecksum)],
        );
        return { kind: 'ok', version: await bump(client, repo, version) };
      });
    },
    async deleteEntry(repo, key, options = {}): Promise<DeleteOutcome> {
      return tx(async (client) => {
        const version = await lockedVersion(client, repo);
        if (version === undefined) return { kind: 'not_found' };
        if (options.ifVersion !== undefined && version !== options.ifVersion) {
          return { kind: 'conflict', version };
        }
        const r = await client.query(`DELETE FROM ${s}.entries WHERE repo = $1 AND key = $2`, [
          repo,
          key,
        ]);
        if (r.rowCount === 0) return { kind: 'not_found' };
        return { kind: 'ok', version: await bump(client, repo, version) };
      });
    },
    async saveToken(tokenHash, record) {
      await pool.query(`INSERT INTO ${s}.tokens (hash, repo, can_write) VALUES ($1, $2, $3)`, [
        tokenHash,
        record.repo,
        record.write,
      ]);
    },
    async findToken(tokenHash) {
      const r = await pool.query<{ repo: string; can_write: boolean }>(
        `SELECT repo, can_write FROM ${s}.tokens WHERE hash = $1`,
        [tokenHash],
      );
      const row = r.rows[0];
      return row ? { repo: row.repo, write: row.can_write } : undefined;
    },
    async close() {
      await pool.end();
    },
  };
}

async function readSnapshot<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Instances starting together take one session-level advisory lock, keyed by the schema name,
 * so each migration step runs exactly once; the others wait, then find nothing left to do.
 */
async function migrate(pool: Pool, schemaName: string, s: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [`engram-team:${schemaName}`]);
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${s}.migrations (step INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
      );
      const done = await client.query<{ n: number }>(
        `SELECT COALESCE(MAX(step), 0)::int AS n FROM ${s}.migrations`,
      );
      for (let i = done.rows[0]!.n; i < MIGRATIONS.length; i++) {
        await client.query('BEGIN');
        try {
          await client.query(MIGRATIONS[i]!(s));
          await client.query(`INSERT INTO ${s}.migrations (step) VALUES ($1)`, [i + 1]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => {});
          throw error;
        }
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`engram-team:${schemaName}`]);
    }
  } finally {
    client.release();
  }
}
