import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EngramError, errnoCode } from '../util/errors.js';
import { isMissingPath } from '../util/missing-path.js';
import { checkoutRoot, type EngramEnvironment, engramHome, managedDir } from './environment.js';
import { localSettingsDistrust, trustedData } from './trust.js';

export type SettingsSource = 'policy' | 'local' | 'user' | 'project';

export interface SettingsFile {
  source: SettingsSource;
  path: string;
  exists: boolean;
  data: Record<string, unknown>;
  /** Set on a local file that git tracks or does not ignore: why its trusted-only keys are ignored. */
  untrusted?: string;
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
  // Most of the four files do not exist, and every prompt reads them: asked without a thrown
  // ENOENT, whose stack capture cost more than the read of a file that does exist.
  if (isMissingPath(path)) return { source, path, exists: false, data: {} };
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
  return (['project', 'user', 'local', 'policy'] as const).map((s) => {
    const file = readSettingsFile(s, paths[s]);
    if (s !== 'local' || !file.exists) return file;
    const untrusted = localSettingsDistrust(file.path);
    return untrusted === undefined ? file : { ...file, untrusted };
  });
}

/**
 * A merged view of settings (later sources win). Keys that change where data goes or what runs
 * are taken from trusted sources only (see trust.ts), so every caller gets the rule for free.
 */
export function mergedSettings(files: SettingsFile[]): Record<string, unknown> {
  return Object.assign({}, ...files.map(trustedData));
}

/**
 * The file whose value of `key` `mergedSettings` takes: the highest-priority file that sets it
 * where its source may (a distrusted file's trusted-only keys never count); undefined when none
 * does. So a refused value can be traced to the one file to edit. Pure.
 */
export function settingOrigin(
  files: readonly SettingsFile[],
  key: string,
): SettingsFile | undefined {
  return files.findLast((file) => Object.hasOwn(trustedData(file), key));
}
