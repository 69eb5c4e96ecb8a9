import { chmod, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type EngramEnvironment, readSettingsFile, settingsPaths } from '../../config/index.js';
import { redactUrlCredentials } from '../../confine/policy.js';
import { writeFileAtomic } from '../../util/atomic-write.js';
import { EngramError } from '../../util/errors.js';

/** Where the team server is, who we are, which repo: each may be missing. */
export interface TeamClientConfig {
  url?: string;
  token?: string;
  repo?: string;
}

/** The user-settings key `engram team login` writes. */
export const TEAM_SETTINGS_KEY = 'team';

/**
 * `ENGRAM_TEAM_URL`, `ENGRAM_TEAM_TOKEN`, `ENGRAM_TEAM_REPO` over the `team` object of the user
 * settings. Only user settings count: a repository's own settings could otherwise send the team's
 * memories (and the token) to a server of its choosing.
 */
export function resolveTeamConfig(environment: EngramEnvironment): TeamClientConfig {
  const user = readSettingsFile('user', settingsPaths(environment).user).data[TEAM_SETTINGS_KEY];
  const saved = (typeof user === 'object' && user !== null ? user : {}) as Record<string, unknown>;
  const pick = (envName: string, key: string): string | undefined => {
    const fromEnv = environment.env[envName]?.trim();
    if (fromEnv) return fromEnv;
    const value = saved[key];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  };
  const url = pick('ENGRAM_TEAM_URL', 'url');
  const token = pick('ENGRAM_TEAM_TOKEN', 'token');
  const repo = pick('ENGRAM_TEAM_REPO', 'repo');
  return {
    ...(url ? { url: url.replace(/\/+$/, '') } : {}),
    ...(token ? { token } : {}),
    ...(repo ? { repo } : {}),
  };
}

/** Same credentials? Used to notice "new credentials", the recovery from auth failures. */
export function sameTeamConfig(a: TeamClientConfig, b: TeamClientConfig): boolean {
  return a.url === b.url && a.token === b.token && a.repo === b.repo;
}

/** Store the login in user settings (mode 0600: it holds a token), keeping every other key. */
export async function saveTeamLogin(
  environment: EngramEnvironment,
  login: Required<TeamClientConfig>,
): Promise<string> {
  let parsed: URL;
  try {
    parsed = new URL(login.url);
  } catch {
    throw new EngramError(
      'invalid_input',
      `--url needs an http(s) URL (got "${redactUrlCredentials(login.url)}")`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new EngramError(
      'invalid_input',
      `--url needs an http(s) URL (got "${redactUrlCredentials(login.url)}")`,
    );
  }
  const path = settingsPaths(environment).user;
  const current = readSettingsFile('user', path).data;
  const next = {
    ...current,
    [TEAM_SETTINGS_KEY]: {
      url: login.url.replace(/\/+$/, ''),
      token: login.token,
      repo: login.repo,
    },
  };
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  // A settings file that existed keeps its mode on rewrite; now it holds a token.
  await chmod(path, 0o600);
  return path;
}
