import { fileURLToPath } from 'node:url';

export const DEMO_PROJECT = fileURLToPath(new URL('../../../../examples/everything', import.meta.url));
export const DEMO_MAIN = fileURLToPath(
  new URL('../../../../examples/everything/dist/main.js', import.meta.url),
);
/** The console tests' stdio server (see its header for the scenarios). */
export const CONSOLE_SCENARIOS = fileURLToPath(new URL('../fixtures/console-scenarios.mjs', import.meta.url));
