// The corpus itself: every category issue #13 names is present, the floor of 40 forms holds, and
// the world it builds has the links and sentinels the records rely on.
import { lstat, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import {
  type Category,
  CORPUS,
  MIN_FORMS,
  POSITIVE_CONTROLS,
  setupWorld,
  snapshotDiff,
  snapshotOutside,
} from './attack-corpus.js';

const CATEGORIES: Category[] = [
  'traversal',
  'encoded-traversal',
  'absolute',
  'sibling-prefix',
  'symlinked-file',
  'symlinked-folder',
  'symlinked-parent',
  'link-then-dotdot',
  'dangling-link',
  'hard-link',
  'race',
  'git',
  'engram-own-file',
  'reserved-name',
  'control-character',
  'index-breaking-name',
  'wrapper-closing-body',
  'committed-settings',
];

it('the corpus holds every category of issue #13 and at least 40 forms with unique ids', () => {
  expect(CORPUS.length).toBeGreaterThanOrEqual(MIN_FORMS);
  expect(new Set(CORPUS.map((f) => f.category))).toEqual(new Set(CATEGORIES));
  expect(new Set(CORPUS.map((f) => f.id)).size).toBe(CORPUS.length);
  expect(POSITIVE_CONTROLS.map((c) => c.file)).toEqual(
    expect.arrayContaining(['café.md', '日本語.md']),
  );
});

it('the world has its links, hard links, canary and sentinels, and a snapshot sees a change', async () => {
  const w = await setupWorld();
  try {
    expect(await readFile(join(w.home, '.ssh', 'id_ed25519'), 'utf8')).toContain(w.canary);
    expect(await readlink(join(w.memory, 'outdir'))).toBe(w.outside);
    expect((await lstat(join(w.memory, 'hardkey.md'))).nlink).toBe(2);
    // The kernel resolves `..` after a link physically: 7 ups from latest/ (5 deep) reach top.
    const physicalOut = `${w.memory}/latest/${'../'.repeat(7)}outside/victim.md`;
    expect(await readFile(physicalOut, 'utf8')).toContain(w.sentinel);
    // ...while the lexical spelling of `latest/../../../outside` stays physically inside.
    expect(await lstat(`${w.memory}/latest/../../../outside/victim.md`).catch(() => 'absent')).toBe(
      'absent',
    );
    const before = await snapshotOutside(w);
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(w.outside, 'appeared.md'), 'x');
    await writeFile(join(w.memory, 'inside.md'), 'x');
    expect(snapshotDiff(before, await snapshotOutside(w))).toEqual(['+outside/appeared.md']);
  } finally {
    await w.cleanup();
  }
});
