// A second process that swaps a folder between itself and a link to a folder outside, about as
// fast as it can, for the race tests: writes that run meanwhile may be refused or land in the real folder
// (wherever it sits inside the root at that moment), never outside.
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';

const FLIPPER = `
const fs = require('node:fs');
const [folder, outside, stop] = process.argv.slice(1);
const parked = folder + '.parked';
let flips = 0;
// Every other cycle the real folder stays in place for up to a millisecond: without that pause it
// is back for a single system call, so on an idle machine nothing raced could ever reach it.
const pause = new Int32Array(new SharedArrayBuffer(4));
process.stdout.write('ready ');
for (;;) {
  if (fs.existsSync(stop)) break;
  try { fs.renameSync(folder, parked); fs.symlinkSync(outside, folder); flips++;
        if (flips % 20 === 0) process.stdout.write(flips + ' ');
        fs.unlinkSync(folder); fs.renameSync(parked, folder); } catch {}
  if (flips % 2 === 0) Atomics.wait(pause, 0, 0, Math.random());
}
process.stdout.write(flips + ' ');
`;

export interface Flipper {
  /** Flips so far (as last reported). */
  flips(): number;
  /** Stop the flipper, wait for it, and return the number of flips. */
  stop(): Promise<number>;
}

/**
 * Start flipping `folder` (it must exist) to a link to `outside`; resolves once it runs. Its
 * parked copy and stop file sit beside the folder (`<folder>.parked`, `<folder>.stop`).
 */
export async function startFlipper(folder: string, outside: string): Promise<Flipper> {
  // Beside the folder, inside the same root: the flipper's own files never count as outside.
  const stopFile = `${folder}.stop`;
  const child = spawn(process.execPath, ['-e', FLIPPER, folder, outside, stopFile], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  while (!out.includes('ready')) await new Promise((r) => setTimeout(r, 20));
  const flips = () => Number(out.trim().split(' ').at(-1)) || 0;
  return {
    flips,
    async stop() {
      await writeFile(stopFile, '');
      await exited;
      return flips();
    },
  };
}
