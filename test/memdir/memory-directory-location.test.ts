import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { engram, engramAsync, gitRepo, json, sandbox } from './support.js';

describe('where the memory directory lives', () => {
  it('defaults to $ENGRAM_HOME/projects/<git root>/memory, shared by subfolders', () => {
    const s = sandbox();
    const repo = gitRepo(join(s.root, 'work', 'Mein Projekt'));
    mkdirSync(join(repo, 'crates', 'core'), { recursive: true });
    const atRoot = json(engram(s, ['path', '--json'], { cwd: repo }));
    const inSub = json(engram(s, ['path', '--json'], { cwd: join(repo, 'crates', 'core') }));
    expect(Object.keys(atRoot).sort()).toEqual(['path', 'source', 'writeWithoutPrompt']);
    expect(atRoot.source).toBe('default');
    expect(atRoot.writeWithoutPrompt).toBe(true);
    expect(String(atRoot.path).startsWith(join(s.engramHome, 'projects'))).toBe(true);
    expect(String(atRoot.path).endsWith('/memory')).toBe(true);
    expect(inSub.path).toBe(atRoot.path);
    // Outside git the working directory keys the project.
    const loose = join(s.root, 'loose', 'folder');
    mkdirSync(loose, { recursive: true });
    const outside = json(engram(s, ['path', '--json'], { cwd: loose }));
    expect(outside.path).not.toBe(atRoot.path);
    // ENGRAM_HOME defaults to ~/.engram.
    const noHome = json(
      engram(s, ['path', '--json'], { cwd: repo, env: { ENGRAM_HOME: undefined } }),
    );
    expect(String(noHome.path).startsWith(join(s.home, '.engram', 'projects'))).toBe(true);
    // Plain output says which source chose it.
    const plain = engram(s, ['path'], { cwd: repo });
    expect(plain.stdout).toContain(String(atRoot.path));
    expect(plain.stdout).toMatch(/default/);
  });

  it('project settings cannot move it (~/.ssh); local and user settings can; env can but never writes without prompt', async () => {
    const s = sandbox();
    const repo = gitRepo(join(s.root, 'cloned'));
    mkdirSync(join(repo, '.engram'), { recursive: true });
    const base = json(engram(s, ['path', '--json'], { cwd: repo }));
    writeFileSync(
      join(repo, '.engram', 'settings.json'),
      JSON.stringify({ memoryDirectory: '~/.ssh' }),
    );
    const hostile = engram(s, ['path', '--json'], { cwd: repo });
    expect(json(hostile).path).toBe(base.path);
    expect(json(hostile).source).toBe('default');
    expect(hostile.stderr).toMatch(/ignor/i);
    expect(hostile.stderr.match(/ignor/gi)?.length).toBe(1);

    writeFileSync(
      join(s.engramHome, 'settings.json'),
      JSON.stringify({ memoryDirectory: '~/notes/agent-memory' }),
    );
    const user = json(engram(s, ['path', '--json'], { cwd: repo }));
    expect(user).toEqual({
      path: join(s.home, 'notes', 'agent-memory'),
      source: 'user',
      writeWithoutPrompt: true,
    });

    const localDir = join(s.root, 'local-memories');
    // A local settings file counts only when git ignores it: no clone can have brought it.
    writeFileSync(join(repo, '.gitignore'), '.engram/settings.local.json\n');
    writeFileSync(
      join(repo, '.engram', 'settings.local.json'),
      JSON.stringify({ memoryDirectory: localDir }),
    );
    const local = json(engram(s, ['path', '--json'], { cwd: repo }));
    expect(local).toEqual({ path: localDir, source: 'local', writeWithoutPrompt: true });

    const flagDir = join(s.root, 'flag-memories');
    const flag = json(engram(s, ['path', '--json', '--memory-dir', flagDir], { cwd: repo }));
    expect(flag).toMatchObject({ path: flagDir, source: 'flag' });

    const policyDir = join(s.root, 'policy-memories');
    writeFileSync(join(s.managed, 'settings.json'), JSON.stringify({ memoryDirectory: policyDir }));
    const policy = json(engram(s, ['path', '--json', '--memory-dir', flagDir], { cwd: repo }));
    expect(policy).toMatchObject({ path: policyDir, source: 'policy' });

    const envDir = join(s.root, 'host-memories');
    const env = json(
      engram(s, ['path', '--json'], { cwd: repo, env: { ENGRAM_MEMORY_DIR: envDir } }),
    );
    expect(env).toEqual({ path: envDir, source: 'env', writeWithoutPrompt: false });

    // The library answer a host agent asks for.
    const memdir = await import('engram/memdir');
    const environment = {
      cwd: repo,
      homedir: s.home,
      env: { ENGRAM_HOME: s.engramHome, ENGRAM_MANAGED_DIR: join(s.root, 'no-policy') },
    };
    const trusted = memdir.resolveMemoryDir(environment);
    expect(trusted.source).toBe('local');
    expect(memdir.canWriteWithoutPrompt(join(localDir, 'x.md'), trusted)).toBe(true);
    expect(memdir.canWriteWithoutPrompt(join(s.home, '.ssh', 'config'), trusted)).toBe(false);
    const fromEnv = memdir.resolveMemoryDir({
      ...environment,
      env: { ...environment.env, ENGRAM_MEMORY_DIR: envDir },
    });
    expect(fromEnv.path).toBe(envDir);
    expect(memdir.canWriteWithoutPrompt(join(envDir, 'x.md'), fromEnv)).toBe(false);
  });

  it('refuses bad configured paths with an error naming the source', async () => {
    const s = sandbox();
    const bad = [
      '/',
      '/x',
      '~',
      '~/',
      '~/.',
      '~/..',
      'C:',
      'C:\\',
      '\\\\fileserver\\share',
      '//fileserver/share',
      'relative/dir',
    ];
    const runs = await Promise.all(
      bad.map((value) => engramAsync(s, ['path', '--json'], { ENGRAM_MEMORY_DIR: value })),
    );
    runs.forEach((r, i) => {
      expect(r.code, bad[i]).not.toBe(0);
      expect(r.stderr, bad[i]).toContain('ENGRAM_MEMORY_DIR');
    });
    const nul = engram(s, ['path', '--memory-dir', 'relative/mem']);
    expect(nul.code).not.toBe(0);
    expect(nul.stderr).toMatch(/--memory-dir/);
    writeFileSync(join(s.engramHome, 'settings.json'), JSON.stringify({ memoryDirectory: '~' }));
    const user = engram(s, ['path']);
    expect(user.code).not.toBe(0);
    expect(user.stderr).toContain(join(s.engramHome, 'settings.json'));
    // ~/x expands.
    writeFileSync(
      join(s.engramHome, 'settings.json'),
      JSON.stringify({ memoryDirectory: '~/mem-ok' }),
    );
    expect(json(engram(s, ['path', '--json'])).path).toBe(join(s.home, 'mem-ok'));
  });
});
