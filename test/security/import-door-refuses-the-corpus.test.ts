// The corpus through `engram import claude-code --from <dir>` (the built CLI): a source memory
// folder planted with every path form that is one file name (import copies the source's top-level
// files only, so forms with folders have no meaning there and are listed as such), links and hard
// links to the outside sentinels and the private key, and a source MEMORY.md whose lines point
// out. The destination is the world's memory directory, with its own links. Afterwards nothing
// outside changed (the source included: nothing at the source changes), the canary is in no
// memory file and no output, every index line is one entry, and the plain controls came in.
import { link, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild, runCliProcess } from '../support/cli-process.js';
import {
  canaryFiles,
  indexProblems,
  leaks,
  memoryText,
  PATH_FORMS,
  POSITIVE_CONTROLS,
  type Snapshot,
  setupWorld,
  snapshotDiff,
  snapshotOutside,
  type World,
} from './attack-corpus.js';

let w: World;
let before: Snapshot;
let source: string;
/** Forms planted in the source (one file name each), and those that cannot be a file there. */
const planted: string[] = [];
const notAName: string[] = [];

/** Links in the source itself, named apart from the memory directory's own links. */
const LINKS: Array<[string, (w: World) => string, 'symlink' | 'hard']> = [
  ['src-outlink.md', (w) => join(w.outside, 'secret.md'), 'symlink'],
  ['src-keylink.md', (w) => w.credentials[0]!, 'symlink'],
  ['src-outdir.md', (w) => w.outside, 'symlink'],
  ['src-hard.md', (w) => join(w.outside, 'hard-target.md'), 'hard'],
  ['src-hardkey.md', (w) => w.credentials[0]!, 'hard'],
];

beforeAll(async () => {
  requireBuild();
  w = await setupWorld('engram-import-door-');
  source = join(w.top, 'claude-memory');
  await mkdir(source);
  for (const [name, target, kind] of LINKS) {
    if (kind === 'symlink') await symlink(target(w), join(source, name));
    else await link(target(w), join(source, name));
  }
  for (const form of PATH_FORMS) {
    const name = form.path(w);
    if (name === '' || /[\\/]/.test(name) || name === '.' || name === '..' || name.includes('\0')) {
      notAName.push(form.id);
      continue;
    }
    // A plain file in the source; where the memory directory has a link of that name (outlink.md,
    // hard.md, dangling.md...), the import meets the link at the destination.
    await writeFile(join(source, name), memoryText(form.id, `planted ${form.id}`));
    planted.push(form.id);
  }
  for (const c of POSITIVE_CONTROLS.filter((c) => !c.file.includes('/')))
    await writeFile(join(source, c.file), memoryText(c.what, c.body));
  await writeFile(
    join(source, 'MEMORY.md'),
    '- [Secret](../../outside/secret.md) — out\n- [Key](<../home/.ssh/id_ed25519>) — out\n',
  );
  before = await snapshotOutside(w);
});
afterAll(() => w?.cleanup());

describe('the import door', () => {
  it('imports the plain files, skips links, hard links and refused names; nothing leaks', async () => {
    // Every one-name form was planted; the rest have folders in them, which import never reads.
    expect(planted.length + notAName.length).toBe(PATH_FORMS.length);
    expect(planted.length).toBeGreaterThanOrEqual(20);
    const r = await runCliProcess(
      ['import', 'claude-code', '--from', source, '--dir', w.memory, '--json'],
      w.env,
      w.project,
    );
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as {
      imported: string[];
      skipped: Array<{ file: string; reason: string }>;
    };
    for (const [name] of LINKS) expect(result.imported, name).not.toContain(name);
    for (const c of POSITIVE_CONTROLS.filter((c) => !c.file.includes('/')))
      expect(result.imported).toContain(c.file);
    // Planted over the memory directory's own links, a plain source file is skipped, not written
    // through them.
    for (const name of ['passwd.md', 'dangling.md', 'outlink.md', 'keylink.md', 'hard.md'])
      expect(result.imported, name).not.toContain(name);

    const recall = await runCliProcess(
      ['--dir', w.memory, 'recall', 'secret key outside sentinel hard target planted'],
      w.env,
      w.project,
    );
    expect(snapshotDiff(before, await snapshotOutside(w))).toEqual([]);
    expect(leaks(w, { import: `${r.stdout}${r.stderr}`, recall: recall.stdout })).toEqual([]);
    expect(await canaryFiles(w, [w.memory, w.engramHome])).toEqual([]);
    expect(await indexProblems(w.memory)).toEqual([]);
  });
});
