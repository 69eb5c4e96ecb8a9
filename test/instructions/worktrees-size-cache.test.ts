import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { instructions, json, rel, sandbox } from './support.js';

describe('worktrees, size, cache', () => {
  it('a nested worktree skips the main checkout CLAUDE.md but keeps its CLAUDE.local.md', () => {
    const s = sandbox();
    // A hand-made linked worktree, laid out as `git worktree add .claude/worktrees/feature` does.
    mkdirSync(join(s.root, 'main/.git/worktrees/feature'), { recursive: true });
    s.write('main/.git/HEAD', 'ref: refs/heads/main\n');
    s.write('main/.git/worktrees/feature/commondir', '../..\n');
    s.write('main/.git/worktrees/feature/HEAD', 'ref: refs/heads/feature\n');
    s.write('main/CLAUDE.md', 'MAIN-CHECKED-IN');
    s.write('main/CLAUDE.local.md', 'MAIN-LOCAL-NOTES');
    s.write('main/.claude/CLAUDE.md', 'MAIN-DOT-CLAUDE');
    s.write(
      'main/.claude/worktrees/feature/.git',
      `gitdir: ${join(s.root, 'main/.git/worktrees/feature')}\n`,
    );
    s.write('main/.claude/worktrees/feature/CLAUDE.md', 'WORKTREE-COPY');
    const out = json(s, join(s.root, 'main/.claude/worktrees/feature'));
    expect(out.prompt).not.toContain('MAIN-CHECKED-IN');
    expect(out.prompt).not.toContain('MAIN-DOT-CLAUDE');
    // Each skipped file is named once, though `.claude/CLAUDE.md` is reachable from two folders.
    const skipped = out.reports.filter((r) => /this worktree has its own copy/.test(r.message));
    expect(skipped.map((r) => r.path.slice(s.root.length + 1)).sort()).toEqual([
      'main/.claude/CLAUDE.md',
      'main/CLAUDE.md',
    ]);
    expect(out.prompt).toContain('MAIN-LOCAL-NOTES');
    expect(out.prompt).toContain('WORKTREE-COPY');
    expect(rel(s, out.files)).toEqual([
      'main/CLAUDE.local.md',
      'main/.claude/worktrees/feature/CLAUDE.md',
    ]);
  });

  it('a 50,000-character file loads and is reported as too large with its size', () => {
    const s = sandbox();
    const text = 'Ünïcödé guidance line.\n'.repeat(2174).slice(0, 50_000);
    s.write('proj/CLAUDE.md', text);
    const out = json(s, join(s.root, 'proj'));
    const f = out.files.find((x) => x.path.endsWith('proj/CLAUDE.md'));
    expect(f?.tooLarge).toBe(true);
    expect(f?.chars).toBe(50_000);
    expect(out.prompt).toContain(text.trim().slice(-200));
    const report = out.reports.find((r) => r.path === f?.path);
    expect(report?.severity).toBe('warning');
    expect(report?.message).toMatch(/50,?000/);
    const plain = instructions(s, join(s.root, 'proj'));
    expect(plain.stdout).toMatch(/too large/i);
  });

  it('the library caches per process and reloads after an explicit invalidation', async () => {
    const s = sandbox();
    const proj = join(s.root, 'proj');
    s.write('proj/AGENTS.md', 'VERSION-ONE');
    const lib = await import('engram/instructions');
    const environment = {
      cwd: proj,
      homedir: s.home,
      env: { ENGRAM_HOME: s.engramHome, ENGRAM_MANAGED_DIR: s.managed },
    };
    const first = await lib.loadInstructions({ environment });
    expect(first.prompt).toContain('VERSION-ONE');
    s.write('proj/AGENTS.md', 'VERSION-TWO');
    expect((await lib.loadInstructions({ environment })).prompt).toContain('VERSION-ONE');
    lib.invalidateInstructions(environment, 'compact');
    const after = await lib.loadInstructions({ environment });
    expect(after.prompt).toContain('VERSION-TWO');
  });

  it('--cwd on a missing folder is a clear non-zero error', () => {
    const s = sandbox();
    const r = instructions(s, join(s.root, 'no-such-folder'));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/no such directory/i);
  });
});
