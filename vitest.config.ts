import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The real-Claude-Code suites run on their own after this one (vitest.e2e.config.ts).
    exclude: [...configDefaults.exclude, 'test/**/*.e2e.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores on CI: forks keep native modules and child processes isolated.
    pool: 'forks',
    maxWorkers: 2,
  },
});
