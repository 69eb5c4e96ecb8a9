import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ensureOwnFolderSync } from '../confine/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { projectProbe } from './project-probe.js';

/** Written by a whole-directory `engram verify`: the quick project state it checked against. */
export const CLAIM_REFRESH_MARKER = '.engram/claim-refresh.json';

function markerPath(memoryDir: string): string {
  return join(memoryDir, CLAIM_REFRESH_MARKER);
}

/**
 * Whether a whole-directory refresh of the claim cache is due: the project changed (HEAD or the
 * git index) since the last one. Reads a few files, starts no process: the Stop hook asks this at
 * every turn's end and starts a detached refresh only when it says yes, so the next turn finds
 * every memory checked against the tree the agent just changed.
 */
export async function claimRefreshDue(projectDir: string, memoryDir: string): Promise<boolean> {
  const quick = quickProjectState(projectDir, memoryDir);
  if (quick === undefined) return false; // nothing readable to check against
  const marker = await readFile(markerPath(memoryDir), 'utf8').then(
    (t) => (JSON.parse(t) as { quickState?: unknown }).quickState,
    () => undefined,
  );
  return marker !== quick;
}

/** The project's quick state (see ProjectProbe.quickState), or undefined when unreadable. */
export function quickProjectState(projectDir: string, memoryDir: string): string | undefined {
  try {
    return projectProbe(projectDir, { memoryDir }).quickState();
  } catch {
    return undefined;
  }
}

/** Record that the whole directory was checked against the project in `quickState`. */
export async function markClaimRefresh(
  memoryDir: string,
  quickState: string,
  nowMs = Date.now(),
): Promise<void> {
  const path = markerPath(memoryDir);
  ensureOwnFolderSync(dirname(path)); // never written through a linked `.engram`
  const body = { quickState, at: new Date(nowMs).toISOString() };
  await writeFileAtomic(path, `${JSON.stringify(body)}\n`, { mode: 0o600 });
}
