// The `@` include door against the attack corpus of #13. The corpus's memory folder stands in for
// a cloned repository: its checked-in links (outlink.md, outdir/, nest/up, latest/, dangling and
// hard links) are the repository's, and its CLAUDE.md names every path form as an include. The
// instruction files are loaded three ways: the library (`readInstructions`), the CLI
// (`engram instructions --json`) and the system prompt a host sends (`openMemory`). Nothing
// outside the project may be read (no canary, no outside sentinel, no loaded file outside), no
// file outside may change, and the positive controls (project files, nested and relative
// includes, home includes from the user's own CLAUDE.md) must still load.
import { lstatSync, realpathSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { openMemory } from 'engram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngramEnvironment } from '../../src/config/index.js';
import {
  extractIncludeReferences,
  type InstructionsResult,
  readInstructions,
  resolveIncludePath,
} from '../../src/instructions/index.js';
import { requireBuild, runCliProcess } from '../support/cli-process.js';
import { startFlipper } from '../support/folder-flipper.js';
import {
  leaks,
  MIN_FORMS,
  PATH_FORMS,
  POSITIVE_CONTROLS,
  setupWorld,
  snapshotDiff,
  snapshotOutside,
  type World,
} from './attack-corpus.js';

/** Attacks only an include can make: the ones issue #13 saw succeed through a cloned CLAUDE.md. */
const INCLUDE_FORMS: ReadonlyArray<{ id: string; path: (w: World) => string }> = [
  { id: 'tilde-claude-settings', path: () => '~/.claude/settings.json' },
  { id: 'tilde-ssh-key', path: () => '~/.ssh/id_ed25519' },
  { id: 'tilde-documents', path: () => '~/Documents/plan.md' },
  { id: 'abs-documents', path: (w) => `${w.home}/Documents/plan.md` },
  { id: 'tilde-bashrc', path: () => '~/.bashrc' },
  {
    id: 'tilde-other-project-memory',
    path: () => '~/.engram/projects/other-project/memory/MEMORY.md',
  },
  { id: 'other-repo-config', path: () => '../../other-repo/config.json' },
  { id: 'other-repo-git-config', path: (w) => `${w.top}/other-repo/.git/config` },
  { id: 'other-repo-claude-md', path: () => '../../other-repo/CLAUDE.md' },
];

const FORMS = [
  ...PATH_FORMS.map((f) => ({ id: f.id, path: f.path })),
  ...INCLUDE_FORMS.map((f) => ({ id: f.id, path: f.path })),
];

/** The project's own files the controls include (and one the user's CLAUDE.md includes). */
const CONTROL_FILES: Record<string, string> = {
  ...Object.fromEntries(POSITIVE_CONTROLS.map((c) => [c.file, `CONTROL-${c.id} ${c.body}`])),
  'docs/guide.md': 'CONTROL-guide Read @./deeper/part.md too.',
  'docs/deeper/part.md': 'CONTROL-nested-part',
  'docs/x.md': 'CONTROL-relative-dot',
};
const CONTROL_INCLUDES = [
  ...POSITIVE_CONTROLS.map((c) => `@${c.file}`),
  '@docs/guide.md',
  '@./docs/x.md',
  '@../memory/legit/sub/existing.md',
];
const CONTROL_MARKERS = [
  ...POSITIVE_CONTROLS.map((c) => `CONTROL-${c.id}`),
  'CONTROL-guide',
  'CONTROL-nested-part',
  'CONTROL-relative-dot',
  'Here.', // legit/sub/existing.md, reached out of the folder and back in
  'USER-HOME-NOTES',
  'USER-DOT-CLAUDE-TEAM',
];

let w: World;

beforeAll(async () => {
  requireBuild();
  w = await setupWorld('engram-includes-door-');
  const sentinel = (what: string) => `${w.sentinel} ${what}`;
  const files: Record<string, string> = {
    [join(w.home, 'Documents', 'plan.md')]: sentinel('documents'),
    [join(w.top, 'other-repo', 'config.json')]: sentinel('other repo config'),
    [join(w.top, 'other-repo', '.git', 'config')]: sentinel('other repo git config'),
    [join(w.top, 'other-repo', 'CLAUDE.md')]: sentinel('other repo CLAUDE.md'),
    // The user's own file may include from home, and is still held to the deny-list.
    [join(w.home, '.claude', 'CLAUDE.md')]: [
      'User: @~/notes/prefs.md and @~/.claude/team.md',
      '@~/.ssh/id_ed25519 @~/.claude/settings.json',
      '@~/.engram/projects/other-project/memory/MEMORY.md',
    ].join('\n'),
    [join(w.home, 'notes', 'prefs.md')]: 'USER-HOME-NOTES',
    [join(w.home, '.claude', 'team.md')]: 'USER-DOT-CLAUDE-TEAM',
    ...Object.fromEntries(Object.entries(CONTROL_FILES).map(([f, t]) => [join(w.memory, f), t])),
  };
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
  }
});
afterAll(() => w?.cleanup());

const claudeMd = () => join(w.memory, 'CLAUDE.md');

/** `@path` as a person writes it in markdown: a space escaped, so the whole form is one include. */
const include = (path: string) => `@${path.replaceAll(' ', '\\ ')}`;

function environment(): EngramEnvironment {
  return {
    cwd: w.memory,
    homedir: w.home,
    env: { ENGRAM_HOME: w.engramHome, ENGRAM_MANAGED_DIR: join(w.home, 'managed') },
  };
}

const inside = (path: string, root: string) => path === root || path.startsWith(root + sep);

/**
 * The test's own oracle, by plain file system calls: the include targets of `text` that really
 * reach a file outside the project (through `..`, an absolute path, a link or a hard link).
 */
function outsideTargets(text: string): string[] {
  const out: string[] = [];
  for (const ref of extractIncludeReferences(text)) {
    const target = resolveIncludePath(ref, claudeMd(), w.home);
    let real: string;
    try {
      real = realpathSync(target);
    } catch {
      continue;
    }
    if (!lstatSync(real).isFile()) continue;
    if (!inside(real, w.memory) || lstatSync(real).nlink > 1) out.push(target);
  }
  return out;
}

/** What must hold for a load: no secret in the output, no file from outside among the loaded. */
function outsideReads(result: Pick<InstructionsResult, 'files'>): string[] {
  return result.files
    .filter((f) => !inside(f.realPath, f.type === 'user' ? w.home : w.memory))
    .map((f) => f.realPath);
}

describe('the include door refuses the corpus', () => {
  it('has the whole corpus to run', () => {
    expect(FORMS.length).toBeGreaterThanOrEqual(MIN_FORMS);
  });

  it('library: each form alone in a cloned CLAUDE.md reads nothing outside the project', async () => {
    const before = await snapshotOutside(w);
    const escaped: string[] = [];
    let refusedOutside = 0;
    for (const form of FORMS) {
      const text = `# Cloned repository\nSee ${include(form.path(w))} for the rules.\n`;
      await writeFile(claudeMd(), text);
      const result = await readInstructions(environment());
      const output = JSON.stringify(result);
      for (const leak of leaks(w, { [form.id]: output })) escaped.push(leak);
      for (const path of outsideReads(result)) escaped.push(`${form.id}: loaded ${path}`);
      // Every include that really reaches outside is refused, and the report says so.
      for (const target of outsideTargets(text)) {
        const refusal = result.reports.find((r) => r.kind === 'refused' && r.path === target);
        if (refusal === undefined) escaped.push(`${form.id}: ${target} not refused`);
        else refusedOutside++;
      }
    }
    expect(escaped).toEqual([]);
    // The corpus really aimed outside: most forms name an existing outside file (29 of them now).
    expect(refusedOutside).toBeGreaterThanOrEqual(25);
    expect(snapshotDiff(before, await snapshotOutside(w))).toEqual([]);
  });

  it('library, CLI and the host system prompt: all forms at once, positive controls loaded', async () => {
    const text = [
      '# Cloned repository',
      ...FORMS.map((f) => `- ${f.id}: ${include(f.path(w))}`),
      '',
      'Ours:',
      ...CONTROL_INCLUDES.map((i) => `- ${i}`),
      '',
    ].join('\n');
    await writeFile(claudeMd(), text);
    const targets = outsideTargets(text);
    const before = await snapshotOutside(w);

    const library = await readInstructions(environment());
    expect(leaks(w, { library: JSON.stringify(library) })).toEqual([]);
    expect(outsideReads(library)).toEqual([]);
    const refused = new Set(library.reports.filter((r) => r.kind === 'refused').map((r) => r.path));
    expect(targets.filter((t) => !refused.has(t))).toEqual([]);
    for (const marker of CONTROL_MARKERS) expect(library.prompt).toContain(marker);

    const cli = await runCliProcess(['instructions', '--cwd', w.memory, '--json'], w.env, w.top);
    expect(cli.code, cli.stderr).toBe(0);
    const json = JSON.parse(cli.stdout) as InstructionsResult;
    expect(leaks(w, { stdout: cli.stdout, stderr: cli.stderr })).toEqual([]);
    expect(outsideReads(json)).toEqual([]);
    for (const marker of CONTROL_MARKERS) expect(json.prompt).toContain(marker);
    expect(new Set(json.reports.filter((r) => r.kind === 'refused').map((r) => r.path))).toEqual(
      refused,
    );
    const plain = await runCliProcess(['instructions', '--cwd', w.memory], w.env, w.top);
    expect(leaks(w, { stdout: plain.stdout, stderr: plain.stderr })).toEqual([]);
    // The person reading the listing learns why and how to allow an outside folder.
    expect(plain.stderr).toContain('allowExternalIncludes');

    const memory = await openMemory({ cwd: w.memory, env: environment().env, homedir: w.home });
    const system = await memory.systemPrompt();
    await memory.close();
    expect(leaks(w, { system })).toEqual([]);
    for (const marker of CONTROL_MARKERS) expect(system).toContain(marker);

    // Only this project's own memory folder (made by openMemory) may have appeared.
    const own = dirname(memory.memoryDir);
    expect(snapshotDiff(before, await snapshotOutside(w, [own]))).toEqual([]);
  });

  it('a folder flipped to a link while instructions load never brings the outside file in', async () => {
    const folder = join(w.memory, 'flip');
    await writeFile(join(folder, 'rules.md'), 'FLIP-INSIDE');
    await writeFile(join(w.outside, 'rules.md'), `${w.sentinel} flipped`);
    await writeFile(claudeMd(), '@flip/rules.md\n');
    const before = await snapshotOutside(w);
    const flipper = await startFlipper(folder, w.outside);
    const escaped: string[] = [];
    let loads = 0;
    let inside = 0;
    try {
      // At least 1,500 loads (the check-then-read loader before the confinement brought the
      // outside file in 29 times in 3,000), and on a loaded machine until the flipper raced them.
      while ((loads < 1500 || flipper.flips() < 50) && loads < 5000) {
        const result = await readInstructions(environment());
        escaped.push(...leaks(w, { [`load ${loads}`]: JSON.stringify(result) }));
        if (result.prompt.includes('FLIP-INSIDE')) inside++;
        loads++;
      }
    } finally {
      await flipper.stop();
    }
    const flips = flipper.flips();
    expect({ escaped, loads, flips }).toEqual({ escaped: [], loads, flips });
    expect(flips, JSON.stringify({ loads, flips })).toBeGreaterThanOrEqual(50);
    expect(inside).toBeGreaterThan(0);
    expect(snapshotDiff(before, await snapshotOutside(w))).toEqual([]);
  }, 300_000);
});
