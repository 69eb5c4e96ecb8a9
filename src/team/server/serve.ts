import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { TeamLimits } from '../limits.js';
import type { TeamStore } from '../storage/types.js';
import { createTeamApp, type TeamRequestLog } from './app.js';

export interface TeamServerOptions {
  store: TeamStore;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  limits?: Partial<TeamLimits>;
  log?: (entry: TeamRequestLog) => void;
}

export interface RunningTeamServer {
  url: string;
  host: string;
  port: number;
  /** Stop accepting, let in-flight requests finish, then close the store. */
  close(): Promise<void>;
}

export const DEFAULT_TEAM_HOST = '127.0.0.1';
export const DEFAULT_TEAM_PORT = 7077;
/** In-flight requests get this long to finish at shutdown before connections are cut. */
const SHUTDOWN_GRACE_MS = 10_000;

export async function startTeamServer(options: TeamServerOptions): Promise<RunningTeamServer> {
  const app = createTeamApp({
    store: options.store,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  const host = options.host ?? DEFAULT_TEAM_HOST;
  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve(
      { fetch: app.fetch, hostname: host, port: options.port ?? DEFAULT_TEAM_PORT },
      () => resolve(s as Server),
    ) as Server;
    s.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${port}`,
    host,
    port,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
          force.unref();
          server.close(() => {
            clearTimeout(force);
            resolve();
          });
          server.closeIdleConnections();
        });
        // Only now: every transaction a request started has committed or rolled back.
        await options.store.close();
      })();
      return closing;
    },
  };
}
