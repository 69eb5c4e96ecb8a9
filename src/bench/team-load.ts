/**
 * `npm run bench:team`: two `engram team serve` processes on one PostgreSQL schema (or one SQLite
 * file with `--sqlite`), 8 clients pushing overlapping keys for a bounded time. Prints requests/s,
 * p50/p99 latency, commits and conflicts, and checks the final state against the commits. It
 * asserts nothing about time: timing on a shared machine is a figure, not a test.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { expectedFinalChecksums, runTeamLoad } from '../team/load/run-team-load.js';

const CLI = resolve(import.meta.dirname, '..', 'cli', 'main.js');
const args = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const useSqlite = args.includes('--sqlite');
const seconds = flag('--seconds', 10);
const clients = flag('--clients', 8);
const keys = flag('--keys', 12);

const home = mkdtempSync(join(tmpdir(), 'engram-bench-team-'));
const env = { ...process.env, HOME: home, ENGRAM_HOME: join(home, '.engram') };
const schema = `engram_bench_${randomBytes(4).toString('hex')}`;
const pgUrl =
  process.env.ENGRAM_BENCH_PG_URL ??
  process.env.ENGRAM_TEST_PG_URL ??
  'postgres://postgres@127.0.0.1:5432/test';
const db = useSqlite
  ? join(home, 'team.db')
  : (() => {
      const u = new URL(pgUrl);
      u.searchParams.set('schema', schema);
      return u.toString();
    })();

function serve(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [CLI, 'team', 'serve', '--port', '0', '--db', db], {
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return new Promise((ok, fail) => {
    createInterface({ input: child.stdout! }).once('line', (line) =>
      ok({ url: line.replace(/^listening on /, ''), child }),
    );
    child.once('exit', (code) => fail(new Error(`team serve exited with ${code}`)));
  });
}

const servers = await Promise.all([serve(), serve()]);
try {
  const token = execFileSync(
    process.execPath,
    [CLI, 'team', 'token', 'create', '--repo', 'bench', '--write', '--db', db],
    { env },
  )
    .toString()
    .trim();
  const result = await runTeamLoad({
    urls: servers.map((s) => s.url),
    token,
    repo: 'bench',
    clients,
    durationMs: seconds * 1000,
    keys,
    baseDir: join(home, 'clients'),
    thinkMs: [0, 10],
  });
  const final = (await (
    await fetch(`${servers[0]!.url}/v1/repos/bench/memories?view=hashes`, {
      headers: { authorization: `Bearer ${token}` },
    })
  ).json()) as { version: number; checksums: Record<string, string> };
  const consistent =
    final.version === result.commits.length &&
    JSON.stringify(final.checksums) === JSON.stringify(expectedFinalChecksums(result.commits));
  const storage = useSqlite
    ? 'SQLite (one file, two processes)'
    : 'PostgreSQL (one schema, two processes)';
  console.log(
    `team server load: ${storage}, ${clients} clients, ${keys} overlapping keys, ${result.seconds.toFixed(1)} s`,
  );
  console.log(
    '| requests/s | p50 | p99 | pushes | commits | 412s | pushes that gave up | final state = last commit per key |',
  );
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
  console.log(
    `| ${result.requestsPerSecond.toFixed(1)} | ${result.p50Ms.toFixed(1)} ms | ${result.p99Ms.toFixed(1)} ms | ${result.pushes} | ${result.commits.length} | ${result.conflicts} | ${result.failures.length} | ${consistent ? 'yes' : 'NO'} |`,
  );
  if (!consistent) process.exitCode = 1;
} finally {
  for (const s of servers) s.child.kill('SIGTERM');
  await Promise.all(
    servers.map(
      (s) => new Promise((r) => (s.child.exitCode === null ? s.child.once('exit', r) : r(null))),
    ),
  );
  if (!useSqlite) {
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
  rmSync(home, { recursive: true, force: true });
}
