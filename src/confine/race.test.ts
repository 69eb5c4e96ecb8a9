import { mkdir, mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { startFlipper } from '../../test/support/folder-flipper.js';
import { createFileTools } from '../llm/file-tools.js';
import { directorySandbox } from '../llm/sandbox.js';
import { createMemoryToolHandlers } from '../memdir/memory-tool/handler.js';
import { createConfinement } from './index.js';

/**
 * A second process swaps `memory/sub` between a real folder and a link to a folder outside as
 * fast as it can, while this process writes at least 1,000 files into `sub/` through one door.
 * Writes may be refused or land in the real folder (wherever it was moved inside the root); none
 * may land outside. The doors: the confinement itself, the memory-tool handler's create, and the
 * forked agents' write tool after the sandbox's check (the two paths issue #13 saw escape).
 */
async function raceThroughOneDoor(
  write: (root: string, i: number) => Promise<void>,
  minAttempts = 1200,
): Promise<void> {
  const top = await mkdtemp(join(tmpdir(), 'engram-race-'));
  const root = join(top, 'memory');
  const outside = join(top, 'outside');
  await mkdir(join(root, 'sub'), { recursive: true });
  await mkdir(outside);
  // The flipper must be running before the first write, or the writes race nothing.
  const flipper = await startFlipper(join(root, 'sub'), outside);
  let written = 0;
  let refused = 0;
  let attempts = 0;
  // At least `minAttempts` writes, and on a loaded machine keep going until the flipper really raced them.
  while ((attempts < minAttempts || flipper.flips() < 50) && attempts < 6000) {
    try {
      await write(root, attempts);
      written++;
    } catch {
      refused++;
    }
    attempts++;
  }
  const flips = await flipper.stop();
  const stats = { attempts, written, refused, flips };
  expect({ outside: await readdir(outside), ...stats }).toEqual({ outside: [], ...stats });
  // The race was real: the folder was swapped while writes ran, and writes went through. (The
  // flipper pauses up to 1 ms every other cycle, so an idle machine that runs the writes fast
  // sees a few dozen flips: 27 in one fresh-clone run.)
  expect(flips, JSON.stringify(stats)).toBeGreaterThanOrEqual(10);
  expect(written, JSON.stringify(stats)).toBeGreaterThan(0);
}

it('a folder flipped to a link during 1,200 confined writes lands 0 writes outside', async () => {
  let c: ReturnType<typeof createConfinement> | undefined;
  await raceThroughOneDoor(async (root, i) => {
    c ??= createConfinement({ roots: [{ path: root, write: true }] });
    await c.writeText(`sub/f${i}.md`, `n${i}`);
  });
}, 300_000);

it('the memory-tool handler: 1,000 creates under /memories/sub/ during the flips land 0 outside', async () => {
  let handlers: ReturnType<typeof createMemoryToolHandlers> | undefined;
  await raceThroughOneDoor(async (root, i) => {
    handlers ??= createMemoryToolHandlers({ memoryDir: root });
    await handlers.create({
      command: 'create',
      path: `/memories/sub/f${i}.md`,
      file_text: `---\nname: f${i}\ndescription: race ${i}\ntype: project\n---\nn${i}\n`,
    });
  }, 1000);
}, 300_000);

it("the forked agents' write tool after the sandbox's check: 1,000 writes land 0 outside", async () => {
  let tools:
    | {
        write: ReturnType<typeof createFileTools>[number];
        allow: ReturnType<typeof directorySandbox>;
      }
    | undefined;
  await raceThroughOneDoor(async (root, i) => {
    tools ??= {
      write: createFileTools(root).find((t) => t.definition.name === 'write')!,
      allow: directorySandbox(root),
    };
    const input = { path: `sub/f${i}.md`, content: `n${i}` };
    const decision = await tools.allow('write', input);
    if (decision.behavior !== 'allow') throw new Error('refused by the sandbox');
    const result = await tools.write.execute(input, {});
    if (result.isError) throw new Error(String(result.content));
  }, 1000);
}, 300_000);
