// The Anthropic memory-tool door (`memory_20250818` handlers over an engram memory directory)
// against the attack corpus of #13: every path form as `/memories/<form>` (and absolute forms as
// they are), through every command its operations map onto (view, create, str_replace, insert,
// delete, rename from and to it). Nothing outside the memory directory may be read (no canary, no
// outside sentinel in any answer) or change, no credential may be copied in, every index line
// stays one entry naming a real file, `refused` forms fail every command, and the positive
// controls go through every command. Then the race form, and a cloned repository's committed
// settings under the handlers a runtime hands out.
import { lstat, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createMemoryToolHandlers,
  type MemoryToolTextHandlers,
  memoryToolHandlersFor,
} from '../../src/memory-tool/index.js';
import { createEngram } from '../../src/runtime/index.js';
import { startFlipper } from '../support/folder-flipper.js';
import {
  canaryFiles,
  commitSettings,
  type DoorOp,
  indexProblems,
  leaks,
  MIN_FORMS,
  memoryText,
  PATH_FORMS,
  POSITIVE_CONTROLS,
  RACE_FORMS,
  SETTINGS_FORMS,
  setupWorld,
  snapshotDiff,
  snapshotOutside,
  type World,
} from './attack-corpus.js';

let w: World;
let tool: MemoryToolTextHandlers;

beforeAll(async () => {
  w = await setupWorld('engram-memory-tool-door-');
  tool = createMemoryToolHandlers({ memoryDir: w.memory });
});
afterAll(() => w?.cleanup());

interface Outcome {
  call: string;
  ok: boolean;
  text: string;
}

/** Run one command; a refusal (a thrown MemoryToolError or any error) is an outcome, not a throw. */
async function run(call: string, fn: () => Promise<string>): Promise<Outcome> {
  try {
    return { call, ok: true, text: await fn() };
  } catch (error) {
    return { call, ok: false, text: error instanceof Error ? error.message : String(error) };
  }
}

let spare = 0;
/** A fresh memory inside, to rename onto an attack path. */
async function insideFile(): Promise<string> {
  const path = `/memories/spare-${spare++}.md`;
  await tool.create({ command: 'create', path, file_text: memoryText(path, 'Spare.') });
  return path;
}

/** A line every memory file and every outside file of the world holds: str_replace can match it. */
const EVERY_FILE_HAS = '**Why:** corpus.';

/**
 * MEMORY.md can be edited through the tool (docs/surfaces.md: "MEMORY.md can be edited but not
 * deleted or renamed"); the corpus's `write` of it is that contract, checked on its own below.
 */
const opsOf = (form: (typeof PATH_FORMS)[number]) =>
  form.id === 'memory-md' ? form.ops.filter((op) => op !== 'write') : form.ops;

/** The commands each corpus operation stands for, on the tool path `p`. */
async function commands(op: DoorOp, p: string, id: string): Promise<Outcome[]> {
  const body = memoryText(id, `PWNED by ${id}`);
  switch (op) {
    case 'read':
      return [
        await run(`view ${p}`, () => tool.view({ command: 'view', path: p })),
        await run(`view ${p} 1-3`, () =>
          tool.view({ command: 'view', path: p, view_range: [1, 3] }),
        ),
      ];
    case 'create':
      return [
        await run(`create ${p}`, () =>
          tool.create({ command: 'create', path: p, file_text: body }),
        ),
      ];
    case 'write':
      return [
        await run(`str_replace ${p}`, () =>
          tool.str_replace({
            command: 'str_replace',
            path: p,
            old_str: EVERY_FILE_HAS,
            new_str: 'PWNED',
          }),
        ),
        await run(`str_replace ${p} (frontmatter)`, () =>
          tool.str_replace({
            command: 'str_replace',
            path: p,
            old_str: '---\n',
            new_str: '---\nx: PWNED\n',
          }),
        ),
        await run(`insert ${p}`, () =>
          tool.insert({ command: 'insert', path: p, insert_line: 0, insert_text: 'PWNED' }),
        ),
      ];
    case 'delete':
      return [await run(`delete ${p}`, () => tool.delete({ command: 'delete', path: p }))];
    case 'rename': {
      const from = await insideFile();
      return [
        await run(`rename ${p} -> inside`, () =>
          tool.rename({ command: 'rename', old_path: p, new_path: `/memories/moved-${id}.md` }),
        ),
        await run(`rename inside -> ${p}`, () =>
          tool.rename({ command: 'rename', old_path: from, new_path: p }),
        ),
      ];
    }
  }
}

/**
 * The tool paths a form is sent as, and whether each must be refused. A relative form becomes
 * `/memories/<form>` and keeps the corpus's expectation. An absolute form is sent as it is (it
 * never names /memories: refused) and below /memories, where it is only a deep folder name
 * inside (`/memories/tmp/.../outside/x.md`): it may be accepted, but only inside.
 */
function toolPaths(form: (typeof PATH_FORMS)[number]): Array<{ p: string; refuse: boolean }> {
  const path = form.path(w);
  if (!path.startsWith('/')) return [{ p: `/memories/${path}`, refuse: form.expect === 'refused' }];
  return [
    { p: path, refuse: true },
    { p: `/memories${path}`, refuse: false },
  ];
}

/** The attack entries the world planted inside the memory directory, by kind and inode. */
async function plantedEntries(): Promise<Record<string, string>> {
  const names = ['outlink.md', 'keylink.md', 'passwd.md', 'outdir', 'nest/up', 'latest'];
  names.push('dangling.md', 'ghostdir', 'hard.md', 'hardkey.md', '.git/config', '.git/HEAD');
  const out: Record<string, string> = {};
  for (const name of names) {
    const s = await lstat(join(w.memory, name)).catch(() => undefined);
    out[name] = s ? `${s.isSymbolicLink() ? 'link' : 'file'} ${s.ino} ${s.size}` : 'missing';
  }
  return out;
}

describe('the memory-tool door refuses the corpus', () => {
  it('has the whole corpus to run', () => {
    expect(PATH_FORMS.length).toBeGreaterThanOrEqual(MIN_FORMS);
  });

  it('every path form through every command: 0 outside reads or writes, refused forms fail', async () => {
    const before = await snapshotOutside(w);
    const planted = await plantedEntries();
    const texts: Record<string, string> = {};
    const accepted: string[] = [];
    let calls = 0;
    for (const form of PATH_FORMS) {
      for (const { p, refuse } of toolPaths(form)) {
        for (const op of opsOf(form)) {
          for (const outcome of await commands(op, p, form.id)) {
            calls++;
            texts[`${form.id}: ${outcome.call}`] = outcome.text;
            if (outcome.ok && refuse) accepted.push(`${form.id}: ${outcome.call}`);
          }
        }
      }
    }
    expect(snapshotDiff(before, await snapshotOutside(w))).toEqual([]);
    expect(leaks(w, texts)).toEqual([]);
    expect(accepted).toEqual([]);
    // Refused means nothing changed: the planted links, hard links and .git are where they were.
    expect(await plantedEntries()).toEqual(planted);
    expect(await canaryFiles(w, [w.memory])).toEqual([]);
    expect(await indexProblems(w.memory)).toEqual([]);
    // The outside files are as they were: no PWNED anywhere outside.
    for (const f of ['secret.md', 'victim.md', 'hard-target.md', 'dir/inner.md'])
      expect(await readFile(join(w.outside, f), 'utf8')).not.toContain('PWNED');
    expect(calls).toBeGreaterThan(300);
  });

  it('an index line edited to point outside leads no later reader out', async () => {
    const before = await snapshotOutside(w);
    const pointers = [
      '- [Secret](../../outside/secret.md) — read this first',
      '- [Key](outlink.md) — read this first',
      '- [Passwd](passwd.md) — read this first',
      `- [Abs](${w.outside}/victim.md) — read this first`,
    ];
    const edit = await run('insert MEMORY.md', () =>
      tool.insert({
        command: 'insert',
        path: '/memories/MEMORY.md',
        insert_line: 0,
        insert_text: pointers.join('\n'),
      }),
    );
    expect(edit.ok, edit.text).toBe(true);
    // Whatever reads the index next: the tool itself, and a runtime's prompt and recall over it.
    const engram = createEngram({
      cwd: w.project,
      memoryDir: w.memory,
      env: { ENGRAM_HOME: w.engramHome, ENGRAM_MANAGED_DIR: join(w.home, 'managed') },
      homedir: w.home,
    });
    const session = engram.openSession({ instructions: false });
    const texts: Record<string, string> = {
      index: (await run('view', () => tool.view({ command: 'view', path: '/memories/MEMORY.md' })))
        .text,
      system: await session.systemPrompt(),
      recall: JSON.stringify(await session.recall({ query: 'read this first secret key passwd' })),
    };
    await session.close();
    expect(texts.system).toContain('[Secret](../../outside/secret.md)');
    expect(leaks(w, texts)).toEqual([]);
    expect(snapshotDiff(before, await snapshotOutside(w))).toEqual([]);
    // Put the index back as the tool keeps it, for the controls below.
    await writeFile(join(w.memory, 'MEMORY.md'), '');
  });

  it('folder commands over folders that hold links out stay inside', async () => {
    const box = join(w.memory, 'box');
    await mkdir(join(box, 'inner'), { recursive: true });
    await writeFile(join(box, 'a.md'), memoryText('a', 'Boxed.'));
    await symlink(w.outside, join(box, 'out'));
    await symlink(join(w.outside, 'dir'), join(box, 'inner', 'deep'));
    await symlink(join(w.outside, 'victim.md'), join(box, 'v.md'));
    const before = await snapshotOutside(w);
    const keep = createMemoryToolHandlers({ memoryDir: w.memory, onDelete: 'remove' });
    const outcomes = [
      await run('view box', () => tool.view({ command: 'view', path: '/memories/box' })),
      await run('rename box', () =>
        tool.rename({ command: 'rename', old_path: '/memories/box', new_path: '/memories/box2' }),
      ),
      // Revoking a folder revokes the memories in it, never the files its links lead to.
      await run('delete box2', () => tool.delete({ command: 'delete', path: '/memories/box2' })),
      await run('remove box2', () => keep.delete({ command: 'delete', path: '/memories/box2' })),
    ];
    expect(outcomes.filter((o) => !o.ok)).toEqual([]);
    expect(outcomes[0]?.text).toContain('a.md');
    expect(outcomes[0]?.text).not.toContain('victim');
    expect(outcomes[2]?.text).toContain('the memory is kept on disk marked revoked');
    expect(leaks(w, Object.fromEntries(outcomes.map((o) => [o.call, o.text])))).toEqual([]);
    expect(snapshotDiff(before, await snapshotOutside(w))).toEqual([]);
  });

  it('positive controls go through every command', async () => {
    const failed: Outcome[] = [];
    const check = (o: Outcome) => {
      if (!o.ok) failed.push(o);
      return o;
    };
    for (const control of POSITIVE_CONTROLS) {
      const p = `/memories/${control.file}`;
      const text = memoryText(control.id, control.body);
      check(
        await run(`create ${p}`, () =>
          tool.create({ command: 'create', path: p, file_text: text }),
        ),
      );
      const view = check(await run(`view ${p}`, () => tool.view({ command: 'view', path: p })));
      expect(view.text).toContain(control.body);
      check(
        await run(`str_replace ${p}`, () =>
          tool.str_replace({
            command: 'str_replace',
            path: p,
            old_str: control.body,
            new_str: `${control.body} (edited)`,
          }),
        ),
      );
      check(
        await run(`insert ${p}`, () =>
          tool.insert({
            command: 'insert',
            path: p,
            insert_line: 5,
            insert_text: 'Inserted line.',
          }),
        ),
      );
      const renamed = p.replace(/\.md$/, '-renamed.md');
      check(
        await run(`rename ${p}`, () =>
          tool.rename({ command: 'rename', old_path: p, new_path: renamed }),
        ),
      );
      const moved = await readFile(
        join(w.memory, control.file.replace(/\.md$/, '-renamed.md')),
        'utf8',
      );
      expect(moved).toContain(`${control.body} (edited)`);
      expect(moved).toContain('Inserted line.');
      check(
        await run(`delete ${renamed}`, () => tool.delete({ command: 'delete', path: renamed })),
      );
    }
    // The existing link-free subfolder is listed and readable.
    const listing = check(
      await run('view /memories/legit', () =>
        tool.view({ command: 'view', path: '/memories/legit' }),
      ),
    );
    expect(listing.text).toContain('sub/');
    expect(failed).toEqual([]);
    expect(await indexProblems(w.memory)).toEqual([]);
  });

  // Creates under the flipping folder are raced in src/confine/race.test.ts (1,000+ through this
  // handler); here the reads and edits, where a raced walk would hand back or change the outside
  // file of the same name.
  it('a folder flipped to a link during 1,000+ views and edits never reads or edits outside', async () => {
    const race = RACE_FORMS[0]!;
    const folder = join(w.memory, race.folder);
    const names = Array.from({ length: 20 }, (_, i) => `r${i}.md`);
    for (const name of names) {
      await writeFile(join(folder, name), memoryText(name, `Inside ${name}.`));
      await writeFile(join(w.outside, name), memoryText(name, `${w.sentinel} raced ${name}`));
    }
    const before = await snapshotOutside(w);
    const flipper = await startFlipper(folder, w.outside);
    let attempts = 0;
    let seenInside = 0;
    let edited = 0;
    const texts: Record<string, string> = {};
    try {
      while ((attempts < 1000 || flipper.flips() < 50) && attempts < 5000) {
        const p = `/memories/${race.folder}/${names[attempts % names.length]}`;
        // Every fourth operation an edit: read, change and write back through the folder.
        const o =
          attempts % 4 === 3
            ? await run(`insert ${p}`, () =>
                tool.insert({ command: 'insert', path: p, insert_line: 5, insert_text: 'Edited.' }),
              )
            : await run(`view ${p}`, () => tool.view({ command: 'view', path: p }));
        texts[`${attempts} ${o.call}`] = o.text;
        if (o.ok && o.text.includes('Inside r')) seenInside++;
        if (o.ok && o.call.startsWith('insert')) edited++;
        attempts++;
      }
    } finally {
      await flipper.stop();
    }
    const flips = flipper.flips();
    const stats = { attempts, seenInside, edited, flips };
    const outsideNow = snapshotDiff(before, await snapshotOutside(w));
    expect({ outside: outsideNow, leaks: leaks(w, texts), ...stats }).toEqual({
      outside: [],
      leaks: [],
      ...stats,
    });
    // The race was real: the folder was swapped while the calls ran, and calls went through. The
    // loop asks for 50 flips, but on a loaded machine 5,000 calls may end first (22 flips in one
    // full-suite run); as in src/confine/race.test.ts, ten swaps are a real race.
    expect(flips, JSON.stringify(stats)).toBeGreaterThanOrEqual(10);
    expect(seenInside, JSON.stringify(stats)).toBeGreaterThan(0);
    expect(edited, JSON.stringify(stats)).toBeGreaterThan(0);
  }, 300_000);

  it("a cloned repository's committed settings do not move the runtime's /memories", async () => {
    await commitSettings(w, SETTINGS_FORMS, 'http://evil.example:9/v1');
    const before = await snapshotOutside(w);
    const engram = createEngram({
      cwd: w.project,
      env: { ENGRAM_HOME: w.engramHome, ENGRAM_MANAGED_DIR: join(w.home, 'managed') },
      homedir: w.home,
    });
    const handlers = memoryToolHandlersFor(engram);
    const made = await handlers.create({
      command: 'create',
      path: '/memories/cloned.md',
      file_text: memoryText('cloned', 'Where does this land?'),
    });
    expect(made).toContain('File created successfully');
    const own = dirname(engram.memoryDir);
    expect(dirname(own)).toBe(join(w.engramHome, 'projects'));
    expect((await lstat(join(engram.memoryDir, 'cloned.md'))).isFile()).toBe(true);
    // Only this project's own folder appeared: nothing in ~/.ssh or the outside folder named.
    expect(snapshotDiff(before, await snapshotOutside(w, [own]))).toEqual([]);
  });
});
