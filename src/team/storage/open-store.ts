import { join, resolve } from 'node:path';
import { type EngramEnvironment, engramHome } from '../../config/index.js';
import { openPostgresStore, parsePostgresUrl } from './postgres-store.js';
import { openSqliteStore } from './sqlite-store.js';
import type { TeamStore } from './types.js';

/** The SQLite file `engram team serve` uses when no `--db` is given. */
export function defaultTeamDbPath(environment: EngramEnvironment): string {
  return join(engramHome(environment), 'team', 'team.db');
}

export function isPostgresUrl(db: string): boolean {
  return /^postgres(ql)?:\/\//i.test(db);
}

/** `--db`: a `postgres://` URL, a SQLite file path (relative to cwd), or nothing for the default. */
export async function openTeamStore(
  db: string | undefined,
  environment: EngramEnvironment,
): Promise<TeamStore> {
  if (db !== undefined && isPostgresUrl(db)) return openPostgresStore(parsePostgresUrl(db));
  const path = db === undefined ? defaultTeamDbPath(environment) : db;
  return openSqliteStore(path === ':memory:' ? path : resolve(environment.cwd, path));
}
