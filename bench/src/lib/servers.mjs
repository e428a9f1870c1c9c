// The server programs, by name. `examples/everything` is the demo server every Snodo row serves;
// the peers serve the same `echo {text}` tool (servers/*.mjs say how each is built).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = (path) => new URL(`../servers/${path}`, import.meta.url);
export const REPO = new URL('../../../', import.meta.url);

export const SERVERS = {
  snodo: { program: here('snodo-http.mjs') },
  fastify: { program: here('snodo-fastify.mjs') },
  v2: { program: here('v2-http.mjs') },
  v1: { program: here('v1-http.mjs') },
  bare: { program: here('bare-http.mjs') },
  'bare-sse': { program: here('bare-sse.mjs') },
  'v2-stateful': { program: here('v2-http.mjs'), args: ['--stateful'] },
  'v1-stateful': { program: here('v1-http.mjs'), args: ['--stateful'] },
  'snodo-stdio': {
    program: new URL('examples/everything/dist/main.js', REPO),
    args: ['--stdio'],
    stdio: true,
    requires: new URL('examples/everything/dist/main.js', REPO),
  },
  'v2-stdio': { program: here('v2-stdio.mjs'), stdio: true },
  'v1-stdio': { program: here('v1-stdio.mjs'), stdio: true },
};

/** Why a server cannot start yet (a file it needs is not built), or undefined. */
export function missing(spec) {
  if (spec.requires !== undefined && !existsSync(spec.requires)) {
    return `${fileURLToPath(spec.requires)} is not built`;
  }
  return undefined;
}
