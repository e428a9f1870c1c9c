import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The conformance test runs the official suite four times (two requirement sets, against this
    // app and against the native listener), each a few seconds to a minute.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-report.json' },
  },
});
