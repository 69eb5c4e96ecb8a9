import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../util/atomic-write.js';
import { errnoCode } from '../../util/errors.js';
import type { TeamLimits } from '../limits.js';
import type { PushFailure } from './failure.js';
import { assertPlainTeamFolder } from './team-files.js';

/** Kept in the team folder as a dot file: scans, pushes and the watcher never treat it as a memory. */
export const SYNC_STATE_FILE = '.engram-sync.json';

export interface SyncState {
  url: string;
  repo: string;
  /** The last server version seen (the ETag). */
  version: number;
  /** The last known server checksum of every key. */
  checksums: Record<string, string>;
  lastPull?: string;
  /** The limits the server announced last. */
  limits?: Partial<TeamLimits>;
  /** Written only to record a failed push: nothing is known about the server yet. */
  unknown?: boolean;
  lastPush?: {
    at: string;
    ok: boolean;
    pushed: number;
    failure?: PushFailure;
    permanent?: boolean;
  };
}

/** The state for this server and repo; state about another one is ignored, not trusted. */
export async function loadSyncState(
  teamDir: string,
  url: string,
  repo: string,
): Promise<SyncState | undefined> {
  let text: string;
  try {
    text = await readFile(join(teamDir, SYNC_STATE_FILE), 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return undefined;
    throw error;
  }
  try {
    const state = JSON.parse(text) as SyncState;
    if (state.url !== url || state.repo !== repo || typeof state.version !== 'number')
      return undefined;
    if (typeof state.checksums !== 'object' || state.checksums === null) return undefined;
    return state;
  } catch {
    return undefined; // a torn or foreign file: start over from the server's hashes
  }
}

export async function saveSyncState(teamDir: string, state: SyncState): Promise<void> {
  await assertPlainTeamFolder(teamDir);
  await writeFileAtomic(join(teamDir, SYNC_STATE_FILE), `${JSON.stringify(state, null, 2)}\n`);
}

/** Read without checking server/repo (for `status`). */
export async function readAnySyncState(teamDir: string): Promise<SyncState | undefined> {
  try {
    return JSON.parse(await readFile(join(teamDir, SYNC_STATE_FILE), 'utf8')) as SyncState;
  } catch {
    return undefined;
  }
}
