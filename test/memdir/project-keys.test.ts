import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { engram, gitRepo, json, type Sandbox, sandbox } from './support.js';

/** Claude Code's convention, the old engram project key: every non-alphanumeric becomes `-`. */
const oldKey = (path: string) => path.replace(/[^a-zA-Z0-9]/g, '-');

function add(s: Sandbox, cwd: string, name: string): void {
  const r = engram(
    s,
    [
      'add',
      '--type',
      'project',
      '--name',
      name,
      '--description',
      `about ${name}`,
      '--body',
      `${name} body`,
    ],
    { cwd },
  );
  expect(r.code, r.stderr).toBe(0);
}

function listed(s: Sandbox, cwd: string): string[] {
  const r = json<{ memories: Array<{ name?: string; file: string }> }>(
    engram(s, ['list', '--json'], { cwd }),
  );
  return r.memories.map((m) => m.name ?? m.file).sort();
}

function oldProject(s: Sandbox, repo: string): string {
  const mem = join(s.engramHome, 'projects', oldKey(repo), 'memory');
  mkdirSync(mem, { recursive: true });
  writeFileSync(
    join(mem, 'deploy-rules.md'),
    '---\nname: deploy rules\ndescription: deploys go through the staging gate\ntype: project\n---\nStaging first.\n',
  );
  writeFileSync(join(mem, 'MEMORY.md'), '- [deploy rules](deploy-rules.md) — staging gate\n');
  return mem;
}

describe('project keys that cannot collide', () => {
  it('gives my-app, my.app, my_app and my app four directories, each listing only its own memories', () => {
    const s = sandbox();
    const names = ['my-app', 'my.app', 'my_app', 'my app'];
    const repos = names.map((n) => gitRepo(join(s.root, 'src', n)));
    const paths = repos.map((cwd) => String(json(engram(s, ['path', '--json'], { cwd })).path));
    expect(new Set(paths).size).toBe(4);
    for (const p of paths) {
      expect(p.startsWith(join(s.engramHome, 'projects'))).toBe(true);
      // Readable: the sanitized root is still in the name, followed by a short hash.
      expect(p).toMatch(/-src-my-app-[0-9a-f]{8}\/memory$/);
    }
    for (const [i, cwd] of repos.entries()) add(s, cwd, `note of ${names[i]}`);
    for (const [i, cwd] of repos.entries()) expect(listed(s, cwd)).toEqual([`note of ${names[i]}`]);
  });

  it('moves an old-key directory that only this project can own, without losing a file', () => {
    const s = sandbox();
    const repo = gitRepo(join(s.root, 'work', 'shop-web'));
    const old = oldProject(s, repo);
    writeFileSync(join(old, 'notes.txt'), 'kept\n');
    const path = String(json(engram(s, ['path', '--json'], { cwd: repo })).path);
    expect(path).not.toBe(old);
    expect(existsSync(old)).toBe(false);
    expect(readdirSync(path).sort()).toEqual(['MEMORY.md', 'deploy-rules.md', 'notes.txt']);
    expect(readFileSync(join(path, 'notes.txt'), 'utf8')).toBe('kept\n');
    const marker = JSON.parse(readFileSync(join(path, '..', '.engram-project.json'), 'utf8'));
    expect(marker.root).toBe(repo);
    expect(listed(s, repo)).toEqual(['deploy rules']);
    // Idempotent: a second run keeps the same directory and its memories.
    expect(String(json(engram(s, ['path', '--json'], { cwd: repo })).path)).toBe(path);
    expect(listed(s, repo)).toEqual(['deploy rules']);
  });

  it('never moves an old-key directory another existing path could own, and says so', () => {
    const s = sandbox();
    const a = gitRepo(join(s.root, 'work', 'a-b'));
    const b = gitRepo(join(s.root, 'work', 'a.b'));
    const old = oldProject(s, a);
    for (const cwd of [a, b]) {
      const r = engram(s, ['list', '--json'], { cwd });
      expect(r.code, r.stderr).toBe(0);
      expect(json<{ memories: unknown[] }>(r).memories).toEqual([]);
      expect(r.stderr).toContain(old.slice(0, -'/memory'.length));
      expect(r.stderr).toMatch(/was not moved/);
    }
    expect(readdirSync(old).sort()).toEqual(['MEMORY.md', 'deploy-rules.md']);
  });

  it('never moves an old-key directory whose marker names another path', () => {
    const s = sandbox();
    const repo = gitRepo(join(s.root, 'work', 'api-server'));
    const old = oldProject(s, repo);
    writeFileSync(
      join(old, '..', '.engram-project.json'),
      JSON.stringify({ root: '/elsewhere/api/server' }),
    );
    expect(listed(s, repo)).toEqual([]);
    expect(readdirSync(old).sort()).toEqual(['MEMORY.md', 'deploy-rules.md']);
  });

  it('still gives a repository and its worktrees one directory', () => {
    const s = sandbox();
    const repo = gitRepo(join(s.root, 'work', 'my-lib'));
    const git = (...args: string[]) =>
      spawnSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@e', ...args], {
        encoding: 'utf8',
      });
    writeFileSync(join(repo, 'README.md'), 'x\n');
    expect(git('add', '.').status).toBe(0);
    expect(git('commit', '-qm', 'init').status).toBe(0);
    const wt = join(s.root, 'work', 'my-lib-feature');
    expect(git('worktree', 'add', '-q', wt).status).toBe(0);
    const main = json(engram(s, ['path', '--json'], { cwd: repo })).path;
    expect(json(engram(s, ['path', '--json'], { cwd: wt })).path).toBe(main);
    add(s, wt, 'made in the worktree');
    expect(listed(s, repo)).toEqual(['made in the worktree']);
  });
});
