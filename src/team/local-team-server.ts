import type { TeamLimits } from './limits.js';
import type { TeamRequestLog } from './server/app.js';
import { createTeamToken } from './server/auth.js';
import { type RunningTeamServer, startTeamServer } from './server/serve.js';
import { openSqliteStore } from './storage/sqlite-store.js';
import type { TeamStore } from './storage/types.js';

export interface LocalTeamServer extends RunningTeamServer {
  store: TeamStore;
  logs: TeamRequestLog[];
  /** A token for `repo` (write right unless `write: false`). */
  token(repo: string, options?: { write?: boolean }): Promise<string>;
}

/**
 * A real team server on loopback over an in-memory SQLite store: for tests and demos of the
 * client (the same code path as `engram team serve`, only the storage is not on disk).
 */
export async function startLocalTeamServer(
  options: { limits?: Partial<TeamLimits>; store?: TeamStore } = {},
): Promise<LocalTeamServer> {
  const store = options.store ?? openSqliteStore(':memory:');
  const logs: TeamRequestLog[] = [];
  const server = await startTeamServer({
    store,
    port: 0,
    ...(options.limits ? { limits: options.limits } : {}),
    log: (entry) => logs.push(entry),
  });
  return {
    ...server,
    store,
    logs,
    token: (repo, o = {}) => createTeamToken(store, repo, { write: o.write ?? true }),
  };
}
