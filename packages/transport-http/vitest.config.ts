import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds the demo server the SDK interop test spawns (a no-op when turbo already built it).
    globalSetup: ['test/build-demo.ts'],
    // Real sockets: a test waits for events (close, data), never for time, but CI machines are small.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-report.json' },
  },
});
