import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspace } from './support.js';

describe('agent memory is isolated', () => {
  it('each agent recalls only its own memories; the main recall sees neither, an agent never the main', async () => {
    const w = await workspace();
    await w.add(
      'reviewer',
      'Reviewer migrations',
      'Reviewer flags database migrations without tests',
    );
    await w.add(
      'planner',
      'Planner migrations',
      'Planner splits database migrations into two deploys',
      'project',
    );
    await w.add(
      'planner',
      'Planner rollback',
      'Planner writes a rollback plan for database migrations',
      'user',
    );
    await w.add(
      undefined,
      'Main migrations',
      'Database migrations run with the advisory lock held',
    );

    expect(await w.recalled('database migrations', 'reviewer')).toEqual(['reviewer-migrations.md']);
    // Each planner memory answers a part of this prompt of its own (two that add nothing to each
    // other would not both be recalled).
    expect(
      await w.recalled('database migrations: the deploys and the rollback', 'planner'),
    ).toEqual(['planner-migrations.md', 'planner-rollback.md']);
    expect(await w.recalled('database migrations')).toEqual(['main-migrations.md']);
    // An agent with no memory on the topic gets nothing, not the main memory.
    expect(await w.recalled('database migrations', 'tester')).toEqual([]);

    const list = await w.json<{ memories: Array<{ file: string; layer: string }> }>([
      'list',
      '--agent',
      'planner',
    ]);
    expect(list.memories.map((m) => [m.file, m.layer]).sort()).toEqual([
      ['planner-migrations.md', 'agent:planner/project'],
      ['planner-rollback.md', 'agent:planner/user'],
    ]);
    const main = await w.json<{ memories: Array<{ file: string }> }>(['list']);
    expect(main.memories.map((m) => m.file)).toEqual(['main-migrations.md']);
    const audit = await w.json<{ ok: boolean; layer: string }>(['audit', '--agent', 'reviewer']);
    expect(audit).toMatchObject({ ok: true, layer: 'agent:reviewer/local' });
  });

  it('puts each scope where it belongs and keeps the local one out of git', async () => {
    const w = await workspace();
    await w.add('reviewer', 'Local note', 'Reviewer note for this checkout only');
    await w.add('reviewer', 'Shared note', 'Reviewer note the team shares', 'project');
    await w.add('reviewer', 'Personal note', 'Reviewer note that follows me everywhere', 'user');
    const paths = await w.json<Record<string, string>>(['agent', 'path', 'reviewer']);
    expect(paths.local).toBe(join(w.repo, '.engram', 'agent-memory-local', 'reviewer'));
    expect(paths.project).toBe(join(w.repo, '.engram', 'agent-memory', 'reviewer'));
    expect(paths.user).toBe(join(w.home, '.engram', 'agent-memory', 'reviewer'));
    expect(readFileSync(join(paths.local!, 'local-note.md'), 'utf8')).toContain(
      'this checkout only',
    );
    expect(readFileSync(join(paths.user!, 'personal-note.md'), 'utf8')).toContain('everywhere');
    const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], {
      cwd: w.repo,
      encoding: 'utf8',
    });
    expect(status).toContain('.engram/agent-memory/reviewer/shared-note.md');
    expect(status).not.toContain('agent-memory-local');
    const agents = await w.json<{
      agents: Array<{ agent: string; memories: Record<string, number> }>;
    }>(['agent', 'list']);
    expect(agents.agents).toEqual([
      expect.objectContaining({ agent: 'reviewer', memories: { local: 1, project: 1, user: 1 } }),
    ]);
  });

  it('refuses agent names that are not one plain path segment', async () => {
    const w = await workspace();
    for (const bad of ['../x', 'x/y', '.', '..', 'a\\b', '.hidden']) {
      const run = await w.cli([
        'add',
        '--agent',
        bad,
        '--type',
        'user',
        '--name',
        'n',
        '--description',
        'd',
        '--body',
        'b',
      ]);
      expect(run.code, bad).toBe(2);
      expect(run.stderr, bad).toMatch(/invalid agent name/);
      const recall = await w.cli([
        'recall',
        'anything at all',
        '--agent',
        bad,
        '--model',
        'offline',
      ]);
      expect(recall.code, bad).toBe(2);
    }
    const nul = await w.cli(['agent', 'path', 'a\u0001b']);
    expect(nul.code).toBe(2);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: w.repo, encoding: 'utf8' })).toBe(
      '',
    );
  });
});
