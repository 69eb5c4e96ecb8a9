import type { Command } from 'commander';
import {
  createTeamToken,
  DEFAULT_TEAM_HOST,
  DEFAULT_TEAM_LIMITS,
  DEFAULT_TEAM_PORT,
  isRepoName,
  openTeamStore,
  startTeamServer,
} from '../../team/index.js';
import { EngramError } from '../../util/errors.js';
import { markHostProcess } from '../../util/process-kind.js';
import type { CliIo } from '../io.js';

interface ServeOptions {
  port: string;
  host: string;
  db?: string;
  maxEntries: string;
  maxEntryBytes: string;
  maxBodyBytes: string;
}

export function count(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new EngramError('invalid_input', `${flag} needs a whole number (got "${value}")`);
  return n;
}

/** Resolves on SIGINT/SIGTERM: long-running commands end through their own shutdown path. */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const done = (signal: NodeJS.Signals) => {
      process.removeListener('SIGINT', done);
      process.removeListener('SIGTERM', done);
      resolve(signal);
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}

/** `engram team serve` and `engram team token create`: the server side of the team layer. */
export function registerTeamServerCommands(team: Command, io: CliIo): void {
  team
    .command('serve')
    .description('run the team server (SQLite under ENGRAM_HOME by default, or --db postgres://…)')
    .option('--port <port>', 'port to listen on (0 picks a free one)', String(DEFAULT_TEAM_PORT))
    .option('--host <host>', 'address to listen on', DEFAULT_TEAM_HOST)
    .option('--db <path|url>', 'SQLite file path or postgres:// URL')
    .option('--max-entries <n>', 'entries per repo', String(DEFAULT_TEAM_LIMITS.maxEntries))
    .option('--max-entry-bytes <n>', 'bytes per entry', String(DEFAULT_TEAM_LIMITS.maxEntryBytes))
    .option(
      '--max-body-bytes <n>',
      'bytes per request body',
      String(DEFAULT_TEAM_LIMITS.maxBodyBytes),
    )
    .action(async (opts: ServeOptions) => {
      markHostProcess(); // a server: its loop keeps turning while files are read
      const store = await openTeamStore(opts.db, io);
      const server = await startTeamServer({
        store,
        host: opts.host,
        port: count(opts.port, '--port'),
        limits: {
          maxEntries: count(opts.maxEntries, '--max-entries'),
          maxEntryBytes: count(opts.maxEntryBytes, '--max-entry-bytes'),
          maxBodyBytes: count(opts.maxBodyBytes, '--max-body-bytes'),
        },
        // Request logs go to stderr: stdout's first line is the address, for scripts to read.
        log: (entry) => io.stderr(`${JSON.stringify(entry)}\n`),
      }).catch(async (error: unknown) => {
        await store.close();
        throw new EngramError(
          'io_error',
          `cannot listen on ${opts.host}:${opts.port}: ${String(error)}`,
        );
      });
      io.stdout(`listening on ${server.url}\n`);
      const signal = await untilSignal();
      io.stderr(
        `${JSON.stringify({ time: new Date().toISOString(), event: 'shutdown', signal })}\n`,
      );
      await server.close();
    });

  team
    .command('token')
    .description('team server tokens')
    .command('create')
    .description('create a bearer token for one repo; prints only the token')
    .requiredOption('--repo <repo>', 'the repo the token opens')
    .option('--write', 'allow writes (default: read only)')
    .option('--db <path|url>', 'SQLite file path or postgres:// URL (as given to serve)')
    .action(async (opts: { repo: string; write?: boolean; db?: string }) => {
      if (!isRepoName(opts.repo))
        throw new EngramError(
          'invalid_input',
          `"${opts.repo}" is not a repo name (letters, digits, . _ - and /)`,
        );
      const store = await openTeamStore(opts.db, io);
      try {
        io.stdout(`${await createTeamToken(store, opts.repo, { write: Boolean(opts.write) })}\n`);
      } finally {
        await store.close();
      }
    });
}
