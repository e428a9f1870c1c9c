import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Real sockets and child processes: a test waits for events, never for time.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-report.json' },
  },
});
