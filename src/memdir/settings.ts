import { readFileSync } from 'node:fs';
import { homedir as osHomedir } from 'node:os';
import { join, resolve } from 'node:path';
import { EngramError, errnoCode } from '../util/errors.js';
import { findGitLocation } from './git-root.js';

/** Where engram runs: everything that would otherwise be read from globals, passed in. */
export interface EngramEnvironment {
  cwd: string;
  env: Record<string, string | undefined>;
  homedir: string;
}

export function defaultEnvironment(): EngramEnvironment {
  return { cwd: process.cwd(), env: process.env, homedir: osHomedir() };
}

/** `$ENGRAM_HOME`, default `~/.engram`. */
export function engramHome(environment: EngramEnvironment): string {
  const fromEnv = environment.env.ENGRAM_HOME?.trim();
  return fromEnv ? resolve(environment.cwd, fromEnv) : join(environment.homedir, '.engram');
}

/** Managed (admin) files live here: `settings.json`, `AGENTS.md`. `ENGRAM_MANAGED_DIR` moves it for tests and packaging. */
export function managedDir(environment: EngramEnvironment): string {
  return environment.env.ENGRAM_MANAGED_DIR?.trim() || '/etc/engram';
}

/** The folder a project is keyed by: the git root shared by worktrees, else the working directory. */
export function projectRoot(environment: EngramEnvironment): string {
  const git = findGitLocation(environment.cwd);
  return git ? git.commonRoot : resolve(environment.cwd);
}

/** The checkout containing cwd (a worktree's own folder), where per-checkout settings live. */
export function checkoutRoot(environment: EngramEnvironment): string {
  return findGitLocation(environment.cwd)?.topLevel ?? resolve(environment.cwd);
}

export type SettingsSource = 'policy' | 'local' | 'user' | 'project';

export interface SettingsFile {
  source: SettingsSource;
  path: string;
  exists: boolean;
  data: Record<string, unknown>;
}

export function settingsPaths(environment: EngramEnvironment): Record<SettingsSource, string> {
  const checkout = checkoutRoot(environment);
  return {
    policy: join(managedDir(environment), 'settings.json'),
    local: join(checkout, '.engram', 'settings.local.json'),
    user: join(engramHome(environment), 'settings.json'),
    project: join(checkout, '.engram', 'settings.json'),
  };
}

/** Read one settings file; a missing file is empty, a malformed one is a clear error. */
export function readSettingsFile(source: SettingsSource, path: string): SettingsFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return { source, path, exists: false, data: {} };
    throw new EngramError(
      'settings_error',
      `Cannot read ${source} settings ${path}: ${code ?? error}`,
      {
        cause: error,
      },
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new EngramError(
      'settings_error',
      `${source} settings ${path} is not valid JSON: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) {
    throw new EngramError('settings_error', `${source} settings ${path} must hold a JSON object`);
  }
  return { source, path, exists: true, data: data as Record<string, unknown> };
}

/** All settings files, lowest priority first: project, user, local, policy. */
export function loadSettings(environment: EngramEnvironment): SettingsFile[] {
  const paths = settingsPaths(environment);
  return (['project', 'user', 'local', 'policy'] as const).map((s) =>
    readSettingsFile(s, paths[s]),
  );
}

/**
 * A merged view of settings for keys any source may set (later sources win).
 * Keys that only trusted sources may set are resolved by their own functions.
 */
export function mergedSettings(files: SettingsFile[]): Record<string, unknown> {
  return Object.assign({}, ...files.map((f) => f.data));
}
