import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createConfinement } from './index.js';

/**
 * A second process swaps `memory/sub` between a real folder and a link to a folder outside as
 * fast as it can, while this process writes at least 1,200 files into `sub/`. Writes may be refused or
 * land in the real folder (wherever it was moved inside the root); none may land outside.
 */
const FLIPPER = `
const fs = require('node:fs');
const [root, outside, stop] = process.argv.slice(1);
const sub = root + '/sub', parked = root + '/parked';
let flips = 0;
process.stdout.write('ready ');
for (;;) {
  if (fs.existsSync(stop)) break;
  try { fs.renameSync(sub, parked); fs.symlinkSync(outside, sub); flips++;
        if (flips % 20 === 0) process.stdout.write(flips + ' ');
        fs.unlinkSync(sub); fs.renameSync(parked, sub); } catch {}
}
process.stdout.write(flips + ' ');
`;

it('a folder flipped to a link during 1,200 writes lands 0 writes outside', async () => {
  const top = await mkdtemp(join(tmpdir(), 'engram-race-'));
  const root = join(top, 'memory');
  const outside = join(top, 'outside');
  const stop = join(top, 'stop');
  await mkdir(join(root, 'sub'), { recursive: true });
  await mkdir(outside);
  const child = spawn(process.execPath, ['-e', FLIPPER, root, outside, stop], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  child.on('exit', (code) => {
    if (code !== 0) out += ' -1';
  });
  const c = createConfinement({ roots: [{ path: root, write: true }] });
  const flipsSoFar = () => Number(out.trim().split(' ').at(-1)) || 0;
  // The flipper must be running before the first write, or the writes race nothing.
  while (!out.includes('ready')) await new Promise((r) => setTimeout(r, 20));
  let written = 0;
  let refused = 0;
  let attempts = 0;
  // At least 1,200 writes, and on a loaded machine keep going until the flipper really raced them.
  while ((attempts < 1200 || flipsSoFar() < 50) && attempts < 6000) {
    try {
      await c.writeText(`sub/f${attempts}.md`, `n${attempts}`);
      written++;
    } catch {
      refused++;
    }
    attempts++;
  }
  await writeFile(stop, '');
  await exited;
  const flips = flipsSoFar();
  const stats = { attempts, written, refused, flips };
  expect({ outside: await readdir(outside), ...stats }).toEqual({ outside: [], ...stats });
  // The race was real: the folder was swapped many times while writes ran, and writes went through.
  expect(flips, JSON.stringify(stats)).toBeGreaterThanOrEqual(50);
  expect(written, JSON.stringify(stats)).toBeGreaterThan(0);
}, 300_000);
