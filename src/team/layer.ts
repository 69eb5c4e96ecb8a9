import type { EngramEnvironment } from '../config/index.js';
import { loadIndex } from '../memdir/index.js';
import { resolveTeamConfig } from './client/config.js';
import { assertPlainTeamFolder, teamDirOf } from './client/team-files.js';
import { type PullReport, TeamSync } from './client/team-sync.js';
import { teamIndexPromptSection } from './prompts.js';

/**
 * The team layer's index section for a system prompt, or undefined when the team folder has no
 * index yet. The index is capped like every other index (200 lines, 25,000 bytes, with the
 * visible warning), so the team layer spends the same budgets as the others. A team folder that is
 * a symbolic link has no section.
 */
export async function teamIndexSection(memoryDir: string): Promise<string | undefined> {
  const teamDir = teamDirOf(memoryDir);
  // A linked team folder is never followed (the scan skips it and the audit names it): its index
  // would put a file from anywhere on the machine into the prompt.
  if (
    !(await assertPlainTeamFolder(teamDir).then(
      () => true,
      () => false,
    ))
  )
    return undefined;
  const index = await loadIndex(teamDir).catch(() => undefined);
  if (!index?.exists || index.content.trim() === '') return undefined;
  return teamIndexPromptSection(index.content, index.path);
}

/** A session start waits at most this long for the team server. */
export const SESSION_START_PULL_MS = 3000;

/**
 * Pull the team layer when a session starts, if a team server is configured (environment or user
 * settings); otherwise nothing happens and nothing is sent. A slow or absent server costs at most
 * `timeoutMs`: the session goes on with the team files already on disk.
 */
export async function pullTeamAtSessionStart(
  memoryDir: string,
  environment: EngramEnvironment,
  timeoutMs = SESSION_START_PULL_MS,
): Promise<PullReport | undefined> {
  let config: ReturnType<typeof resolveTeamConfig>;
  try {
    config = resolveTeamConfig(environment);
  } catch {
    return undefined; // unreadable user settings: the settings loader reports that elsewhere
  }
  if (!config.url || !config.token || !config.repo) return undefined;
  const sync = new TeamSync({ teamDir: teamDirOf(memoryDir), config: () => config, timeoutMs });
  return sync.pull().catch(() => undefined);
}
