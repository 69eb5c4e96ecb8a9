import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { quickGitState } from './project-probe.js';

function git(cwd: string, ...args: string[]): string {
  return execFileSync(
    'git',
    [
      '-c',
      'user.name=t',
      '-c',
      'user.email=t@example.invalid',
      '-c',
      'init.defaultBranch=main',
      ...args,
    ],
    { cwd, encoding: 'utf8' },
  ).trim();
}

function repoWithCommit(): { repo: string; head: string } {
  const repo = mkdtempSync(join(tmpdir(), 'engram-quick-'));
  git(repo, 'init', '-q');
  writeFileSync(join(repo, 'a.ts'), 'export const a = 1;\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'one');
  return { repo, head: git(repo, 'rev-parse', 'HEAD') };
}

describe('the quick project key read without starting git', () => {
  it('names the commit HEAD points at, through a loose ref or one kept only in packed-refs', () => {
    const { repo, head } = repoWithCommit();
    expect(quickGitState(repo)).toContain(`:${head}:`);
    git(repo, 'pack-refs', '--all');
    expect(quickGitState(repo)).toContain(`:${head}:`);
  });

  it('moves with a new commit and names an unborn branch as such', () => {
    const { repo, head } = repoWithCommit();
    const before = quickGitState(repo);
    writeFileSync(join(repo, 'b.ts'), 'export const b = 2;\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'two');
    const after = quickGitState(repo);
    expect(after).not.toBe(before);
    expect(after).not.toContain(head);
    const empty = mkdtempSync(join(tmpdir(), 'engram-quick-unborn-'));
    git(empty, 'init', '-q');
    expect(quickGitState(empty)).toContain('refs/heads/main:unborn');
  });

  it('names a ref below a file (no such ref can exist) as unborn instead of failing', () => {
    const { repo } = repoWithCommit();
    // refs/heads/main is a file, so nothing can be below it: the read meets ENOTDIR.
    writeFileSync(join(repo, '.git', 'HEAD'), 'ref: refs/heads/main/sub\n');
    expect(quickGitState(repo)).toContain('refs/heads/main/sub:unborn');
  });

  it('reads a worktree through its commondir: its own HEAD, the shared refs', () => {
    const { repo } = repoWithCommit();
    git(repo, 'branch', 'side');
    const wt = join(mkdtempSync(join(tmpdir(), 'engram-quick-wt-')), 'wt');
    git(repo, 'worktree', 'add', '-q', wt, 'side');
    writeFileSync(join(wt, 'c.ts'), 'export const c = 3;\n');
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'on side');
    const sideHead = git(wt, 'rev-parse', 'HEAD');
    expect(quickGitState(wt)).toContain(`:${sideHead}:`);
    expect(quickGitState(repo)).not.toContain(sideHead);
  });
});
