import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspace, writeSnapshot } from './support.js';

describe('committed agent snapshots', () => {
  it('seed local memory on first use, then say prompt-update for a newer one and change nothing until sync', async () => {
    const w = await workspace();
    writeSnapshot(
      w.repo,
      'reviewer',
      { 'style-guide.md': 'Reviewer checks the house style guide for error messages' },
      '2026-01-10T00:00:00.000Z',
    );
    const before = await w.json<{ agents: Array<{ agent: string; snapshot: string }> }>([
      'agent',
      'list',
    ]);
    expect(before.agents).toEqual([
      expect.objectContaining({ agent: 'reviewer', snapshot: 'initialize' }),
    ]);

    // First use: the recall finds the seeded memory.
    expect(await w.recalled('style guide for error messages', 'reviewer')).toEqual([
      'style-guide.md',
    ]);
    const local = join(w.repo, '.engram', 'agent-memory-local', 'reviewer');
    expect(readFileSync(join(local, 'MEMORY.md'), 'utf8')).toContain('(style-guide.md)');
    const seeded = await w.json<{ agents: Array<{ snapshot: string }> }>(['agent', 'list']);
    expect(seeded.agents[0]!.snapshot).toBe('none');

    // The user edits the local copy; the team commits a newer snapshot.
    const edited = readFileSync(join(local, 'style-guide.md'), 'utf8').replace('house', 'our own');
    writeFileSync(join(local, 'style-guide.md'), edited);
    writeSnapshot(
      w.repo,
      'reviewer',
      {
        'style-guide.md': 'Reviewer checks the new style guide for error messages',
        'naming.md': 'Reviewer insists on kebab-case file names',
      },
      '2026-03-01T00:00:00.000Z',
    );
    const newer = await w.json<{ agents: Array<{ snapshot: string }> }>(['agent', 'list']);
    expect(newer.agents[0]!.snapshot).toBe('prompt-update');
    const recall = await w.cli([
      'recall',
      'style guide',
      '--agent',
      'reviewer',
      '--model',
      'offline',
    ]);
    expect(recall.stderr).toMatch(/sync-snapshot reviewer/);
    expect(readFileSync(join(local, 'style-guide.md'), 'utf8')).toBe(edited);
    expect(existsSync(join(local, 'naming.md'))).toBe(false);

    // Consent: the snapshot's files are taken, the index has one line each, the prompt stops.
    const sync = await w.json<{ imported: string[] }>(['agent', 'sync-snapshot', 'reviewer']);
    expect(sync.imported.sort()).toEqual(['naming.md', 'style-guide.md']);
    expect(readFileSync(join(local, 'style-guide.md'), 'utf8')).toContain('new style guide');
    const index = readFileSync(join(local, 'MEMORY.md'), 'utf8');
    expect(index.match(/\(style-guide\.md\)/g)).toHaveLength(1);
    expect(index.match(/\(naming\.md\)/g)).toHaveLength(1);
    const after = await w.json<{ agents: Array<{ snapshot: string }> }>(['agent', 'list']);
    expect(after.agents[0]!.snapshot).toBe('none');
    expect((await w.json<{ ok: boolean }>(['audit', '--agent', 'reviewer'])).ok).toBe(true);
  });

  it('never seeds over memory an agent already has: that is a prompt-update too', async () => {
    const w = await workspace();
    await w.add('planner', 'Own plan', 'Planner keeps its own notes on release trains');
    writeSnapshot(
      w.repo,
      'planner',
      { 'team.md': 'Planner follows the team release calendar' },
      '2026-02-02T00:00:00.000Z',
    );
    const list = await w.json<{ agents: Array<{ snapshot: string }> }>(['agent', 'list']);
    expect(list.agents[0]!.snapshot).toBe('prompt-update');
    expect(await w.recalled('which team calendar do we follow', 'planner')).toEqual([]);
  });
});
