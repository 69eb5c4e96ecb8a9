import { readdir } from 'node:fs/promises';
import { redactUrlCredentials } from '../../confine/policy.js';
import {
  readAnySyncState,
  readLocalTeamFiles,
  type TeamClientConfig,
  teamChecksum,
} from '../../team/index.js';

export interface TeamStatus {
  teamDir: string;
  url: string | null;
  repo: string | null;
  hasToken: boolean;
  localFiles: number;
  /** Local keys whose checksum differs from the last known server checksum. */
  pending: string[];
  serverVersion: number | null;
  lastPull: string | null;
  lastPush: unknown;
  /** Why pushes are off, when the last push failed permanently. */
  pushesStopped: string | null;
  text: string;
}

/** What `engram team status` shows, from configuration and the sync state on disk (no network). */
export async function teamStatus(teamDir: string, config: TeamClientConfig): Promise<TeamStatus> {
  const exists = await readdir(teamDir).then(
    () => true,
    () => false,
  );
  const local = exists
    ? await readLocalTeamFiles(teamDir, Number.POSITIVE_INFINITY)
    : { contents: new Map<string, string>(), skipped: [] };
  const state = await readAnySyncState(teamDir);
  const sameServer = state && state.url === config.url && state.repo === config.repo;
  const known = sameServer ? state.checksums : {};
  const pending = [...local.contents]
    .filter(([key, content]) => known[key] !== teamChecksum(content))
    .map(([key]) => key)
    .sort();
  const last = sameServer ? state.lastPush : undefined;
  const missing =
    !config.url || !config.token
      ? 'no credentials (ENGRAM_TEAM_URL/ENGRAM_TEAM_TOKEN or `engram team login`)'
      : !config.repo
        ? 'no repo (ENGRAM_TEAM_REPO)'
        : null;
  const pushesStopped =
    missing ?? (last?.permanent ? (last.failure?.message ?? 'permanent failure') : null);
  const lines = [
    `team folder: ${teamDir}`,
    `server: ${config.url ? redactUrlCredentials(config.url) : '(not set)'}  repo: ${config.repo ?? '(not set)'}  token: ${config.token ? 'set' : 'not set'}`,
    `local files: ${local.contents.size}, pending push: ${pending.length}`,
    `server version seen: ${sameServer ? state.version : 'none'}; last pull: ${sameServer ? (state.lastPull ?? 'never') : 'never'}`,
    `last push: ${last ? `${last.at} ${last.ok ? `ok (${last.pushed} keys)` : `failed: ${last.failure?.message}`}` : 'never'}`,
    ...(pushesStopped ? [`pushes stopped: ${pushesStopped}`] : []),
  ];
  return {
    teamDir,
    url: config.url ? redactUrlCredentials(config.url) : null,
    repo: config.repo ?? null,
    hasToken: Boolean(config.token),
    localFiles: local.contents.size,
    pending,
    serverVersion: sameServer ? state.version : null,
    lastPull: sameServer ? (state.lastPull ?? null) : null,
    lastPush: last ?? null,
    pushesStopped,
    text: `${lines.join('\n')}\n`,
  };
}
