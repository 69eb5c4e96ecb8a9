import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { teamChecksum } from '../checksum.js';
import type {
  DeleteOutcome,
  PutOutcome,
  RepoEntries,
  RepoHashes,
  StoredEntry,
  TeamStore,
  TokenRecord,
} from './types.js';

const require = createRequire(import.meta.url);

/** Schema steps, applied in order; `PRAGMA user_version` records how many ran. */
const MIGRATIONS = [
  `CREATE TABLE repos (name TEXT PRIMARY KEY, version INTEGER NOT NULL DEFAULT 0);
   CREATE TABLE entries (
     repo TEXT NOT NULL REFERENCES repos(name),
     key TEXT NOT NULL,
     content TEXT NOT NULL,
     checksum TEXT NOT NULL,
     PRIMARY KEY (repo, key));
   CREATE TABLE tokens (
     hash TEXT PRIMARY KEY,
     repo TEXT NOT NULL,
     can_write INTEGER NOT NULL,
     created_at TEXT NOT NULL);`,
];

/**
 * The embedded default: one SQLite file (WAL, so `token create` can run beside a live server).
 * better-sqlite3 is synchronous; each call is one short transaction.
 */
export function openSqliteStore(path: string): TeamStore {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const Database = require('better-sqlite3') as typeof BetterSqlite3;
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 10000');
  db.pragma('foreign_keys = ON');
  migrate(db);

  const versionOf = db.prepare<[string], { version: number }>(
    'SELECT version FROM repos WHERE name = ?',
  );
  const entriesOf = db.prepare<[string], StoredEntry>(
    'SELECT key, content, checksum FROM entries WHERE repo = ? ORDER BY key',
  );
  const hashesOf = db.prepare<[string], { key: string; checksum: string }>(
    'SELECT key, checksum FROM entries WHERE repo = ? ORDER BY key',
  );
  const countOf = db.prepare<[string], { n: number }>(
    'SELECT COUNT(*) AS n FROM entries WHERE repo = ?',
  );
  const hasKey = db.prepare<[string, string], { one: number }>(
    'SELECT 1 AS one FROM entries WHERE repo = ? AND key = ?',
  );
  const upsert = db.prepare(
    `INSERT INTO entries (repo, key, content, checksum) VALUES (?, ?, ?, ?)
     ON CONFLICT (repo, key) DO UPDATE SET content = excluded.content, checksum = excluded.checksum`,
  );
  const bump = db.prepare('UPDATE repos SET version = version + 1 WHERE name = ?');
  const removeKey = db.prepare('DELETE FROM entries WHERE repo = ? AND key = ?');

  const put = db.transaction(
    (
      repo: string,
      entries: ReadonlyArray<{ key: string; content: string }>,
      options: { ifVersion?: number; maxEntries: number },
    ): PutOutcome => {
      const row = versionOf.get(repo);
      if (!row) return { kind: 'not_found' };
      if (options.ifVersion !== undefined && row.version !== options.ifVersion) {
        return { kind: 'conflict', version: row.version };
      }
      const unique = new Map(entries.map((e) => [e.key, e.content]));
      let added = 0;
      for (const key of unique.keys()) if (!hasKey.get(repo, key)) added++;
      const count = countOf.get(repo)!.n + added;
      if (count > options.maxEntries) {
        return { kind: 'too_many_entries', limit: options.maxEntries, count };
      }
      for (const [key, content] of unique) upsert.run(repo, key, content, teamChecksum(content));
      bump.run(repo);
      return { kind: 'ok', version: row.version + 1 };
    },
  );

  const del = db.transaction(
    (repo: string, key: string, ifVersion: number | undefined): DeleteOutcome => {
      const row = versionOf.get(repo);
      if (!row) return { kind: 'not_found' };
      if (ifVersion !== undefined && row.version !== ifVersion) {
        return { kind: 'conflict', version: row.version };
      }
      if (removeKey.run(repo, key).changes === 0) return { kind: 'not_found' };
      bump.run(repo);
      return { kind: 'ok', version: row.version + 1 };
    },
  );

  return {
    kind: 'sqlite',
    async ensureRepo(repo) {
      db.prepare('INSERT INTO repos (name) VALUES (?) ON CONFLICT (name) DO NOTHING').run(repo);
    },
    async getEntries(repo): Promise<RepoEntries | undefined> {
      const read = db.transaction(() => {
        const row = versionOf.get(repo);
        return row ? { version: row.version, entries: entriesOf.all(repo) } : undefined;
      });
      return read();
    },
    async getHashes(repo): Promise<RepoHashes | undefined> {
      const read = db.transaction(() => {
        const row = versionOf.get(repo);
        if (!row) return undefined;
        const checksums: Record<string, string> = {};
        for (const r of hashesOf.all(repo)) checksums[r.key] = r.checksum;
        return { version: row.version, checksums };
      });
      return read();
    },
    async putEntries(repo, entries, options) {
      return put.immediate(repo, entries, options);
    },
    async deleteEntry(repo, key, options = {}) {
      return del.immediate(repo, key, options.ifVersion);
    },
    async saveToken(tokenHash, record: TokenRecord) {
      db.prepare('INSERT INTO tokens (hash, repo, can_write, created_at) VALUES (?, ?, ?, ?)').run(
        tokenHash,
        record.repo,
        record.write ? 1 : 0,
        new Date().toISOString(),
      );
    },
    async findToken(tokenHash) {
      const row = db
        .prepare<[string], { repo: string; can_write: number }>(
          'SELECT repo, can_write FROM tokens WHERE hash = ?',
        )
        .get(tokenHash);
      return row ? { repo: row.repo, write: row.can_write === 1 } : undefined;
    },
    async close() {
      db.close();
    },
  };
}

/** Each step runs inside one immediate transaction, so two processes opening a fresh file agree. */
function migrate(db: BetterSqlite3.Database): void {
  const step = db.transaction(() => {
    const done = db.pragma('user_version', { simple: true }) as number;
    for (let i = done; i < MIGRATIONS.length; i++) db.exec(MIGRATIONS[i]!);
    db.pragma(`user_version = ${MIGRATIONS.length}`);
  });
  step.immediate();
}
