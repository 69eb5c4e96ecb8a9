import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCaptured, testIo } from '../../cli/test-io.js';
import { parseLabeledSet } from './labeled-set.js';
import { runRecallSet } from './run-set.js';

const NOW = Date.UTC(2026, 10, 1);
const SETS = join(import.meta.dirname, '..', '..', '..', 'eval', 'recall-sets');

const project = [
  {
    file: 'integration.md',
    type: 'project',
    description: 'Integration tests need the database from docker compose up db first',
  },
  {
    file: 'migrations.md',
    type: 'project',
    description: 'Knex migrations live in db/migrations; never edit one that already ran',
  },
];
const kustomize = {
  scope: 'user',
  type: 'user',
  description: 'User writes Kubernetes manifests as kustomize overlays, never raw Helm templates',
};
const prompts = [
  { prompt: 'write kustomize overlays for the worker deployment', gold: [] },
  { prompt: 'run the integration tests against the docker compose database', gold: [] },
];

const selectedFor = (report: Awaited<ReturnType<typeof runRecallSet>>, prompt: string) =>
  report.outcomes.find((o) => o.prompt === prompt)!.selected;

describe('engram eval recall over a project and a user layer', () => {
  it('recalls a user-layer memory beside the project ones and names it user:<file>', async () => {
    const set = parseLabeledSet(
      {
        memories: [...project, { file: 'kustomize.md', ...kustomize }],
        prompts: [{ ...prompts[0]!, gold: ['user:kustomize.md'] }],
      },
      'two-layers',
    );
    const report = await runRecallSet(set, { nowMs: NOW });
    expect(report.layers).toEqual({ project: 2, user: 1 });
    expect(selectedFor(report, prompts[0]!.prompt)).toContain('user:kustomize.md');
    expect(report.goldRecalled).toBe(1);
  });

  it('lets the project memory win a name clash: the user one behind it is never recalled', async () => {
    const clash = (userFile: string) =>
      parseLabeledSet(
        {
          memories: [
            ...project,
            { ...project[1]!, file: 'kustomize.md' },
            { file: userFile, ...kustomize },
          ],
          prompts,
        },
        'clash',
      );
    // Positive control: under a file name of its own the user memory answers this prompt.
    const apart = await runRecallSet(clash('overlays.md'), { nowMs: NOW });
    expect(selectedFor(apart, prompts[0]!.prompt)).toContain('user:overlays.md');
    const shadowed = await runRecallSet(clash('kustomize.md'), { nowMs: NOW });
    const all = shadowed.outcomes.flatMap((o) => o.selected);
    expect(all).not.toContain('user:kustomize.md');
    expect(selectedFor(shadowed, prompts[1]!.prompt)).toContain('integration.md');
  });

  it('runs a set without user memories on the project directory alone', async () => {
    const set = parseLabeledSet(
      { memories: project, prompts: [{ ...prompts[1]!, gold: ['integration.md'] }] },
      'project-only',
    );
    const report = await runRecallSet(set, { nowMs: NOW });
    expect(report.layers).toEqual({ project: 2 });
    expect(report.outcomes[0]!.selected).toEqual(['integration.md']);
  });

  it('writes no memory into the ENGRAM_HOME of the person running it', async () => {
    const io = testIo();
    const r = await runCaptured(
      ['eval', 'recall', '--set', join(SETS, 'layers-user.json'), '--json'],
      io,
    );
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.layers).toEqual({ project: 6, user: 5 });
    expect(report.goldTotal).toBe(10);
    expect(await readdir(io.homedir).catch(() => [])).not.toContain('.engram');
  });
});

describe('engram eval recall over several sets', () => {
  it('runs every set of a directory by name, one line each, and --check fails when one misses', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'engram-sets-'));
    const question = prompts[1]!.prompt;
    const set = (gold: string[]) =>
      JSON.stringify({ memories: project, prompts: [{ prompt: question, gold }] });
    await writeFile(join(dir, 'b-right.json'), set(['integration.md']));
    await writeFile(join(dir, 'a-wrong.json'), set([]));
    await writeFile(join(dir, 'notes.txt'), 'not a set');
    const json = await runCaptured(['eval', 'recall', '--set', dir, '--json'], testIo());
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report.sets.map((r: { set: string }) => r.set)).toEqual(['a-wrong', 'b-right']);
    expect(report.sets.map((r: { pass: boolean }) => r.pass)).toEqual([false, true]);
    expect(report.pass).toBe(false);
    const table = await runCaptured(['eval', 'recall', '--set', dir, '--check'], testIo());
    expect(table.code).toBe(1);
    expect(table.stdout).toMatch(/a-wrong .*MISSED: precision, silence/);
    expect(table.stdout).toMatch(/b-right .*PASS/);
    const one = await runCaptured(
      ['eval', 'recall', '--set', join(dir, 'b-right.json'), '--json', '--check'],
      testIo(),
    );
    expect(one.code, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject({ set: 'b-right', pass: true });
    // --cwd, as every command takes it: a relative --set is read from there.
    const fromCwd = await runCaptured(
      ['eval', 'recall', '--set', 'b-right.json', '--cwd', dir, '--json'],
      testIo({ cwd: '/' }),
    );
    expect(fromCwd.code, fromCwd.stderr).toBe(0);
    expect(JSON.parse(fromCwd.stdout)).toMatchObject({ set: 'b-right', pass: true });
  });

  it('prints n/a (JSON null) for a share of nothing: no selection, no gold, no unrelated prompt', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'engram-sets-'));
    // Gold the ranker cannot reach (no word shared): nothing is selected at all.
    const unreachable = { prompt: 'zzqx vvwy', gold: ['integration.md'] };
    await writeFile(
      join(dir, 'none.json'),
      JSON.stringify({ memories: project, prompts: [unreachable] }),
    );
    const json = await runCaptured(
      ['eval', 'recall', '--set', join(dir, 'none.json'), '--json'],
      testIo(),
    );
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({ selected: 0, precision: null, recall: 0, silence: null });
    // Nothing selected is judged by the recall it costs, never as a missed (or met) precision.
    expect(report.missed).toEqual(['recall']);
    const text = await runCaptured(['eval', 'recall', '--set', join(dir, 'none.json')], testIo());
    expect(text.stdout).toMatch(/precision of what was selected {2}n\/a {2}\(0\/0;/);
    expect(text.stdout).toMatch(/unrelated prompts → nothing {5}n\/a {2}\(0\/0;/);
    await writeFile(
      join(dir, 'other.json'),
      JSON.stringify({ memories: project, prompts: [unreachable] }),
    );
    const table = await runCaptured(['eval', 'recall', '--set', dir], testIo());
    expect(table.stdout).toMatch(/none .* n\/a \(0\/0\)/);
    expect(table.stdout).not.toMatch(/1\.000 \(0\/0\)/);
  });

  it('says so when a directory holds no set, and when --set is missing', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'engram-sets-'));
    const none = await runCaptured(['eval', 'recall', '--set', empty], testIo());
    expect(none.code).toBe(3);
    expect(none.stderr).toMatch(/no labeled sets/);
    const missing = await runCaptured(['eval', 'recall'], testIo());
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--set/);
  });
});
