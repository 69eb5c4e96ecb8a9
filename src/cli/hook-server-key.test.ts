import { describe, expect, it } from 'vitest';
import { engramHome } from '../config/environment.js';
import { DEFAULT_RECALL_BUDGET_MS } from '../hooks/events.js';
import { PROMPT_BUDGET_MS } from './hook-launch.js';
import { hookServerHome, hookServerKey, hookSocketPath, keyedEnv } from './hook-server-key.js';

const parts = {
  home: '/h/.engram',
  build: 'b',
  env: { HOME: '/h', PATH: '/bin', ENGRAM_X: '1', PWD: '/p', SHLVL: '2' },
  execPath: '/usr/bin/node',
  nodeVersion: 'v20',
  execArgv: [],
  uid: 1000,
};

describe('the hook server key', () => {
  it('names the same home as engram itself', () => {
    for (const env of [
      {},
      { ENGRAM_HOME: 'rel/home' },
      { ENGRAM_HOME: ' /abs ' },
      { ENGRAM_HOME: '' },
    ])
      expect(hookServerHome(env, '/cwd', '/users/me')).toBe(
        engramHome({ env, cwd: '/cwd', homedir: '/users/me' }),
      );
  });

  it('uses the prompt hook default budget', () => {
    expect(PROMPT_BUDGET_MS).toBe(DEFAULT_RECALL_BUDGET_MS);
  });

  it('changes with every value the hook reads from its process, not with the shell bookkeeping', () => {
    const key = hookServerKey(parts);
    expect(hookServerKey({ ...parts, env: { ...parts.env, PWD: '/q', SHLVL: '3' } })).toBe(key);
    for (const env of [
      { ...parts.env, ENGRAM_X: '2' },
      { ...parts.env, ENGRAM_NO_WATCH: '1' },
      { ...parts.env, GIT_DIR: '/g' },
      { ...parts.env, CLAUDE_PROJECT_DIR: '/p' },
      { ...parts.env, ANTHROPIC_API_KEY: 'k' },
      { ...parts.env, TZ: 'UTC' },
      { ...parts.env, HOME: '/other' },
    ])
      expect(hookServerKey({ ...parts, env })).not.toBe(key);
    for (const other of [
      { build: 'c' },
      { home: '/x' },
      { execPath: '/opt/node' },
      { nodeVersion: 'v22' },
      { execArgv: ['--inspect'] },
      { uid: 0 },
    ])
      expect(hookServerKey({ ...parts, ...other })).not.toBe(key);
    expect(keyedEnv(parts.env).map(([name]) => name)).toEqual(['ENGRAM_X', 'HOME', 'PATH']);
  });

  it('gives no socket to a home too deep for a Unix socket path', () => {
    expect(hookSocketPath('/h/.engram', 'k')).toMatch(
      /^\/h\/\.engram\/run\/hook-[0-9a-f]{16}\.sock$/,
    );
    expect(hookSocketPath(`/${'d'.repeat(100)}`, 'k')).toBeUndefined();
  });
});
