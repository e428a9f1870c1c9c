import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The type tests (*.test-d.ts) run with every `vitest run`: `tsc` checks them against the
    // test tsconfig, and each expectation is a test in the report CI counts.
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.test.json' },
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-report.json' },
  },
});
