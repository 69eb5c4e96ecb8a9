/**
 * One memory system in the prompt: wherever engram is installed into Claude Code (the plugin or
 * `engram hook install`), Claude Code's built-in auto memory is turned off in the same settings
 * file (`autoMemoryEnabled: false`). Otherwise its system prompt describes a second memory
 * directory in the same format and the agent may write to either. What the file held before is
 * recorded under $ENGRAM_HOME, so `engram hook uninstall` puts back exactly that.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { type EngramEnvironment, engramHome } from '../config/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { errnoCode } from '../util/errors.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../util/file-modes.js';
import { claudeSettingsPath, readClaudeSettings, rewriteClaudeSettings } from './settings.js';

type Json = Record<string, unknown>;

/** What a settings file said about auto memory before engram changed it. */
export interface AutoMemoryBefore {
  /** The key was present. */
  had: boolean;
  /** Its value when present. */
  value?: unknown;
}

/** Settings with Claude Code's auto memory off, and what they held before. Pure. */
export function withAutoMemoryOff(settings: Json): { settings: Json; before: AutoMemoryBefore } {
  const had = Object.hasOwn(settings, 'autoMemoryEnabled');
  const before: AutoMemoryBefore = had ? { had, value: settings.autoMemoryEnabled } : { had };
  return { settings: { ...settings, autoMemoryEnabled: false }, before };
}

/** Settings with the recorded value put back (the key removed if it was absent). Pure. */
export function withAutoMemoryRestored(settings: Json, before: AutoMemoryBefore): Json {
  const next = { ...settings };
  if (before.had) next.autoMemoryEnabled = before.value;
  else delete next.autoMemoryEnabled;
  return next;
}

function recordsPath(environment: EngramEnvironment): string {
  return join(engramHome(environment), 'claude-code', 'auto-memory.json');
}

async function readRecords(path: string): Promise<Record<string, AutoMemoryBefore>> {
  try {
    const value: unknown = JSON.parse(await readFile(path, 'utf8'));
    return typeof value === 'object' && value !== null
      ? (value as Record<string, AutoMemoryBefore>)
      : {};
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || error instanceof SyntaxError) return {};
    throw error;
  }
}

async function writeRecords(path: string, records: Record<string, AutoMemoryBefore>) {
  await mkdir(dirname(path), { recursive: true, mode: PRIVATE_DIR_MODE });
  await writeFileAtomic(path, `${JSON.stringify(records, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
}

export interface AutoMemoryChange {
  settingsPath: string;
  /** The settings file was changed now (false: it was off already, or nothing to restore). */
  changed: boolean;
}

/**
 * Turn Claude Code's auto memory off in `settingsPath`. The first value seen is the one recorded:
 * running this again (every session start of the plugin) never overwrites it with our own `false`.
 */
export async function turnOffClaudeAutoMemory(
  environment: EngramEnvironment,
  settingsPath: string,
): Promise<AutoMemoryChange> {
  const store = recordsPath(environment);
  const current = await readClaudeSettings(settingsPath);
  if (current.autoMemoryEnabled === false) return { settingsPath, changed: false };
  const { before } = withAutoMemoryOff(current);
  const records = await readRecords(store);
  if (records[settingsPath] === undefined) {
    records[settingsPath] = before;
    await writeRecords(store, records);
  }
  const changed = await rewriteClaudeSettings(settingsPath, (s) => withAutoMemoryOff(s).settings);
  return { settingsPath, changed };
}

/** Put back what `settingsPath` said about auto memory before engram turned it off. */
export async function restoreClaudeAutoMemory(
  environment: EngramEnvironment,
  settingsPath: string,
): Promise<AutoMemoryChange> {
  const store = recordsPath(environment);
  const records = await readRecords(store);
  const before = records[settingsPath];
  if (before === undefined) return { settingsPath, changed: false };
  const changed = await rewriteClaudeSettings(settingsPath, (s) =>
    withAutoMemoryRestored(s, before),
  );
  delete records[settingsPath];
  await writeRecords(store, records);
  return { settingsPath, changed };
}

/** The first settings file (local, project, user) that enables a plugin named `name`. */
export async function pluginSettingsPath(
  environment: EngramEnvironment,
  name = 'engram',
): Promise<string | undefined> {
  for (const scope of ['local', 'project', 'user'] as const) {
    const path = claudeSettingsPath(environment, scope);
    const settings = await readClaudeSettings(path).catch(() => ({}) as Json);
    const enabled = settings.enabledPlugins;
    if (typeof enabled !== 'object' || enabled === null) continue;
    if (Object.entries(enabled).some(([id, on]) => id.split('@')[0] === name && on === true))
      return path;
  }
  return undefined;
}

/** True when the environment already turns Claude Code's auto memory off for the session. */
export function autoMemoryOffByEnvironment(env: Record<string, string | undefined>): boolean {
  const value = env.CLAUDE_CODE_DISABLE_AUTO_MEMORY?.trim().toLowerCase();
  return value === '1' || value === 'true' || value === 'yes';
}

/**
 * The plugin's side of "one memory system": at session start, make sure the settings file that
 * enables the plugin also turns auto memory off. Claude Code reads that file while it runs, so
 * the change applies from the next request on (and to every later session).
 */
export async function ensurePluginAutoMemoryOff(
  environment: EngramEnvironment,
): Promise<AutoMemoryChange | undefined> {
  if (autoMemoryOffByEnvironment(environment.env)) return undefined;
  const projectDir = environment.env.CLAUDE_PROJECT_DIR?.trim();
  const where = projectDir ? { ...environment, cwd: resolve(projectDir) } : environment;
  const path = await pluginSettingsPath(where);
  if (path === undefined) return undefined;
  return turnOffClaudeAutoMemory(environment, path);
}
