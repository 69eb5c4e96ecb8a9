/**
 * The user layer: facts about the person, saved once under ENGRAM_HOME, hold in every project.
 * Memory resolves through a chain, project then user; a project's own memories never leave it.
 */
import { mkdtempSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CapturedRun, runCaptured, testIo } from '../../src/cli/test-io.js';

const envOf = (home: string) => ({
  ENGRAM_HOME: join(home, '.engram'),
  ENGRAM_MANAGED_DIR: join(home, 'managed'),
});

function machine() {
  const home = mkdtempSync(join(tmpdir(), 'engram-user-layer-'));
  const env = envOf(home);
  const run = (cwd: string, ...args: string[]): Promise<CapturedRun> =>
    runCaptured([...args, '--json'], testIo({ cwd, homedir: home, env }));
  return { home, run };
}

const add = (scope: string, name: string, description: string) => [
  'add',
  '--scope',
  scope,
  '--type',
  scope === 'user' ? 'user' : 'project',
  '--name',
  name,
  '--description',
  description,
  '--body',
  `${description}\n**Why:** said so.\n**How to apply:** always.`,
];

describe('the user memory layer', () => {
  it('recalls a user-scope memory saved in repository A in repository B, never A’s project memory', async () => {
    const { home, run } = machine();
    const repoA = join(home, 'repo-a');
    const repoB = join(home, 'repo-b');
    await mkdir(repoA);
    await mkdir(repoB);
    const saved = await run(
      repoA,
      ...add('user', 'answer in Chinese', 'User wants answers written in Chinese'),
    );
    expect(saved.code, saved.stderr).toBe(0);
    expect(JSON.parse(saved.stdout)).toMatchObject({
      layer: 'user',
      dir: join(home, '.engram', 'user', 'memory'),
    });
    const project = await run(
      repoA,
      ...add('project', 'chinese docs', 'Docs of repository A are written in Chinese first'),
    );
    expect(JSON.parse(project.stdout).layer).toBe('project');

    const log = join(home, 'recall-b.jsonl');
    const inB = await run(
      repoB,
      'recall',
      'which language should answers be written in',
      '--model',
      'offline',
      '--log',
      log,
    );
    expect(inB.code, inB.stderr).toBe(0);
    const selected = JSON.parse(inB.stdout).selected as Array<{ file: string; layer: string }>;
    expect(selected).toEqual([
      expect.objectContaining({ file: 'answer-in-chinese.md', layer: 'user' }),
    ]);

    const inA = await run(
      repoA,
      'recall',
      'which language should answers and docs be written in',
      '--model',
      'offline',
    );
    const inAFiles = (JSON.parse(inA.stdout).selected as Array<{ file: string }>).map(
      (m) => m.file,
    );
    expect(inAFiles).toContain('chinese-docs.md');
    const shown = JSON.parse((await run(repoB, 'show', 'answer-in-chinese')).stdout);
    expect(shown).toMatchObject({ file: 'answer-in-chinese.md', layer: 'user' });
    expect((await run(repoB, 'show', 'chinese-docs')).code).toBe(3);
    const stats = JSON.parse((await run(repoB, 'stats', '--log', log)).stdout);
    expect(stats.injectedByLayer).toEqual({ user: 1 });
    const listB = JSON.parse((await run(repoB, 'list')).stdout);
    expect(listB.memories.map((m: { file: string; layer: string }) => [m.file, m.layer])).toEqual([
      ['answer-in-chinese.md', 'user'],
    ]);
  });

  it('shows the user layer’s recall log in stats, in a repository with no memory folder', async () => {
    const { home, run } = machine();
    const repo = join(home, 'repo');
    await mkdir(repo);
    await run(repo, ...add('user', 'answer in Chinese', 'User wants answers written in Chinese'));
    // Before any recall wrote the user layer's log there is nothing of it to show.
    expect(JSON.parse((await run(repo, 'stats')).stdout).layers).toEqual([]);
    const recalled = await run(
      repo,
      'recall',
      'which language should answers be written in',
      '--model',
      'offline',
    );
    expect(JSON.parse(recalled.stdout).selected).toHaveLength(1);
    const stats = JSON.parse((await run(repo, 'stats')).stdout);
    // The project has no memory folder, so no log of its own: the recall is in the user log.
    expect(stats.recalls).toBe(0);
    expect(stats.layers).toEqual([
      expect.objectContaining({
        layer: 'user',
        log: join(home, '.engram', 'user', 'memory', '.engram', 'recall-metrics.jsonl'),
        recalls: 1,
        injectedByLayer: { user: 1 },
      }),
    ]);
    const text = await runCaptured(
      ['stats'],
      testIo({ cwd: repo, homedir: home, env: envOf(home) }),
    );
    expect(text.stdout).toMatch(/^Recall log of the user layer: .*recall-metrics\.jsonl$/m);
    expect(text.stdout).toMatch(/^injected by layer: user 1$/m);
  });

  it('revokes a user-layer memory found as show finds it (the project first), and rm names the layer that has it', async () => {
    const { home, run } = machine();
    const repo = join(home, 'repo');
    await mkdir(repo);
    await run(repo, ...add('user', 'editor', 'User edits in Emacs with evil mode'));
    await run(repo, ...add('user', 'editor now', 'User edits in Helix since 2026'));
    const revoked = await run(
      repo,
      'revoke',
      'editor',
      '--reason',
      'switched editors',
      '--superseded-by',
      'editor now',
    );
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout)).toEqual({
      file: 'editor.md',
      status: 'revoked',
      reason: 'switched editors',
      supersededBy: 'editor-now.md',
    });
    const shown = JSON.parse((await run(repo, 'show', 'editor')).stdout);
    expect([shown.layer, shown.status]).toEqual(['user', 'revoked']);
    // Saving the same memory again is refused: the revocation stays on record.
    const again = await run(repo, ...add('user', 'editor', 'User edits in Emacs after all'));
    expect([again.code, again.stderr]).toEqual([
      2,
      expect.stringMatching(/holds a revoked memory/),
    ]);
    // By its file name too: a name ending in .md is looked for in each layer, not assumed.
    const byFile = JSON.parse((await run(repo, 'show', 'editor-now.md')).stdout);
    expect([byFile.layer, byFile.status]).toEqual(['user', 'active']);
    await run(repo, ...add('user', 'pager', 'User is on the pager rota on Mondays'));
    const revokedByFile = await run(repo, 'revoke', 'pager.md', '--reason', 'left the rota');
    expect(revokedByFile.code, revokedByFile.stderr).toBe(0);
    const list = JSON.parse((await run(repo, 'list')).stdout);
    expect(list.memories.map((m: { file: string }) => m.file)).toEqual(['editor-now.md']);
    // The project layer has no such file: rm says where it is instead of only "no memory".
    const rm = await run(repo, 'rm', 'editor now');
    expect(rm.code).toBe(3);
    expect(rm.stderr).toContain('--scope user');
    expect((await run(repo, 'rm', 'editor now', '--scope', 'user')).code).toBe(0);
  });

  it('lets the project win on a name clash and audits each layer', async () => {
    const { home, run } = machine();
    const repo = join(home, 'repo');
    await mkdir(repo);
    await run(repo, ...add('user', 'style', 'User prefers tabs for indentation everywhere'));
    await run(
      repo,
      ...add('project', 'style', 'This repository indents with two spaces for indentation'),
    );
    const r = JSON.parse(
      (await run(repo, 'recall', 'what indentation should I use', '--model', 'offline')).stdout,
    );
    expect(r.selected.map((m: { file: string; layer: string }) => [m.file, m.layer])).toEqual([
      ['style.md', 'project'],
    ]);
    const audit = await run(repo, 'audit');
    expect(audit.code).toBe(0);
    expect(JSON.parse(audit.stdout).layers.map((l: { layer: string }) => l.layer)).toEqual([
      'project',
      'user',
    ]);
    expect((await run(repo, 'add', '--scope', 'team', '--type', 'user', '--name', 'x')).code).toBe(
      2,
    );
  });
});
