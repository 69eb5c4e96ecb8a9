import { teamChecksum } from '../checksum.js';
import type { TeamClientConfig } from './config.js';
import { failureOf } from './failure.js';
import type { TeamHttpClient } from './http-client.js';
import type { PullReport } from './reports.js';
import { loadSyncState, saveSyncState } from './sync-state.js';
import { readLocalTeamFiles, writeTeamFile } from './team-files.js';

/**
 * One pull: the server wins per key, files are written atomically through the confinement, files
 * only present locally stay, and a key that fails validation is refused and reported, never
 * written. The server's checksums and version become the sync state.
 */
export async function pullTeam(
  http: TeamHttpClient,
  teamDir: string,
  config: Required<TeamClientConfig>,
): Promise<PullReport> {
  const res = await http.getAll();
  if (!res.ok) return { written: [], unchanged: 0, refused: [], failure: failureOf(res) };
  const local = await readLocalTeamFiles(teamDir, Number.POSITIVE_INFINITY);
  const report: PullReport = { written: [], unchanged: 0, refused: [], version: res.version };
  const checksums: Record<string, string> = {};
  const entries = Object.entries(res.body.entries ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  for (const [key, content] of entries) {
    if (typeof content !== 'string') {
      report.refused.push({ key, reason: 'content is not text' });
      continue;
    }
    const sum = teamChecksum(content);
    if (local.contents.get(key) === content) {
      checksums[key] = sum;
      report.unchanged++;
      continue;
    }
    const written = await writeTeamFile(teamDir, key, content);
    if (!written.ok) {
      report.refused.push({ key, reason: written.reason });
      continue;
    }
    checksums[key] = sum;
    report.written.push(key);
  }
  const { unknown: _unknown, ...previous } =
    (await loadSyncState(teamDir, config.url, config.repo)) ?? {};
  await saveSyncState(teamDir, {
    ...previous,
    url: config.url,
    repo: config.repo,
    version: res.version,
    checksums,
    limits: res.limits,
    lastPull: new Date().toISOString(),
  });
  return report;
}
