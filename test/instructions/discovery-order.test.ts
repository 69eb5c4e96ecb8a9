import { chmodSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { instructions, json, type Out, rel, sandbox } from './support.js';

describe('discovery and order', () => {
  it('monorepo repo/packages/app: managed, user, then root → package, local after project', () => {
    const s = sandbox();
    s.write('managed/CLAUDE.md', 'Managed: never push to prod on Fridays.');
    s.write('managed/AGENTS.md', 'Managed: log every deploy.');
    s.write('engram-home/AGENTS.md', 'User: reply in British English.');
    s.write('home/.claude/CLAUDE.md', 'User: prefer pnpm.');
    mkdirSync(join(s.root, 'repo', '.git'), { recursive: true });
    s.write('repo/AGENTS.md', 'Root agents: Go 1.23 backend.');
    s.write('repo/CLAUDE.md', 'Root claude: run make lint.');
    s.write('repo/.claude/CLAUDE.md', 'Root dot-claude file.');
    s.write('repo/.claude/rules/db/migrations.md', 'Rule: migrations are reversible.');
    s.write('repo/CLAUDE.local.md', 'Root local: my sandbox DB is db-7.');
    s.write('repo/packages/app/AGENTS.md', 'App agents: Svelte 5.');
    s.write('repo/packages/app/CLAUDE.local.md', 'App local: port 5174.');
    s.write('repo/packages/app/AGENTS.override.md', 'App override: skip e2e locally.');
    s.write('repo/packages/app/.claude/rules/style.md', 'App rule: tabs.');

    const out = json(s, join(s.root, 'repo/packages/app'));
    expect(rel(s, out.files)).toEqual([
      'managed/AGENTS.md',
      'managed/CLAUDE.md',
      'engram-home/AGENTS.md',
      'home/.claude/CLAUDE.md',
      'repo/AGENTS.md',
      'repo/CLAUDE.md',
      'repo/.claude/CLAUDE.md',
      'repo/.claude/rules/db/migrations.md',
      'repo/CLAUDE.local.md',
      'repo/packages/app/AGENTS.md',
      'repo/packages/app/.claude/rules/style.md',
      'repo/packages/app/CLAUDE.local.md',
      'repo/packages/app/AGENTS.override.md',
    ]);
    const types = Object.fromEntries(
      out.files.map((f) => [f.path.slice(s.root.length + 1), f.type]),
    );
    expect(types['managed/CLAUDE.md']).toBe('managed');
    expect(types['home/.claude/CLAUDE.md']).toBe('user');
    expect(types['repo/CLAUDE.md']).toBe('project');
    expect(types['repo/packages/app/CLAUDE.local.md']).toBe('local');

    // The assembled section: an override instruction, then each file as "Contents of <path> (…):".
    const prompt = out.prompt;
    const firstContents = prompt.indexOf('Contents of ');
    expect(prompt.slice(0, firstContents)).toMatch(/overrid/i);
    let last = -1;
    for (const f of out.files) {
      const at = prompt.indexOf(`Contents of ${f.path} (`);
      expect(at, f.path).toBeGreaterThan(last);
      last = at;
    }
    expect(prompt.indexOf('Managed: log every deploy.')).toBeLessThan(
      prompt.indexOf('App override: skip e2e locally.'),
    );

    // Plain output: every file in order with type and size, then the section.
    const plain = instructions(s, join(s.root, 'repo/packages/app'));
    expect(plain.code).toBe(0);
    const appLocal = plain.stdout
      .split('\n')
      .find((l) => l.includes('packages/app/CLAUDE.local.md'));
    expect(appLocal).toMatch(/local/);
    expect(appLocal).toMatch(/\d+(\.\d+)? (B|KB)/);
    expect(plain.stdout.indexOf('repo/AGENTS.md')).toBeLessThan(
      plain.stdout.indexOf('packages/app/AGENTS.md'),
    );
    expect(plain.stdout).toContain('Root claude: run make lint.');
  });

  it('the same file reached twice loads once (symlink, @AGENTS.md inside CLAUDE.md)', () => {
    const s = sandbox();
    s.write('proj/AGENTS.md', 'Shared agent rules: use uv for Python.');
    s.write('proj/CLAUDE.md', 'Claude extras.\n@AGENTS.md\n');
    s.write('other/AGENTS.md', 'Other project rules.');
    symlinkSync(join(s.root, 'other/AGENTS.md'), join(s.root, 'other/CLAUDE.md'));
    const a = json(s, join(s.root, 'proj'));
    expect(a.files.filter((f) => f.content.includes('use uv for Python'))).toHaveLength(1);
    expect(a.prompt.split('use uv for Python').length).toBe(2);
    const b = json(s, join(s.root, 'other'));
    expect(b.prompt.split('Other project rules.').length).toBe(2);
  });

  it('configurable file names and user excludes (managed never excluded)', () => {
    const s = sandbox();
    s.write('managed/AGENTS.md', 'Managed stays.');
    s.write('proj/AGENTS.md', 'agents file');
    s.write('proj/CLAUDE.md', 'claude file');
    s.write('proj/vendor/lib/CLAUDE.md', 'vendored rules');
    s.write('engram-home/settings.json', JSON.stringify({ instructionFiles: ['AGENTS.md'] }));
    expect(rel(s, json(s, join(s.root, 'proj')).files)).toEqual([
      'managed/AGENTS.md',
      'proj/AGENTS.md',
    ]);
    s.write(
      'engram-home/settings.json',
      JSON.stringify({ instructionExcludes: ['**/vendor/**', `${s.root}/managed/**`] }),
    );
    const out = json(s, join(s.root, 'proj/vendor/lib'));
    expect(rel(s, out.files)).toEqual(['managed/AGENTS.md', 'proj/AGENTS.md', 'proj/CLAUDE.md']);
  });

  it('never throws on an unreadable entry: it is skipped and reported', () => {
    const s = sandbox();
    mkdirSync(join(s.root, 'proj/CLAUDE.md'), { recursive: true }); // a folder named like a file
    symlinkSync(join(s.root, 'nowhere.md'), join(s.root, 'proj/AGENTS.md')); // dangling link
    s.write('proj/CLAUDE.local.md', 'still loads');
    chmodSync(s.write('proj/AGENTS.override.md', 'LOCKED-AWAY'), 0o000); // unreadable, even for root
    const r = instructions(s, join(s.root, 'proj'), ['--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Out;
    expect(rel(s, out.files)).toEqual(['proj/CLAUDE.local.md']);
    expect(out.reports.some((x) => x.path === join(s.root, 'proj/CLAUDE.md'))).toBe(true);
    expect(out.prompt).not.toContain('LOCKED-AWAY');
    const locked = out.reports.find((x) => x.path === join(s.root, 'proj/AGENTS.override.md'));
    expect(locked?.kind).toBe('unreadable');
  });
});
