import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one file at a time on a 2-core machine. Most files spend their time waiting
    // on child processes (the CLI, `expertq serve`, Chromium) or PostgreSQL, so two files side by side
    // use the second core; no test depends on running alone.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    globalSetup: ['./test/support/tmpfs-setup.ts', './test/support/postgres-setup.ts'],
  },
});
