import { fileURLToPath } from 'node:url';

export const DEMO_PROJECT = fileURLToPath(new URL('../../../../examples/everything', import.meta.url));
export const DEMO_MAIN = fileURLToPath(
  new URL('../../../../examples/everything/dist/main.js', import.meta.url),
);
