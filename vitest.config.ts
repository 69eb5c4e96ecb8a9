import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The real-Claude-Code suites run on their own after this one (vitest.e2e.config.ts).
    exclude: [...configDefaults.exclude, 'test/**/*.e2e.test.ts'],
    // A bound for a test that hangs, not a speed target (no test asserts a duration): black-box
    // tests spawn the CLI dozens of times, and on a loaded two-core machine each spawn can take
    // seconds, so 30 s failed tests that were only slow.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Two cores on CI: forks keep native modules and child processes isolated.
    pool: 'forks',
    maxWorkers: 2,
  },
});
