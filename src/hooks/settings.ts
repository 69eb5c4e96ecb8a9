/**
 * `engram hook install|uninstall`: merge engram's hook entries into a Claude Code settings file.
 * Other keys and other tools' hooks are never touched; ours are recognised by their command.
 */
import { chmod, mkdir, readFile, realpath, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { EngramEnvironment } from '../config/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { EngramError, errnoCode } from '../util/errors.js';
import { HOOK_EVENTS, type HookCommandName, type HookEventName } from './input.js';

export type SettingsScope = 'user' | 'project' | 'local';

/** Seconds Claude Code waits for each hook before giving up on it. */
export const HOOK_TIMEOUTS: Record<HookCommandName, number> = {
  'session-start': 10,
  'user-prompt-submit': 15,
  stop: 10,
  'pre-compact': 120,
};

export function claudeSettingsPath(environment: EngramEnvironment, scope: SettingsScope): string {
  if (scope === 'user') {
    const configDir = environment.env.CLAUDE_CONFIG_DIR?.trim();
    return join(configDir || join(environment.homedir, '.claude'), 'settings.json');
  }
  const file = scope === 'local' ? 'settings.local.json' : 'settings.json';
  return join(environment.cwd, '.claude', file);
}

type Json = Record<string, unknown>;
interface HookHandler extends Json {
  type?: string;
  command?: string;
}
interface MatcherGroup extends Json {
  matcher?: string;
  hooks?: HookHandler[];
}

const OURS = new RegExp(`\\bhook (${Object.keys(HOOK_EVENTS).join('|')})\\b`);

/**
 * True for a handler engram installed: a command running one of our hook events, through a
 * command that says engram or through the `--command` it was installed with (a path to the
 * built CLI need not contain the word).
 */
export function isEngramHook(handler: unknown, command?: string): boolean {
  if (typeof handler !== 'object' || handler === null) return false;
  const line = (handler as HookHandler).command;
  if (typeof line !== 'string' || !OURS.test(line)) return false;
  // The absolute command `hook install` writes runs the built hook entry (the CLI before it),
  // wherever it lives.
  if (/engram|[/\\]dist[/\\]cli[/\\](main\.js|hook\.cjs)\b/.test(line)) return true;
  const prefix = command?.trim();
  return prefix !== undefined && prefix !== '' && line.trim().startsWith(`${prefix} hook `);
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Settings without any engram hook; groups and events left empty by the removal disappear. Pure. */
export function withoutEngramHooks(settings: Json, command?: string): Json {
  if (!isObject(settings.hooks)) return settings;
  const hooks: Json = {};
  for (const [event, groups] of Object.entries(settings.hooks)) {
    if (!Array.isArray(groups)) {
      hooks[event] = groups;
      continue;
    }
    const kept = groups
      .map((group: unknown) => {
        if (!isObject(group) || !Array.isArray(group.hooks)) return group;
        const handlers = group.hooks.filter((h: unknown) => !isEngramHook(h, command));
        return handlers.length === group.hooks.length ? group : { ...group, hooks: handlers };
      })
      .filter(
        (group: unknown) =>
          !(isObject(group) && Array.isArray(group.hooks) && group.hooks.length === 0),
      );
    if (kept.length > 0) hooks[event] = kept;
  }
  const next: Json = { ...settings, hooks };
  if (Object.keys(hooks).length === 0) delete next.hooks;
  return next;
}

/** Settings with exactly one engram entry per event (re-installing replaces, never duplicates). Pure. */
export function withEngramHooks(settings: Json, command: string): Json {
  const base = withoutEngramHooks(settings, command);
  const hooks: Json = isObject(base.hooks) ? { ...base.hooks } : {};
  for (const [name, event] of Object.entries(HOOK_EVENTS) as Array<
    [HookCommandName, HookEventName]
  >) {
    const groups = Array.isArray(hooks[event]) ? [...(hooks[event] as unknown[])] : [];
    const group: MatcherGroup = {
      hooks: [
        { type: 'command', command: `${command} hook ${name}`, timeout: HOOK_TIMEOUTS[name] },
      ],
    };
    groups.push(group);
    hooks[event] = groups;
  }
  return { ...base, hooks };
}

/** A Claude Code settings file as an object; missing or empty is `{}`, invalid JSON an error. */
export async function readClaudeSettings(path: string): Promise<Json> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return {};
    throw error;
  }
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // Never overwrite a file we cannot read: the user would lose their settings.
    throw new EngramError(
      'settings_error',
      `${path} is not valid JSON; fix it, then run this again.`,
      {
        cause: error,
      },
    );
  }
  if (!isObject(value)) throw new EngramError('settings_error', `${path} must hold a JSON object.`);
  return value;
}

export interface HookInstallResult {
  path: string;
  changed: boolean;
  events: HookEventName[];
}

/**
 * Where to write and with which mode: a settings file that is a link (dotfile managers link
 * ~/.claude/settings.json into a repository) is written through, and an existing file keeps its
 * mode. A new file is private: settings may hold environment variables with secrets.
 */
async function writeTarget(path: string): Promise<{ real: string; mode: number }> {
  try {
    const real = await realpath(path);
    return { real, mode: (await stat(real)).mode & 0o777 };
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return { real: path, mode: 0o600 };
    throw error;
  }
}

/** JSON with object keys sorted, for comparing settings by content. Pure. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    isObject(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v,
  );
}

/**
 * Read, change and write back a Claude Code settings file (atomic, through a link, keeping its
 * mode). Returns whether anything changed; an unchanged file is not written.
 */
export async function rewriteClaudeSettings(
  path: string,
  change: (settings: Json) => Json,
): Promise<boolean> {
  const before = await readClaudeSettings(path);
  const after = change(before);
  // Key order is not a change: re-adding our hooks may move the key without changing a value.
  const changed = canonical(before) !== canonical(after);
  if (changed) {
    const { real, mode } = await writeTarget(path);
    await mkdir(dirname(real), { recursive: true });
    await writeFileAtomic(real, `${JSON.stringify(after, null, 2)}\n`, { mode });
    await chmod(real, mode); // the umask may have narrowed it
  }
  return changed;
}

async function rewrite(path: string, change: (settings: Json) => Json): Promise<HookInstallResult> {
  const changed = await rewriteClaudeSettings(path, change);
  return { path, changed, events: Object.values(HOOK_EVENTS) };
}

export function installHooks(path: string, command = 'engram'): Promise<HookInstallResult> {
  return rewrite(path, (s) => withEngramHooks(s, command));
}

/** Remove our entries; `command` also recognises ones installed with a custom `--command`. */
export function uninstallHooks(path: string, command?: string): Promise<HookInstallResult> {
  return rewrite(path, (s) => withoutEngramHooks(s, command));
}
