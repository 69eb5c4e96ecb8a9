/**
 * The one trust rule for settings. A key that changes where data goes or what runs (the memory
 * directory, the model and its endpoint, the team server, hooks on or off) is honoured only from
 * sources a cloned repository cannot write: managed policy, the command line, user settings, and
 * a local settings file that git neither tracks nor would pick up (it must be ignored). Committed
 * project settings and a committed or unignored `settings.local.json` may still set everything
 * else (instruction excludes, budgets); they never move data or change what runs.
 */

import { statSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { childProcess } from '../util/child-process.js';
import { findGitLocation } from './git-root.js';
import type { SettingsFile } from './settings.js';

/** Keys only trusted sources may set. */
export const TRUSTED_ONLY_KEYS: readonly string[] = [
  'memoryDirectory',
  'model',
  'baseUrl',
  'baseURL',
  'anthropicBaseUrl',
  'openaiBaseUrl',
  'apiKeyHelper',
  'env',
  'teamServer',
  'teamUrl',
  'teamToken',
  'autoMemoryEnabled',
  'autoDreamEnabled',
  'hooks',
  'disableAllHooks',
];

export interface IgnoredSetting {
  key: string;
  path: string;
  source: SettingsFile['source'];
  reason: string;
}

/** A source a cloned repository cannot have written. */
export function isTrustedSource(file: SettingsFile): boolean {
  if (file.source === 'policy' || file.source === 'user') return true;
  return file.source === 'local' && file.untrusted === undefined;
}

/** Every trusted-only key a distrusted file tried to set, with the reason in words. */
export function ignoredSettings(files: readonly SettingsFile[]): IgnoredSetting[] {
  const out: IgnoredSetting[] = [];
  for (const file of files) {
    if (isTrustedSource(file)) continue;
    const why =
      file.source === 'project'
        ? 'committed project settings cannot change where data goes or what runs; put it in your user settings or in an untracked, git-excluded .engram/settings.local.json'
        : (file.untrusted ?? 'not trusted');
    for (const key of TRUSTED_ONLY_KEYS) {
      if (key in file.data) out.push({ key, path: file.path, source: file.source, reason: why });
    }
  }
  return out;
}

/** `data` without the trusted-only keys when the file is not trusted. Pure. */
export function trustedData(file: SettingsFile): Record<string, unknown> {
  if (isTrustedSource(file)) return file.data;
  const data = { ...file.data };
  for (const key of TRUSTED_ONLY_KEYS) delete data[key];
  return data;
}

const cache = new Map<string, string | null>();

/**
 * Forget every answer kept: they are keyed by the settings file's identity, but git's index and
 * ignore files may change the answer without touching the file. A one-shot hook asks afresh each
 * run; the warm hook server calls this before each request so it asks afresh too.
 */
export function forgetSettingsTrust(): void {
  cache.clear();
}

function git(cwd: string, args: string[]): number {
  try {
    // fsmonitor off: a repository's own config must not run anything while we ask about it.
    childProcess().execFileSync('git', ['-c', 'core.fsmonitor=false', '-C', cwd, ...args], {
      stdio: 'ignore',
      timeout: 5000,
    });
    return 0;
  } catch (error) {
    const status = (error as { status?: number | null }).status;
    return typeof status === 'number' ? status : -1;
  }
}

/**
 * Why a local settings file must not be trusted, or undefined when it may. Outside a git checkout
 * nothing was cloned, so it is trusted; inside one, git must neither track it nor be able to add
 * it by accident (it must be ignored). When git cannot answer, it is not trusted.
 */
export function localSettingsDistrust(path: string): string | undefined {
  let key = path;
  try {
    const info = statSync(path);
    key = `${path}\0${info.mtimeMs}\0${info.size}\0${info.ino}`;
  } catch {
    return undefined;
  }
  const known = cache.get(key);
  if (known !== undefined) return known ?? undefined;
  const reason = computeDistrust(path);
  cache.set(key, reason ?? null);
  return reason;
}

function computeDistrust(path: string): string | undefined {
  const location = findGitLocation(dirname(path));
  if (!location) return undefined;
  const rel = relative(location.topLevel, path);
  const tracked = git(location.topLevel, ['ls-files', '--error-unmatch', '--', rel]);
  if (tracked === 0)
    return `${rel} is tracked by git (it came with the repository), so it is treated like committed project settings; remove it from git (git rm --cached ${rel}) and add it to .gitignore`;
  if (tracked !== 1)
    return `git could not say whether ${rel} is tracked, so it is not trusted; check that git works in ${location.topLevel}`;
  const ignored = git(location.topLevel, ['check-ignore', '-q', '--', rel]);
  if (ignored === 0) return undefined;
  if (ignored === 1)
    return `${rel} is not ignored by git (a commit could publish it), so it is not trusted; add it to .gitignore`;
  return `git could not say whether ${rel} is ignored, so it is not trusted`;
}
