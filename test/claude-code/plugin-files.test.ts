import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOOK_EVENTS, HOOK_TIMEOUTS, type HookCommandName } from '../../src/hooks/index.js';
import { claudeCommand, REPO, run } from './support.js';

// The plugin's files at the repository root, where Claude Code looks for them, and in the package.
/** Claude Code, not JavaScript, expands this in the plugin's files. */
const PLUGIN_ROOT = ['$', '{CLAUDE_PLUGIN_ROOT}'].join('');
const json = (path: string) => JSON.parse(readFileSync(join(REPO, path), 'utf8'));

describe('the Claude Code plugin files', () => {
  it('has a manifest and a marketplace that lists this folder as the engram plugin', () => {
    const manifest = json('.claude-plugin/plugin.json');
    const pkg = json('package.json');
    expect(manifest.name).toBe('engram');
    expect(manifest.version).toBe(pkg.version);
    const marketplace = json('.claude-plugin/marketplace.json');
    expect(marketplace.name).toBe('engram');
    expect(marketplace.plugins).toEqual([
      expect.objectContaining({ name: 'engram', source: './', version: pkg.version }),
    ]);
  });

  it('runs every hook through the plugin root with the timeouts hook install uses', () => {
    const { hooks } = json('hooks/hooks.json');
    for (const [name, event] of Object.entries(HOOK_EVENTS) as Array<[HookCommandName, string]>) {
      expect(hooks[event]).toEqual([
        {
          hooks: [
            {
              type: 'command',
              command: `node "${PLUGIN_ROOT}/dist/cli/hook.cjs" hook ${name}`,
              timeout: HOOK_TIMEOUTS[name],
            },
          ],
        },
      ]);
    }
    expect(Object.keys(hooks).sort()).toEqual(Object.values(HOOK_EVENTS).sort());
    expect(json('.mcp.json').mcpServers.engram).toEqual({
      command: 'node',
      args: [`${PLUGIN_ROOT}/dist/cli/main.js`, 'mcp'],
    });
  });

  it('ships commands a person uses, each with a description', () => {
    const commands = readdirSync(join(REPO, 'commands')).sort();
    expect(commands).toEqual(['check.md', 'forget.md', 'recall.md', 'remember.md']);
    for (const file of commands) {
      const text = readFileSync(join(REPO, 'commands', file), 'utf8');
      expect(text).toMatch(/^---\ndescription: .+\n/);
    }
  });

  it('is in the package', () => {
    const files: string[] = json('package.json').files;
    for (const path of ['.claude-plugin', 'hooks', '.mcp.json', 'commands', 'dist'])
      expect(files).toContain(path);
  });

  it('passes `claude plugin validate`', async () => {
    const home = await mkdtemp(join(tmpdir(), 'engram-validate-'));
    try {
      const claude = claudeCommand();
      const result = await run(claude.file, [...claude.prefix, 'plugin', 'validate', REPO], {
        cwd: REPO,
        env: { HOME: home, PATH: '/usr/bin:/bin', DISABLE_AUTOUPDATER: '1' },
      });
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(result.stdout).toMatch(/Validation passed/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
