import { describe, expect, it } from 'vitest';
import { engramHome } from '../config/environment.js';
import { DEFAULT_RECALL_BUDGET_MS } from '../hooks/events.js';
import { PROMPT_BUDGET_MS } from './hook-launch.js';
import { engramHomeFrom, hookDoor, hookServerKey, keyedEnv } from './hook-server-key.js';

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
      expect(engramHomeFrom(env, '/cwd', '/users/me')).toBe(
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

  it('is one key for every hook of every Claude Code session: per-session variables do not split it', () => {
    // What Claude Code 2.1 hands its hooks (seen in a real run): the same for a project, except
    // the variables of one claude process or one session, and CLAUDE_ENV_FILE on SessionStart only.
    const claude = {
      ...parts.env,
      CLAUDECODE: '1',
      CLAUDE_CODE_ENTRYPOINT: 'cli',
      CLAUDE_PROJECT_DIR: '/p',
    };
    const session = (id: string, pid: string) => ({
      ...claude,
      CLAUDE_CODE_SESSION_ID: id,
      CLAUDE_PID: pid,
      CLAUDE_CODE_MESSAGING_SOCKET: `/tmp/cc-socks/${pid}.sock`,
      CLAUDE_CODE_MESSAGING_TOKEN: `token-${id}`,
      CLAUDE_CODE_CHILD_NOTES_DIR: `/tmp/claude-0/-p/${id}/started`,
      CLAUDE_CODE_SSE_PORT: pid,
    });
    const key = hookServerKey({ ...parts, env: claude });
    const prompt = session('874a79da', '10316');
    const sessionStart = {
      ...prompt,
      CLAUDE_ENV_FILE: '/h/.claude/session-env/874a79da/sessionstart-hook-0.sh',
    };
    for (const env of [prompt, sessionStart, session('0816a8d9', '13643')])
      expect(hookServerKey({ ...parts, env })).toBe(key);
    // What engram itself reads from Claude Code's variables still makes another server.
    for (const env of [
      { ...claude, CLAUDE_PROJECT_DIR: '/q' },
      { ...claude, CLAUDE_CONFIG_DIR: '/c' },
      { ...claude, CLAUDE_CODE_DISABLE_AUTO_MEMORY: '1' },
    ])
      expect(hookServerKey({ ...parts, env })).not.toBe(key);
  });

  it("puts a deep home's socket in a short folder of the user's, one name per home and key", () => {
    expect(hookDoor('/h/.engram', 'k', {}, 1000)).toEqual({
      runDir: '/h/.engram/run',
      socketPath: expect.stringMatching(/^\/h\/\.engram\/run\/hook-[0-9a-f]{16}\.sock$/),
      siblingPrefix: 'hook-',
    });
    const deep = `/${'d'.repeat(100)}/.engram`;
    const inTmp = hookDoor(deep, 'k', {}, 1000);
    expect(inTmp?.runDir).toBe('/tmp/engram-1000');
    expect(inTmp?.socketPath).toMatch(/^\/tmp\/engram-1000\/hook-[0-9a-f]{16}-[0-9a-f]{16}\.sock$/);
    expect(inTmp?.socketPath.startsWith(`${inTmp.runDir}/${inTmp.siblingPrefix}`)).toBe(true);
    // The XDG runtime folder when it is absolute and short enough; never a relative one.
    const xdg = hookDoor(deep, 'k', { XDG_RUNTIME_DIR: '/run/user/1000' }, 1000);
    expect(xdg?.runDir).toBe('/run/user/1000/engram');
    expect(hookDoor(deep, 'k', { XDG_RUNTIME_DIR: 'run' }, 1000)?.runDir).toBe('/tmp/engram-1000');
    const longXdg = { XDG_RUNTIME_DIR: `/${'x'.repeat(80)}` };
    expect(hookDoor(deep, 'k', longXdg, 1000)?.runDir).toBe('/tmp/engram-1000');
    // Another home or another key: another socket; the same home's servers share a prefix.
    const otherHome = hookDoor(`${deep}2`, 'k', {}, 1000)!;
    const otherKey = hookDoor(deep, 'k2', {}, 1000)!;
    expect(otherHome.siblingPrefix).not.toBe(inTmp?.siblingPrefix);
    expect(otherKey.siblingPrefix).toBe(inTmp?.siblingPrefix);
    expect(otherKey.socketPath).not.toBe(inTmp?.socketPath);
    // Every door fits a Unix socket path with the server's temp suffix.
    for (const door of [inTmp, xdg, otherHome, otherKey])
      expect(`${door!.socketPath}.4194304`.length).toBeLessThan(108);
  });
});
