import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ensurePluginAutoMemoryOff,
  restoreClaudeAutoMemory,
  withAutoMemoryOff,
  withAutoMemoryRestored,
} from './auto-memory.js';

describe('auto memory policy', () => {
  it('turns it off and restores exactly the value, or the absence, that was there', () => {
    for (const settings of [{}, { autoMemoryEnabled: true }, { autoMemoryEnabled: 'yes', x: 1 }]) {
      const { settings: off, before } = withAutoMemoryOff(settings);
      expect(off.autoMemoryEnabled).toBe(false);
      expect(withAutoMemoryRestored(off, before)).toEqual(settings);
    }
  });
});

describe('the plugin at session start', () => {
  let root: string;
  let project: string;
  const env = (extra: Record<string, string> = {}) => ({
    cwd: project,
    env: { ENGRAM_HOME: join(root, '.engram'), CLAUDE_PROJECT_DIR: project, ...extra },
    homedir: root,
  });
  const read = async (path: string) => JSON.parse(await readFile(path, 'utf8'));
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'engram-automem-'));
    project = join(root, 'project');
    await mkdir(join(project, '.claude'), { recursive: true });
    await mkdir(join(root, '.claude'), { recursive: true });
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('turns auto memory off in the settings file that enables the plugin, once', async () => {
    const user = join(root, '.claude', 'settings.json');
    const local = join(project, '.claude', 'settings.local.json');
    await writeFile(user, JSON.stringify({ enabledPlugins: { 'other@x': true } }));
    await writeFile(local, JSON.stringify({ enabledPlugins: { 'engram@engram': true } }));
    expect(await ensurePluginAutoMemoryOff(env())).toEqual({ settingsPath: local, changed: true });
    expect((await read(local)).autoMemoryEnabled).toBe(false);
    expect((await read(user)).autoMemoryEnabled).toBeUndefined();
    expect(await ensurePluginAutoMemoryOff(env())).toEqual({ settingsPath: local, changed: false });
    await restoreClaudeAutoMemory(env(), local);
    expect(await read(local)).toEqual({ enabledPlugins: { 'engram@engram': true } });
  });

  it('leaves settings alone when the environment already turns it off or no scope enables it', async () => {
    const user = join(root, '.claude', 'settings.json');
    await writeFile(user, JSON.stringify({ enabledPlugins: { 'engram@engram': true } }));
    expect(await ensurePluginAutoMemoryOff(env({ CLAUDE_CODE_DISABLE_AUTO_MEMORY: '1' }))).toBe(
      undefined,
    );
    expect((await read(user)).autoMemoryEnabled).toBeUndefined();
    await writeFile(user, JSON.stringify({ enabledPlugins: { 'engram@engram': false } }));
    expect(await ensurePluginAutoMemoryOff(env())).toBeUndefined();
  });
});
