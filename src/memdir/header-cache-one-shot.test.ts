/**
 * The header cache's suite again, in a one-shot process (src/util/process-kind.ts): there its file
 * is written, under its lock, with synchronous file calls (src/util/fs-calls.ts), and the merge
 * with another writer's file, the rename into place and the clean-up must be what they are with
 * the thread pool's calls.
 */
import { expect, it } from 'vitest';
import { isOneShotProcess, markOneShotProcess } from '../util/process-kind.js';
import './header-cache.test.js';

markOneShotProcess();

it('runs the suite above as a one-shot process', () => {
  expect(isOneShotProcess()).toBe(true);
});
