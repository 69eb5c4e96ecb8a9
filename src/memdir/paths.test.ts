import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type EngramEnvironment, projectKey } from '../config/index.js';
import {
  canWriteWithoutPrompt,
  checkMemoryDirOnDisk,
  defaultMemoryDir,
  resolveMemoryDir,
  validateMemoryPath,
} from './index.js';

function setup(): { env: EngramEnvironment; repo: string; home: string } {
  const root = mkdtempSync(join(tmpdir(), 'engram-paths-'));
  const home = join(root, 'home');
  const repo = join(root, 'repo');
  mkdirSync(join(repo, '.git'), { recursive: true });
  mkdirSync(join(repo, 'pkg', 'app'), { recursive: true });
  mkdirSync(home, { recursive: true });
  return {
    home,
    repo,
    env: {
      cwd: join(repo, 'pkg', 'app'),
      homedir: home,
      env: { ENGRAM_HOME: join(home, '.engram'), ENGRAM_MANAGED_DIR: join(root, 'managed') },
    },
  };
}

function writeJson(path: string, value: unknown): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, JSON.stringify(value));
}

describe('resolveMemoryDir', () => {
  it('defaults to $ENGRAM_HOME/projects/<sanitized git root>-<hash>/memory, from any subfolder', () => {
    const { env, repo, home } = setup();
    const r = resolveMemoryDir(env);
    expect(r.source).toBe('default');
    expect(r.path).toBe(join(home, '.engram', 'projects', projectKey(repo), 'memory'));
    expect(r.writeWithoutPrompt).toBe(true);
  });

  it('shares one directory between a repository and its worktrees', () => {
    const { env, repo } = setup();
    const wt = join(repo, '..', 'wt');
    mkdirSync(join(repo, '.git', 'worktrees', 'wt'), { recursive: true });
    writeFileSync(join(repo, '.git', 'worktrees', 'wt', 'commondir'), '../..\n');
    mkdirSync(wt);
    writeFileSync(join(wt, '.git'), `gitdir: ${join(repo, '.git', 'worktrees', 'wt')}\n`);
    expect(defaultMemoryDir({ ...env, cwd: wt })).toBe(defaultMemoryDir(env));
  });

  it('keys a submodule by its own checkout, not by a folder inside the parent .git', () => {
    const { env, repo } = setup();
    const sub = join(repo, 'vendor', 'lib');
    mkdirSync(join(repo, '.git', 'modules', 'lib'), { recursive: true });
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, '.git'), 'gitdir: ../../.git/modules/lib\n');
    const r = resolveMemoryDir({ ...env, cwd: sub });
    expect(r.projectRoot).toBe(sub);
  });

  it('never lets committed project settings move the directory, and says so', () => {
    const { env, repo } = setup();
    writeJson(join(repo, '.engram', 'settings.json'), { memoryDirectory: '~/.ssh' });
    const r = resolveMemoryDir(env);
    expect(r.source).toBe('default');
    expect(r.path).not.toContain('.ssh');
    expect(r.warnings.join()).toMatch(/project settings/);
  });

  it('lets user, local, flag and policy settings move it, in priority order', () => {
    const { env, repo, home } = setup();
    writeJson(join(home, '.engram', 'settings.json'), { memoryDirectory: '~/mem-user' });
    expect(resolveMemoryDir(env)).toMatchObject({ source: 'user', path: join(home, 'mem-user') });
    // A local settings file counts only when git ignores it (so no clone can have brought it).
    execFileSync('git', ['init', '-q', repo]);
    writeFileSync(join(repo, '.gitignore'), '.engram/settings.local.json\n');
    writeJson(join(repo, '.engram', 'settings.local.json'), { memoryDirectory: '~/mem-local' });
    expect(resolveMemoryDir(env)).toMatchObject({ source: 'local', path: join(home, 'mem-local') });
    expect(resolveMemoryDir(env, { flag: '/srv/mem-flag' })).toMatchObject({
      source: 'flag',
      path: '/srv/mem-flag',
    });
    writeJson(join(env.env.ENGRAM_MANAGED_DIR!, 'settings.json'), {
      memoryDirectory: '/srv/mem-policy',
    });
    const r = resolveMemoryDir(env, { flag: '/srv/mem-flag' });
    expect(r).toMatchObject({
      source: 'policy',
      path: '/srv/mem-policy',
      writeWithoutPrompt: true,
    });
  });

  it('honours the env override above all, without the write carve-out', () => {
    const { env, home } = setup();
    writeJson(join(home, '.engram', 'settings.json'), { memoryDirectory: '~/mem-user' });
    const r = resolveMemoryDir({ ...env, env: { ...env.env, ENGRAM_MEMORY_DIR: '/srv/host-mem' } });
    expect(r).toMatchObject({ source: 'env', path: '/srv/host-mem', writeWithoutPrompt: false });
    expect(canWriteWithoutPrompt('/srv/host-mem/a.md', r)).toBe(false);
    const user = resolveMemoryDir(env);
    expect(canWriteWithoutPrompt(join(home, 'mem-user', 'a.md'), user)).toBe(true);
    expect(canWriteWithoutPrompt(join(home, 'mem-user', '..', 'x.md'), user)).toBe(false);
    expect(canWriteWithoutPrompt(join(home, '.ssh', 'id_rsa'), user)).toBe(false);
  });

  it('refuses a bad configured path naming its source', () => {
    const { env, home } = setup();
    writeJson(join(home, '.engram', 'settings.json'), { memoryDirectory: '~' });
    expect(() => resolveMemoryDir(env)).toThrow(/user settings/);
    expect(() => resolveMemoryDir(env, { flag: 'relative/dir' })).toThrow(/--memory-dir flag/);
    expect(() => resolveMemoryDir({ ...env, env: { ...env.env, ENGRAM_MEMORY_DIR: '/' } })).toThrow(
      /ENGRAM_MEMORY_DIR/,
    );
  });
});

describe('validateMemoryPath', () => {
  const home = '/home/me';
  it.each([
    ['relative', 'mem'],
    ['root', '/'],
    ['near-root', '/a'],
    ['drive root', 'C:'],
    ['drive root slash', 'C:\\'],
    ['UNC', '\\\\server\\share'],
    ['UNC slashes', '//server/share'],
    ['NUL', '/tmp/a\0b'],
    ['bare tilde', '~'],
    ['tilde slash', '~/'],
    ['tilde dot', '~/.'],
    ['tilde dotdot', '~/..'],
    ['drive climbing to relative', 'C:/../../x'],
    ['etc', '/etc'],
    ['etc child', '/etc/engram-mem'],
    ['proc self cwd', '/proc/self/cwd'],
    ['dev null', '/dev/null'],
    ['sys', '/sys/kernel'],
    ['usr', '/usr/local/mem'],
    ['boot', '/boot'],
    ['home itself', '/home/me'],
    ['ssh folder', '~/.ssh'],
    ['aws folder', '/home/me/.aws/mem'],
  ])('refuses %s', (_label, value) => {
    expect(validateMemoryPath(value, home).ok).toBe(false);
  });

  it('expands ~/x and normalises', () => {
    expect(validateMemoryPath('~/notes/mem/', home)).toEqual({
      ok: true,
      path: '/home/me/notes/mem',
    });
    expect(validateMemoryPath('/srv/a/../mem', home)).toEqual({ ok: true, path: '/srv/mem' });
  });
});

describe('checkMemoryDirOnDisk', () => {
  it('refuses a file, a folder under a file, and a link into a system folder', () => {
    const { home } = setup();
    writeFileSync(join(home, 'plain'), 'x');
    expect(checkMemoryDirOnDisk(join(home, 'plain'), home).ok).toBe(false);
    expect(checkMemoryDirOnDisk(join(home, 'plain', 'mem'), home).ok).toBe(false);
    symlinkSync('/etc', join(home, 'etc-link'));
    expect(checkMemoryDirOnDisk(join(home, 'etc-link', 'mem'), home)).toMatchObject({ ok: false });
    expect(checkMemoryDirOnDisk(join(home, 'new', 'mem'), home).ok).toBe(true);
  });
});
