import { expect, it } from 'vitest';
import { markHostProcess, markOneShotProcess, processKind } from './process-kind.js';

it('is a library until an entry says otherwise, and a host never becomes one-shot', () => {
  // A library caller's process keeps the thread pool's calls and the sliced work.
  expect(processKind()).toBe('library');
  markHostProcess();
  markOneShotProcess(); // e.g. `engram mcp` through the full CLI, which marks one-shot first
  expect(processKind()).toBe('host');
});
