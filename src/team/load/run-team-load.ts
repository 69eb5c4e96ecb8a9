import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PushFailure } from '../client/failure.js';
import { TeamSync } from '../client/team-sync.js';

export interface TeamLoadOptions {
  /** Server instances; client i talks to urls[i % urls.length]. */
  urls: string[];
  token: string;
  repo: string;
  clients: number;
  /** How long the clients keep pushing (each finishes the push it is in). */
  durationMs?: number;
  /**
   * Each client stops after this many pushes, whichever comes first with `durationMs`: a run of
   * a known size however fast the machine is (the test's), where `durationMs` alone gives a run
   * of a known length (the benchmark's). One of the two is required.
   */
  pushesPerClient?: number;
  /** Refresh-and-retry rounds a push gets after a 412 (default: the client's, 3). */
  maxConflictRounds?: number;
  /** Size of the shared key pool the clients overlap on. */
  keys: number;
  /** Where each client keeps its team folder. */
  baseDir: string;
  /** Pause between a client's pushes, like a person between saves (default 5–25 ms). */
  thinkMs?: readonly [number, number];
}

export interface TeamLoadResult {
  seconds: number;
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  pushes: number;
  /** Every batch a server committed (2xx), with the version it created. */
  commits: Array<{ version: number; checksums: Record<string, string> }>;
  conflicts: number;
  /** The most 412s any one push met before it went through (or gave up). */
  maxConflictsInOnePush: number;
  failures: PushFailure[];
}

/**
 * Several clients pushing overlapping keys at once, for a bounded time or number of pushes. Used by the benchmark (for
 * the figures) and by the multi-instance test (for what the commits say about consistency).
 */
export async function runTeamLoad(options: TeamLoadOptions): Promise<TeamLoadResult> {
  const latencies: number[] = [];
  const result: TeamLoadResult = {
    seconds: 0,
    requests: 0,
    requestsPerSecond: 0,
    p50Ms: 0,
    p99Ms: 0,
    pushes: 0,
    commits: [],
    conflicts: 0,
    maxConflictsInOnePush: 0,
    failures: [],
  };
  const [thinkMin, thinkMax] = options.thinkMs ?? [5, 25];
  if (options.durationMs === undefined && options.pushesPerClient === undefined)
    throw new Error('runTeamLoad needs durationMs or pushesPerClient');
  const started = performance.now();
  const deadline = started + (options.durationMs ?? Number.POSITIVE_INFINITY);
  const pushes = options.pushesPerClient ?? Number.POSITIVE_INFINITY;
  await Promise.all(
    Array.from({ length: options.clients }, async (_, i) => {
      const teamDir = join(options.baseDir, `client-${i}`, 'team');
      await mkdir(join(teamDir, 'shared'), { recursive: true });
      const config = {
        url: options.urls[i % options.urls.length]!,
        token: options.token,
        repo: options.repo,
      };
      const sync = new TeamSync({
        teamDir,
        config: () => config,
        onCommit: (c) => result.commits.push(c),
        onRequest: (r) => latencies.push(r.ms),
        ...(options.maxConflictRounds !== undefined
          ? { maxConflictRounds: options.maxConflictRounds }
          : {}),
      });
      // Clients come and go on their own schedule; none starts in the same millisecond as another.
      await new Promise((r) => setTimeout(r, Math.random() * thinkMax));
      for (let n = 0; n < pushes && performance.now() < deadline; n++) {
        const key = `shared/k${Math.floor(Math.random() * options.keys)}.md`;
        await writeFile(
          join(teamDir, key),
          `client ${i} write ${n} ${randomBytes(6).toString('hex')}\n`,
        );
        const report = await sync.push();
        result.pushes++;
        result.conflicts += report.conflicts;
        result.maxConflictsInOnePush = Math.max(result.maxConflictsInOnePush, report.conflicts);
        if (report.failure) result.failures.push(report.failure);
        if (n + 1 < pushes)
          await new Promise((r) => setTimeout(r, thinkMin + Math.random() * (thinkMax - thinkMin)));
      }
    }),
  );
  result.seconds = (performance.now() - started) / 1000;
  result.requests = latencies.length;
  result.requestsPerSecond = result.requests / result.seconds;
  latencies.sort((a, b) => a - b);
  result.p50Ms = percentile(latencies, 0.5);
  result.p99Ms = percentile(latencies, 0.99);
  return result;
}

function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** For each key, the checksum of the commit with the highest version: what the final state must hold. */
export function expectedFinalChecksums(commits: TeamLoadResult['commits']): Record<string, string> {
  const latest = new Map<string, { version: number; checksum: string }>();
  for (const c of commits) {
    for (const [key, checksum] of Object.entries(c.checksums)) {
      const seen = latest.get(key);
      if (!seen || seen.version < c.version) latest.set(key, { version: c.version, checksum });
    }
  }
  return Object.fromEntries(
    [...latest].map(([k, v]) => [k, v.checksum]).sort(([a], [b]) => (a! < b! ? -1 : 1)),
  );
}
