import { defineConfig } from 'vitest/config';

/**
 * The end-to-end suites that drive the real Claude Code CLI: run after the main suite (`npm test`),
 * one file at a time, so several hundred MB of native CLI never compete with the unit tests'
 * timing on a two-core machine.
 */
export default defineConfig({
  test: {
    include: ['test/**/*.e2e.test.ts'],
    testTimeout: 480_000,
    hookTimeout: 600_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
