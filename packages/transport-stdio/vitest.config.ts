import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds the demo server the end-to-end tests spawn (a no-op when turbo already built it).
    globalSetup: ['test/helpers/build-demo.ts'],
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-report.json' },
  },
});
