import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEngram } from '../../src/runtime/index.js';
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

  it('sync-snapshot of an agent with no committed snapshot exits 3 (not found) and writes nothing', async () => {
    const w = await workspace();
    for (const argv of [
      ['agent', 'sync-snapshot', 'reviewr'],
      ['agent', 'sync-snapshot', 'reviewr', '--json'],
    ]) {
      const sync = await w.cli(argv);
      expect({ argv, code: sync.code }).toEqual({ argv, code: 3 });
      expect(sync.stderr).toMatch(/No committed snapshot for agent reviewr/);
      expect(sync.stdout).toBe('');
    }
    expect(existsSync(join(w.repo, '.engram', 'agent-memory-local', 'reviewr'))).toBe(false);
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

describe('agent folders in a cloned repository', () => {
  it('are never followed when committed as links: nothing is seeded, synced, saved or recalled through them', async () => {
    const w = await workspace();
    writeSnapshot(
      w.repo,
      'reviewer',
      { 'style-guide.md': 'Reviewer checks the house style guide for error messages' },
      '2026-01-10T00:00:00.000Z',
    );
    // The repository commits the local and the project agent folders as links to a folder outside.
    const outside = join(w.home, 'outside');
    mkdirSync(join(outside, 'reviewer'), { recursive: true });
    writeFileSync(
      join(outside, 'reviewer', 'planted.md'),
      '---\nname: planted\ndescription: style guide for error messages, outside sentinel\ntype: reference\n---\noutside sentinel\n',
    );
    symlinkSync(outside, join(w.repo, '.engram', 'agent-memory-local'));
    symlinkSync(outside, join(w.repo, '.engram', 'agent-memory'));
    const tree = () => readdirSync(outside, { recursive: true }).map(String).sort();
    const before = tree();

    const sync = await w.cli(['agent', 'sync-snapshot', 'reviewer', '--json']);
    expect(sync.code, sync.stderr).toBe(2);
    expect(sync.stderr).toMatch(/agent-memory-local.*symbolic link/);
    const recall = await w.cli(['recall', 'style guide', '--agent', 'reviewer', '--json']);
    expect(recall.code).toBe(2);
    expect(recall.stdout).not.toContain('outside sentinel');
    for (const scope of ['local', 'project']) {
      const add = await w.cli([
        'add',
        '--agent',
        'reviewer',
        '--scope',
        scope,
        '--type',
        'reference',
        '--name',
        'n',
        '--description',
        'd',
        '--body',
        'b',
      ]);
      expect(add.code, add.stderr).toBe(2);
    }
    expect(tree()).toEqual(before);

    // A library host's agent session draws on the agent's user layer alone.
    const engram = createEngram({
      cwd: w.repo,
      homedir: w.home,
      env: { ENGRAM_HOME: join(w.home, '.engram'), ENGRAM_MANAGED_DIR: join(w.home, 'managed') },
    });
    expect(engram.agentChain('reviewer').map((l) => l.scope)).toEqual(['user']);
    await expect(engram.prepareAgent('reviewer')).rejects.toThrow(/symbolic link/);
    expect(tree()).toEqual(before);
  });
});
