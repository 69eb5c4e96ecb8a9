import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { projectKey } from '../config/git-root.js';
import {
  defaultEnvironment,
  type EngramEnvironment,
  engramHome,
  type IgnoredSetting,
  ignoredSettings,
  isTrustedSource,
  loadSettings,
  projectRoot,
  type SettingsFile,
} from '../config/index.js';
import { EngramError } from '../util/errors.js';
import { migrateProjectFolder } from './project-migration.js';
import { checkMemoryDirOnDisk, validateMemoryPath } from './validate-path.js';

export type MemoryDirSource = 'env' | 'policy' | 'flag' | 'local' | 'user' | 'default';

/** The settings key that sets the memory directory. */
export const MEMORY_DIRECTORY_KEY = 'memoryDirectory';
export const MEMORY_DIR_ENV = 'ENGRAM_MEMORY_DIR';

export interface MemoryDirResolution {
  path: string;
  source: MemoryDirSource;
  /** Where the value came from (settings file path, flag, env var name, or 'default'). */
  origin: string;
  /** Whether a host may let its agent write here without asking (never for the env override). */
  writeWithoutPrompt: boolean;
  projectRoot: string;
  /** Things the user should be told once, e.g. ignored project settings. */
  warnings: string[];
  /** Settings that tried to change where data goes or what runs from an untrusted file, and why. */
  ignored: IgnoredSetting[];
}

export interface ResolveMemoryDirOptions {
  /** The `--memory-dir` command-line flag. */
  flag?: string;
  /** Settings already loaded (otherwise read from disk). */
  settings?: SettingsFile[];
}

/**
 * `$ENGRAM_HOME/projects/<sanitized git root>-<8 hex of its sha256>/memory` (see `projectKey`):
 * `my-app`, `my.app`, `my_app` and `my app` side by side get four folders; worktrees share their
 * repository's (the key is built from the main checkout).
 */
export function defaultMemoryDir(environment: EngramEnvironment = defaultEnvironment()): string {
  return join(engramHome(environment), 'projects', projectKey(projectRoot(environment)), 'memory');
}

/** Move this project's folder from the old unhashed key when it is provably its own. */
function migrateDefault(environment: EngramEnvironment, root: string, warnings: string[]): void {
  try {
    const m = migrateProjectFolder(join(engramHome(environment), 'projects'), root);
    if (m.kind === 'ambiguous') {
      warnings.push(
        `${m.from} (from an older engram) may hold this project's memories, but ${m.others.length > 0 ? `${m.others.join(', ')} could own it too` : "it cannot be shown to be this project's alone"}; it was not moved. If it is this project's, move its memory folder to ${m.to}.`,
      );
    }
  } catch (error) {
    warnings.push(
      `could not move the old project folder to its new name: ${(error as Error).message}`,
    );
  }
}

/**
 * Decide the memory directory. Order: env override → managed policy → flag → local settings →
 * user settings → default. Committed project settings can never move it: a cloned repository could
 * otherwise point an agent's unprompted writes at `~/.ssh`.
 */
export function resolveMemoryDir(
  environment: EngramEnvironment = defaultEnvironment(),
  options: ResolveMemoryDirOptions = {},
): MemoryDirResolution {
  const settings = options.settings ?? loadSettings(environment);
  const bySource = new Map(settings.map((s) => [s.source, s]));
  const warnings: string[] = [];
  const root = projectRoot(environment);
  const ignored = ignoredSettings(settings);
  for (const i of ignored) {
    warnings.push(
      i.source === 'project' && i.key === MEMORY_DIRECTORY_KEY
        ? `Ignoring "${MEMORY_DIRECTORY_KEY}" in project settings ${i.path}: committed project settings cannot move the memory directory. Put it in your user settings or in an untracked, git-excluded .engram/settings.local.json instead.`
        : `Ignoring "${i.key}" in ${i.source} settings ${i.path}: ${i.reason}.`,
    );
  }
  const candidates: Array<{ source: MemoryDirSource; origin: string; value: unknown }> = [];
  const envValue = environment.env[MEMORY_DIR_ENV];
  if (envValue !== undefined && envValue !== '') {
    candidates.push({ source: 'env', origin: `$${MEMORY_DIR_ENV}`, value: envValue });
  }
  const fromSettings = (source: 'policy' | 'local' | 'user') => {
    const file = bySource.get(source);
    if (file && isTrustedSource(file) && file.data[MEMORY_DIRECTORY_KEY] !== undefined) {
      candidates.push({ source, origin: file.path, value: file.data[MEMORY_DIRECTORY_KEY] });
    }
  };
  fromSettings('policy');
  if (options.flag !== undefined)
    candidates.push({ source: 'flag', origin: '--memory-dir', value: options.flag });
  fromSettings('local');
  fromSettings('user');
  const chosen = candidates[0];
  if (!chosen) {
    migrateDefault(environment, root, warnings);
    return {
      path: defaultMemoryDir(environment),
      source: 'default',
      origin: 'default',
      writeWithoutPrompt: true,
      projectRoot: root,
      warnings,
      ignored,
    };
  }
  if (typeof chosen.value !== 'string') {
    throw new EngramError(
      'invalid_path',
      `${describeSource(chosen)}: "${MEMORY_DIRECTORY_KEY}" must be a string`,
    );
  }
  const lexical = validateMemoryPath(chosen.value, environment.homedir);
  const checked = lexical.ok ? checkMemoryDirOnDisk(lexical.path, environment.homedir) : lexical;
  if (!checked.ok) {
    throw new EngramError(
      'invalid_path',
      `Refusing memory directory "${chosen.value.replace(/\0/g, '\\0')}" from ${describeSource(chosen)}: ${checked.reason}.`,
    );
  }
  return {
    path: checked.path,
    source: chosen.source,
    origin: chosen.origin,
    writeWithoutPrompt: chosen.source !== 'env',
    projectRoot: root,
    warnings,
    ignored,
  };
}

/**
 * A directory named outright (`--dir`, a host's `memoryDir`): taken as it is, relative to cwd,
 * but never a system folder, a root, the home folder or a credential folder.
 */
export function explicitMemoryDir(
  environment: EngramEnvironment,
  value: string,
  origin = '--dir',
): MemoryDirResolution {
  if (value.trim() === '' || value.includes('\0')) {
    throw new EngramError('invalid_path', `${origin} needs a directory path`);
  }
  const path = resolve(environment.cwd, value);
  const checked = validateMemoryPath(path, environment.homedir);
  const onDisk = checked.ok ? checkMemoryDirOnDisk(path, environment.homedir) : checked;
  if (!onDisk.ok)
    throw new EngramError(
      'invalid_path',
      `Refusing ${origin} ${JSON.stringify(value)}: ${onDisk.reason}.`,
    );
  return {
    path,
    source: 'flag',
    origin,
    writeWithoutPrompt: true,
    projectRoot: projectRoot(environment),
    warnings: [],
    ignored: [],
  };
}

function describeSource(c: { source: MemoryDirSource; origin: string }): string {
  switch (c.source) {
    case 'env':
      return `the environment variable ${MEMORY_DIR_ENV}`;
    case 'flag':
      return 'the --memory-dir flag';
    default:
      return `${c.source} settings (${c.origin})`;
  }
}

/**
 * May a host agent write `path` without asking the user? Only inside a memory directory chosen by
 * the default or a trusted setting; the env override never earns it, and nothing outside does.
 */
export function canWriteWithoutPrompt(
  path: string,
  where: MemoryDirResolution | EngramEnvironment = defaultEnvironment(),
): boolean {
  // A host may pass the resolution it already has, or just where it runs (default: this process).
  const resolution = 'source' in where ? where : resolveMemoryDir(where);
  if (!resolution.writeWithoutPrompt) return false;
  const target = 'source' in where ? resolve(path) : resolve(where.cwd, path);
  // Both as written and with symlinks resolved: a link inside the memory directory that points at
  // ~/.ssh must not carry the carve-out with it.
  return (
    isInsideDir(resolution.path, target) &&
    isInsideDir(physicalPath(resolution.path), physicalPath(target))
  );
}

function isInsideDir(dir: string, target: string): boolean {
  const rel = relative(dir, target);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** The path with symlinks resolved as far as it exists; the part not yet created is appended. */
function physicalPath(path: string): string {
  const tail: string[] = [];
  let dir = path;
  for (;;) {
    try {
      return join(realpathSync(dir), ...tail);
    } catch {
      const parent = dirname(dir);
      if (parent === dir) return path;
      tail.unshift(basename(dir));
      dir = parent;
    }
  }
}
