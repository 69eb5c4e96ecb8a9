import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EngramError, errnoCode } from '../util/errors.js';
import { checkoutRoot, type EngramEnvironment, engramHome, managedDir } from './environment.js';

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
