import { execFileSync } from 'node:child_process';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRegularFile } from './regular-file.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engram-regular-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readRegularFile', () => {
  it('reads a regular file', async () => {
    await writeFile(join(dir, 'a.md'), 'hello');
    const got = await readRegularFile(join(dir, 'a.md'));
    expect(got).toMatchObject({ text: 'hello', size: 5, partial: false });
  });

  it('refuses a FIFO at once instead of waiting for a writer', async () => {
    const fifo = join(dir, 'x.md');
    execFileSync('mkfifo', [fifo]);
    await expect(readRegularFile(fifo)).rejects.toMatchObject({
      code: 'not_regular_file',
      message: expect.stringContaining('FIFO'),
    });
  });

  it('refuses a directory and a character device', async () => {
    await expect(readRegularFile(dir)).rejects.toMatchObject({ code: 'not_regular_file' });
    await expect(readRegularFile('/dev/zero')).rejects.toMatchObject({
      code: 'not_regular_file',
      message: expect.stringContaining('character device'),
    });
  });

  it('refuses, tails or heads a file over the limit', async () => {
    const big = join(dir, 'big.jsonl');
    const handle = await open(big, 'w');
    await handle.truncate(1024 * 1024 * 1024); // 1 GB sparse: no disk used
    await handle.write('END', 1024 * 1024 * 1024 - 3);
    await handle.close();
    await expect(readRegularFile(big, { maxBytes: 1024 })).rejects.toMatchObject({
      code: 'too_large',
    });
    const tail = await readRegularFile(big, { maxBytes: 8, overflow: 'tail' });
    expect(tail.partial).toBe(true);
    expect(tail.text.endsWith('END')).toBe(true);
    expect((await readRegularFile(big, { maxBytes: 8, overflow: 'head' })).text).toHaveLength(8);
  });
});
