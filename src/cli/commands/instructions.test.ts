import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INSTRUCTIONS_HEADING } from '../../instructions/index.js';
import { runCaptured, testIo } from '../test-io.js';

/** A monorepo in the test's own home folder, with one managed file and one user file. */
function setup() {
  const io = testIo();
  const home = realpathSync(io.homedir);
  const write = (rel: string, text: string) => {
    const path = join(home, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  };
  mkdirSync(join(home, 'repo/.git'), { recursive: true });
  write('managed/AGENTS.md', 'Policy: no secrets in logs.');
  write('.engram/AGENTS.md', 'I like short answers.');
  write('repo/CLAUDE.md', 'Root rules. @docs/style.md\n<!-- maintainer note -->\n');
  write('repo/docs/style.md', 'Two-space indent.');
  write(
    'repo/.claude/rules/react.md',
    '---\npaths: ["src/components/**"]\n---\nFunction components only.',
  );
  write('repo/packages/app/CLAUDE.local.md', 'My staging URL.');
  write('repo/packages/app/AGENTS.md', 'x'.repeat(50_000));
  return { io: { ...io, homedir: home, cwd: home }, home };
}

describe('engram instructions', () => {
  it('lists files in load order with type and size, then the assembled section', async () => {
    const { io, home } = setup();
    const run = await runCaptured(['instructions', '--cwd', 'repo/packages/app'], io);
    expect(run.code).toBe(0);
    const order = run.stdout.split('\n').filter((l) => /^\s+\d+\s{2}/.test(l));
    expect(order.map((l) => l.match(/\s(\/\S+)/)?.[1])).toEqual([
      join(home, 'managed/AGENTS.md'),
      join(home, '.engram/AGENTS.md'),
      join(home, 'repo/docs/style.md'),
      join(home, 'repo/CLAUDE.md'),
      join(home, 'repo/packages/app/AGENTS.md'),
      join(home, 'repo/packages/app/CLAUDE.local.md'),
    ]);
    expect(order[0]).toMatch(/^\s+1\s+managed\s+27 B\s/);
    expect(order[2]).toContain(`(included by ${join(home, 'repo/CLAUDE.md')})`);
    expect(order[4]).toMatch(/project\s+48\.8 KB .*too large: 50,000 characters/);
    expect(order[5]).toMatch(/local\s+15 B/);
    expect(run.stdout).toContain('Conditional rules (load when a matching file is touched');
    const section = run.stdout.slice(run.stdout.indexOf(INSTRUCTIONS_HEADING));
    expect(section.indexOf('Policy: no secrets')).toBeLessThan(section.indexOf('My staging URL.'));
    expect(section).not.toContain('maintainer note');
    expect(section).not.toContain('Function components only.');
    expect(run.stderr).toContain('warning:');
    expect(run.stderr).toContain('50,000');
  });

  it('--json gives files, conditional rules, the prompt and reports', async () => {
    const { io, home } = setup();
    const run = await runCaptured(['instructions', '--cwd', 'repo', '--json'], io);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const json = JSON.parse(run.stdout);
    expect(json.cwd).toBe(join(home, 'repo'));
    expect(json.for).toBeNull();
    expect(json.files.map((f: { type: string }) => f.type)).toEqual([
      'managed',
      'user',
      'project',
      'project',
    ]);
    expect(json.files[2]).toEqual({
      path: join(home, 'repo/docs/style.md'),
      realPath: join(home, 'repo/docs/style.md'),
      type: 'project',
      parent: join(home, 'repo/CLAUDE.md'),
      depth: 1,
      globs: null,
      conditional: false,
      size: 17,
      chars: 17,
      tooLarge: false,
      contentDiffersFromDisk: false,
      content: 'Two-space indent.',
    });
    expect(json.files[3].contentDiffersFromDisk).toBe(true);
    expect(json.files[3].content).toBe('Root rules. @docs/style.md\n');
    expect(json.conditionalRules).toHaveLength(1);
    expect(json.conditionalRules[0].globs).toEqual(['src/components/**']);
    expect(json.prompt.startsWith(INSTRUCTIONS_HEADING)).toBe(true);
    expect(json.reports).toEqual([]);
  });

  it('--for adds the conditional rules that apply to that file', async () => {
    const { io, home } = setup();
    const hit = JSON.parse(
      (
        await runCaptured(
          ['instructions', '--cwd', 'repo', '--json', '--for', 'src/components/Button.tsx'],
          io,
        )
      ).stdout,
    );
    expect(hit.for).toBe('src/components/Button.tsx');
    expect(hit.files.at(-1).path).toBe(join(home, 'repo/.claude/rules/react.md'));
    expect(hit.files.at(-1).conditional).toBe(true);
    expect(hit.prompt).toContain('Function components only.');
    expect(hit.prompt).toContain('applies to files matching src/components/**');
    const miss = JSON.parse(
      (await runCaptured(['instructions', '--cwd', 'repo', '--json', '--for', 'src/lib/x.ts'], io))
        .stdout,
    );
    expect(miss.files).toHaveLength(4);
    expect(miss.prompt).not.toContain('Function components only.');
    const text = await runCaptured(['instructions', '--cwd', 'repo', '--for', 'src/lib/x.ts'], io);
    expect(text.stdout).toContain('Conditional rules that do not apply to src/lib/x.ts:');
  });

  it('reports a refused include and exits 3 for a missing --cwd', async () => {
    const { io } = setup();
    writeFileSync(
      join(io.homedir, 'repo/CLAUDE.md'),
      '@../../../../etc/hostname\n@~/notes.md\n@~/.ssh/config.txt',
    );
    writeFileSync(join(io.homedir, 'notes.md'), 'home notes');
    mkdirSync(join(io.homedir, '.ssh'));
    writeFileSync(join(io.homedir, '.ssh/config.txt'), 'SSH-SECRET');
    const run = await runCaptured(['instructions', '--cwd', 'repo'], io);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/warning: \/etc\/hostname: Refused/);
    expect(run.stderr).toContain(`warning: ${join(io.homedir, '.ssh/config.txt')}: Refused`);
    // A project file's include from outside the project waits for the user's say-so.
    expect(run.stderr).toContain(`warning: ${join(io.homedir, 'notes.md')}: Refused`);
    expect(run.stderr).toContain('allowExternalIncludes');
    expect(run.stdout).not.toContain('home notes');
    expect(run.stdout).not.toContain('SSH-SECRET');
    writeFileSync(
      join(io.homedir, '.engram/settings.json'),
      JSON.stringify({ allowExternalIncludes: [io.homedir] }),
    );
    const allowed = await runCaptured(['instructions', '--cwd', 'repo'], io);
    expect(allowed.stdout).toContain('home notes');
    // Credential locations stay out even inside an allowed folder.
    expect(allowed.stdout).not.toContain('SSH-SECRET');
    const missing = await runCaptured(['instructions', '--cwd', 'nope'], io);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('No such directory');
    const notDir = await runCaptured(['instructions', '--cwd', 'repo/CLAUDE.md'], io);
    expect(notDir.code).toBe(3);
    expect(notDir.stderr).toContain('Not a directory');
  });

  it('says so when nothing loads', async () => {
    const io = testIo();
    // A file name nobody uses keeps the ancestors of the temp folder out of this test.
    mkdirSync(join(io.homedir, '.engram'), { recursive: true });
    writeFileSync(
      join(io.homedir, '.engram/settings.json'),
      JSON.stringify({ instructionFiles: ['ENGRAM-TEST-NONE.md'] }),
    );
    const run = await runCaptured(['instructions'], io);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`No instruction files load for ${io.homedir}.\n`);
    const json = JSON.parse((await runCaptured(['instructions', '--json'], io)).stdout);
    expect(json.files).toEqual([]);
    expect(json.prompt).toBe('');
  });
});
