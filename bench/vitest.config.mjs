import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.mjs'],
    // Real child processes on a small, loaded CI machine; the smoke run itself takes a few seconds.
    testTimeout: 30_000,
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-report.json' },
  },
});
