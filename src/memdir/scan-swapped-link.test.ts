import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startFlipper } from '../../test/support/folder-flipper.js';
import { scanMemoriesCached } from './cached-scan.js';
import { scanMemories } from './scan.js';
import type { MemoryHeader } from './types.js';

/**
 * A second process swaps one memory file between itself and a link to a file outside the memory
 * folder, while this process scans the folder again and again. A scan may list the file as a
 * regular file and open it just after the swap: the open must not follow the link, so no header
 * ever carries the outside file's text.
 */
const SECRET = 'outside-secret-7f3a';
const tops: string[] = [];

afterEach(async () => {
  await Promise.all(tops.splice(0).map((t) => rm(t, { recursive: true, force: true })));
});

const memory = (description: string) =>
  `---\nname: ${description}\ndescription: ${description}\ntype: project\n---\nbody\n`;

/**
 * `what: 'file'` flips `memory/inside.md` with a link to `outside.md`; `what: 'folder'` flips the
 * subfolder `memory/sub` (holding `inside.md`) with a link to a folder outside holding its own
 * `inside.md`.
 */
async function raceScans(what: 'file' | 'folder', scan: (dir: string) => Promise<MemoryHeader[]>) {
  const top = await mkdtemp(join(tmpdir(), 'engram-scan-link-'));
  tops.push(top);
  const dir = join(top, 'memory');
  const home = what === 'file' ? dir : join(dir, 'sub');
  const outsideHome = what === 'file' ? top : join(top, 'outside');
  await mkdir(home, { recursive: true });
  await mkdir(outsideHome, { recursive: true });
  await writeFile(join(home, 'inside.md'), memory('the real memory'));
  const outside = join(outsideHome, what === 'file' ? 'outside.md' : 'inside.md');
  await writeFile(outside, memory(SECRET));
  const flipper =
    what === 'file'
      ? await startFlipper(join(dir, 'inside.md'), outside)
      : await startFlipper(home, outsideHome);
  let scans = 0;
  let leaked = 0;
  let sawInside = 0;
  try {
    while ((scans < 1500 || flipper.flips() < 20) && scans < 8000) {
      const headers = await scan(dir);
      for (const h of headers) {
        if (JSON.stringify(h).includes(SECRET)) leaked++;
        if (h.description === 'the real memory') sawInside++;
      }
      scans++;
    }
  } finally {
    await flipper.stop();
  }
  return { scans, leaked, sawInside, flips: flipper.flips() };
}

const cachedScan = async (dir: string) =>
  (await scanMemoriesCached(dir, { persisted: false, watch: false })).memories;

it('never reads a memory file through a link swapped in after the listing (plain scan)', async () => {
  const r = await raceScans('file', async (dir) => (await scanMemories(dir)).memories);
  // The race was real: the file was swapped many times, and read as itself in between.
  expect(r.flips).toBeGreaterThanOrEqual(20);
  expect(r.sawInside).toBeGreaterThan(0);
  expect(r.leaked).toBe(0);
}, 120_000);

it('never reads a memory file through a link swapped in after the listing (cached scan)', async () => {
  const r = await raceScans('file', cachedScan);
  expect(r.flips).toBeGreaterThanOrEqual(20);
  expect(r.sawInside).toBeGreaterThan(0);
  expect(r.leaked).toBe(0);
}, 120_000);

for (const [name, scan] of [
  ['plain scan', async (dir: string) => (await scanMemories(dir)).memories],
  ['cached scan', cachedScan],
] as const) {
  it(`never reads through a subfolder swapped for a link after the listing (${name})`, async () => {
    const r = await raceScans('folder', scan);
    expect(r.flips).toBeGreaterThanOrEqual(20);
    expect(r.sawInside).toBeGreaterThan(0);
    expect(r.leaked).toBe(0);
  }, 120_000);
}
