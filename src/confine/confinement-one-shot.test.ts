/**
 * The confinement's suite again, in a one-shot process (src/util/process-kind.ts): there every
 * file call of the walk and of the operations is synchronous (src/util/fs-calls.ts), and each check
 * must refuse and allow exactly what it does with the thread pool's calls.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { fsCalls } from '../util/fs-calls.js';
import { isOneShotProcess, markOneShotProcess } from '../util/process-kind.js';
import { createConfinement } from './index.js';
import './confinement.test.js';

markOneShotProcess();

it('runs the suite above with synchronous file calls: their work is done when they return', async () => {
  expect(isOneShotProcess()).toBe(true);
  const root = await mkdtemp(join(tmpdir(), 'engram-one-shot-'));
  const made = fsCalls().mkdir(join(root, 'sub'));
  expect(existsSync(join(root, 'sub'))).toBe(true);
  await made;
  const c = createConfinement({ roots: [{ path: root, write: true }] });
  await c.writeText('sub/a.md', 'alpha');
  const read = c.readText('sub/a.md');
  expect((await read).text).toBe(await readFile(join(root, 'sub', 'a.md'), 'utf8'));
  // The same errors as the promises give.
  await expect(fsCalls().open(join(root, 'missing'), 'r')).rejects.toMatchObject({
    code: 'ENOENT',
  });
  await expect(fsCalls().readdir(join(root, 'sub', 'a.md'))).rejects.toMatchObject({
    code: 'ENOTDIR',
  });
});
