import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A bound, not an expectation: real sockets and a README module compiled on first import run
    // past vitest's 5 s default on a loaded 2-core machine (CI runs every package at once).
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The type tests (*.test-d.ts) run with every `vitest run`: `tsc` checks them against the
    // test tsconfig, and each expectation is a test in the report CI counts.
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.test.json' },
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-report.json' },
  },
});
