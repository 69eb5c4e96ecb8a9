// The whole attack corpus through the real built CLI (`dist/cli/main.js` as child processes, HOME
// and ENGRAM_HOME in a temp world): every path form with every operation the CLI has, the race
// form, the wrapper-closing bodies through `recall` and the UserPromptSubmit hook, and the
// committed settings through `path`, `add`, `models check` and the hook. Afterwards nothing
// outside the allowed roots changed, no output carries the canary or an outside sentinel, every
// index line is one entry, and every positive control was accepted.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ScriptedModelServer, startScriptedModelServer } from 'engram/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapPool } from '../../src/util/pool.js';
import { type NodeRun, requireBuild, runCliProcess } from '../support/cli-process.js';
import { startFlipper } from '../support/folder-flipper.js';
import {
  BODY_FORMS,
  canaryFiles,
  commitSettings,
  INJECTED_ORDER,
  indexProblems,
  leaks,
  MIN_FORMS,
  POSITIVE_CONTROLS,
  RACE_FORMS,
  SETTINGS_FORMS,
  type Snapshot,
  setupWorld,
  snapshotDiff,
  snapshotOutside,
  type World,
  wrapperEscapes,
} from './attack-corpus.js';
import { attemptPathForms, type DoorTable, untried } from './attack-corpus-door.js';

/**
 * How the CLI performs each operation; an operation it lacks says so. `add --file` is its one
 * write, so it runs once for a form that lists both write and create; `revoke` (which rewrites a
 * file in place) runs too where the form names a file that exists.
 */
const addArgs = (f: string, body = 'corpus body', name = 'corpus note') => [
  'add',
  '--type',
  'project',
  '--name',
  name,
  '--description',
  `a corpus attempt: ${name}`,
  '--body',
  body,
  '--file',
  f,
];
const action = (name: string, args: (f: string) => string[], onlyExisting = false) => ({
  name,
  onlyExisting,
  run: async (f: string) => {
    const r = await runCliProcess(inDir(args(f)), w.env, w.project);
    return { ok: r.code === 0, output: `${r.stdout}\n${r.stderr}` };
  },
});
const CLI_DOOR: DoorTable = {
  read: [action('show', (f) => ['show', f])],
  write: [
    action('add', (f) => addArgs(f)),
    action('revoke', (f) => ['revoke', f, '--reason', 'corpus'], true),
  ],
  create: [action('add', (f) => addArgs(f))],
  delete: [action('rm', (f) => ['rm', f])],
  rename: { unsupported: 'the CLI has no rename or move command' },
};

let w: World;
let evil: ScriptedModelServer;
let before: Snapshot;
const outputs: Record<string, string> = {};
/** Every corpus form this door really attempted (the floor is asserted at the end). */
const attempted = new Set<string>();

const cli = async (label: string, args: string[], cwd = w.project): Promise<NodeRun> => {
  const r = await runCliProcess(args, w.env, cwd);
  outputs[label] = `${r.stdout}\n${r.stderr}`;
  return r;
};
const inDir = (args: string[]) => ['--dir', w.memory, ...args];

/** `engram hook <event>` with its JSON in a file (a file named by hand stays: the test removes it). */
async function hook(label: string, event: string, prompt: string, dirArgs: string[]) {
  const input = join(w.top, `hook-${label}.json`);
  await writeFile(
    input,
    JSON.stringify({
      session_id: `s-${label}`,
      transcript_path: join(w.top, 'no-transcript.jsonl'),
      cwd: w.project,
      hook_event_name: 'UserPromptSubmit',
      prompt,
    }),
  );
  const r = await cli(label, ['hook', event, ...dirArgs, '--input', input, '--no-model']);
  await rm(input, { force: true });
  return r;
}

beforeAll(async () => {
  requireBuild();
  w = await setupWorld('engram-cli-door-');
  // The repository is cloned with its settings before anything runs, as a user would have it.
  evil = await startScriptedModelServer();
  await commitSettings(w, SETTINGS_FORMS, evil.anthropicBaseURL);
  before = await snapshotOutside(w);
});
afterAll(async () => {
  await evil?.close();
  await w?.cleanup();
});

describe('the CLI door', () => {
  it('refuses every path form in every operation it has; nothing outside changes', async () => {
    const run = await attemptPathForms(w, CLI_DOOR);
    Object.assign(outputs, run.outputs);
    // Every path form has an operation the CLI performs (none is rename-only).
    expect(untried(run)).toEqual([]);
    for (const id of run.tried) attempted.add(id);
    expect(run.attempts.filter((a) => a.wronglyAccepted)).toEqual([]);
  }, 600_000);

  it('a folder flipped to a link while adds run lands nothing outside', async () => {
    const race = RACE_FORMS[0]!;
    attempted.add(race.id);
    const flipper = await startFlipper(join(w.memory, race.folder), w.outside);
    const runs = Array.from({ length: 8 }, (_, i) => `${race.folder}/r${i}.md`);
    const results = await mapPool(
      runs,
      4,
      async (file, i) => (await cli(`race:${i}`, inDir(addArgs(file)))).code,
    );
    const flips = await flipper.stop();
    // The flipper really ran during the adds; whatever was refused or landed, it landed inside.
    expect(flips).toBeGreaterThan(0);
    expect(results).toHaveLength(8);
  });

  it('accepts every positive control: create, read, rewrite, delete', async () => {
    for (const c of POSITIVE_CONTROLS) {
      const add = await cli(
        `control:${c.id}:create`,
        inDir([
          'add',
          '--type',
          'project',
          '--name',
          c.what,
          '--description',
          `control ${c.id}`,
          '--body',
          c.body,
          '--file',
          c.file,
        ]),
      );
      expect(add.code, add.stderr).toBe(0);
      const show = await cli(`control:${c.id}:read`, inDir(['show', c.file]));
      expect(show.stdout).toContain(c.body);
      expect(await readFile(join(w.memory, c.file), 'utf8')).toContain(c.body);
    }
    const [first, second] = POSITIVE_CONTROLS;
    const revoke = await cli('control:write', inDir(['revoke', first!.file, '--reason', 'done']));
    expect(revoke.code, revoke.stderr).toBe(0);
    const rm = await cli('control:delete', inDir(['rm', second!.file]));
    expect(rm.code, rm.stderr).toBe(0);
  });

  it('wrapper-closing bodies stay inside the memory wrapper in recall and the hook', async () => {
    for (const f of BODY_FORMS) {
      attempted.add(f.id);
      const r = await cli(
        `body:${f.id}:create`,
        inDir([
          'add',
          '--type',
          'project',
          '--name',
          `wrapper attack ${f.id}`,
          '--description',
          `deploy checklist for the wrapper attack ${f.id}`,
          '--body',
          f.body,
          '--file',
          f.file,
        ]),
      );
      expect(r.code, r.stderr).toBe(0);
    }
    const query = 'deploy checklist for the wrapper attack';
    const recall = await cli('body:recall', inDir(['recall', query]));
    const fired = await hook('body-hook', 'user-prompt-submit', query, ['--dir', w.memory]);
    const context = JSON.parse(fired.stdout).hookSpecificOutput?.additionalContext ?? '';
    for (const [name, text] of [
      ['recall', recall.stdout],
      ['hook', context],
    ] as const) {
      // The bodies were injected (else the check proves nothing), and stayed inside.
      expect(text.split(INJECTED_ORDER).length - 1, name).toBeGreaterThan(0);
      expect(wrapperEscapesOf(text), name).toEqual([]);
    }
  });

  it('committed settings naming ~/.ssh, a model, a base URL or hooks off change nothing', async () => {
    for (const f of SETTINGS_FORMS) attempted.add(f.id);
    {
      const path = await cli('settings:path', ['path', '--json']);
      const shown = JSON.parse(path.stdout) as { path: string; source: string };
      expect(shown.source).toBe('default');
      expect(shown.path.startsWith(join(w.engramHome, 'projects'))).toBe(true);
      for (const f of SETTINGS_FORMS) expect(path.stderr).toContain(`"${f.key}"`);
      const add = await cli('settings:add', [
        'add',
        '--type',
        'project',
        '--name',
        'cloned repo note',
        '--description',
        'where a save lands in a cloned repository',
        '--body',
        'lands in the default folder',
      ]);
      expect(add.code, add.stderr).toBe(0);
      expect(await readFile(join(shown.path, 'cloned-repo-note.md'), 'utf8')).toContain('lands');
      const models = await cli('settings:models', ['models', 'check', '--json']);
      expect(models.stdout).not.toMatch(/attacker-model|127\.0\.0\.1/);
      // autoMemoryEnabled:false from the repository does not silence the hook.
      const fired = await hook(
        'settings-hook',
        'user-prompt-submit',
        'where does a save land in a cloned repository',
        [],
      );
      expect(JSON.parse(fired.stdout).hookSpecificOutput?.additionalContext ?? '').toContain(
        'cloned-repo-note.md',
      );
      expect(evil.requests).toEqual([]);
    }
  });

  it('whole-directory commands over the links do not reach outside either', async () => {
    for (const args of [
      ['list', '--all'],
      ['index', '--rebuild'],
      ['index', '--show'],
      ['audit', '--fix'],
      ['doctor'],
      ['verify'],
      ['recall', 'secret victim hard target sentinel corpus outside'],
    ])
      await cli(`dir:${args.join(' ')}`, inDir(args));
    await hook('dir-hook', 'user-prompt-submit', 'secret victim hard target corpus', [
      '--dir',
      w.memory,
    ]);
  });

  it('afterwards: 0 outside changes, 0 leaks, 0 broken index lines', async () => {
    // The corpus may grow, never shrink: this door attempted at least MIN_FORMS forms.
    expect(attempted.size).toBeGreaterThanOrEqual(MIN_FORMS);
    const after = await snapshotOutside(w);
    expect(snapshotDiff(before, after)).toEqual([]);
    expect(leaks(w, outputs)).toEqual([]);
    expect(await canaryFiles(w, [w.memory, w.engramHome, w.project])).toEqual([]);
    expect(
      await indexProblems(w.memory, { movedFolders: RACE_FORMS.map((r) => r.folder) }),
    ).toEqual([]);
  });
});

const wrapperEscapesOf = (text: string) => wrapperEscapes(text, INJECTED_ORDER);
