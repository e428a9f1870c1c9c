import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/build.ts'],
    // Real redis-server, HAProxy and demo processes: tests wait for events, never for time, but CI
    // machines are small.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-report.json' },
  },
});
