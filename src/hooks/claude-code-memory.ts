/**
 * Where Claude Code keeps its own auto memory for a project, so `engram import claude-code` can
 * find it: `autoMemoryDirectory` from the user's or the local settings when set, else
 * `<config dir>/projects/<project>/memory/`, `<project>` being the git root with every character
 * that is not a letter or digit replaced by `-` (Claude Code cuts names over 200 characters and
 * appends a hash of its own: such a folder is found by its first 200 characters).
 */
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type EngramEnvironment, projectRoot } from '../config/index.js';
import { claudeSettingsPath, readClaudeSettings } from './settings.js';

const MAX_PROJECT_KEY = 200;

/** Claude Code's folder name for a project path. Pure. */
export function claudeProjectKey(path: string): string {
  return path.replace(/[^a-zA-Z0-9]/g, '-');
}

function configDir(environment: EngramEnvironment): string {
  const dir = environment.env.CLAUDE_CONFIG_DIR?.trim();
  return dir || join(environment.homedir, '.claude');
}

function expandHome(path: string, environment: EngramEnvironment): string | undefined {
  if (path.startsWith('~/')) return join(environment.homedir, path.slice(2));
  return path.startsWith('/') ? path : undefined; // Claude Code ignores a relative value too
}

export async function claudeCodeMemoryDir(environment: EngramEnvironment): Promise<string> {
  for (const scope of ['local', 'user'] as const) {
    const settings = await readClaudeSettings(claudeSettingsPath(environment, scope)).catch(
      () => ({}) as Record<string, unknown>,
    );
    const value = settings.autoMemoryDirectory;
    const dir = typeof value === 'string' ? expandHome(value.trim(), environment) : undefined;
    if (dir !== undefined) return resolve(dir);
  }
  const projects = join(configDir(environment), 'projects');
  const key = claudeProjectKey(projectRoot(environment));
  if (key.length <= MAX_PROJECT_KEY) return join(projects, key, 'memory');
  const prefix = key.slice(0, MAX_PROJECT_KEY);
  let names: string[] = [];
  try {
    names = readdirSync(projects);
  } catch {
    // no projects folder: the plain path below reports "not found"
  }
  const found = names.find((name) => name.startsWith(prefix));
  return join(projects, found ?? prefix, 'memory');
}
