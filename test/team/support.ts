// The team server as a real child process (`engram team serve`), for the black-box team tests.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { CLI } from '../support/cli-process.js';

export interface ServeProcess {
  url: string;
  child: ChildProcess;
  firstLine: string;
  stderr: () => string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

export async function startServeProcess(
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<ServeProcess> {
  const child = spawn(process.execPath, [CLI, 'team', 'serve', ...args], {
    env,
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d) => {
    err += d;
  });
  const firstLine = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve(line));
    child.once('exit', (code) =>
      reject(new Error(`team serve exited (${code}) before listening: ${err}`)),
    );
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  return {
    url: firstLine.replace(/^listening on /, ''),
    child,
    firstLine,
    stderr: () => err,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** The PostgreSQL the tests use (`ENGRAM_TEST_PG_URL`, else local trust auth); never skipped. */
export const PG_URL = process.env.ENGRAM_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export async function pgQuery(sql: string): Promise<unknown[]> {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `PostgreSQL is not reachable at ${PG_URL} (${String(error)}): start it (see .ci/run)`,
    );
  }
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

export function pgUrlWithSchema(schema: string): string {
  const url = new URL(PG_URL);
  url.searchParams.set('schema', schema);
  return url.toString();
}
