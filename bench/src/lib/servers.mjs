// The server programs, by name. `examples/everything` is the demo server every Snodo row serves;
// the peers serve the same `echo {text}` tool (servers/*.mjs say how each is built).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { inCheckout, ROOT_ENV } from './checkout.mjs';

const here = (path) => new URL(`../servers/${path}`, import.meta.url);
export const REPO = new URL('../../../', import.meta.url);

export const SERVERS = {
  snodo: { program: here('snodo-http.mjs') },
  fastify: { program: here('snodo-fastify.mjs') },
  v2: { program: here('v2-http.mjs') },
  v1: { program: here('v1-http.mjs') },
  bare: { program: here('bare-http.mjs') },
  'bare-jsonrpc': { program: here('bare-jsonrpc-http.mjs') },
  // A diagnostic for profile.mjs, in no scenario: core's HTTP path on a minimal node:http host.
  'snodo-handle': { program: here('snodo-handle-http.mjs') },
  'bare-sse': { program: here('bare-sse.mjs') },
  'v2-stateful': { program: here('v2-http.mjs'), args: ['--stateful'] },
  'v1-stateful': { program: here('v1-http.mjs'), args: ['--stateful'] },
  // A program of the checkout itself: `repoPath` is taken from the base checkout on its rows.
  'snodo-stdio': { repoPath: 'examples/everything/dist/main.js', args: ['--stdio'], stdio: true },
  'v2-stdio': { program: here('v2-stdio.mjs'), stdio: true },
  'v1-stdio': { program: here('v1-stdio.mjs'), stdio: true },
  'bare-jsonrpc-stdio': { program: here('bare-jsonrpc-stdio.mjs'), stdio: true },
};

/**
 * The start spec of server `name` for a row: `root` (a base checkout, or undefined for this one)
 * decides where the Snodo code comes from.
 */
export function serverSpec(name, root) {
  const spec = SERVERS[name];
  if (spec === undefined) throw new Error(`unknown server ${name}`);
  if (spec.repoPath === undefined) {
    return root === undefined ? spec : { ...spec, env: { ...spec.env, [ROOT_ENV]: root } };
  }
  const program = inCheckout(root, spec.repoPath);
  return { ...spec, program, requires: program };
}

/** Why a server cannot start yet (a file it needs is not built), or undefined. */
export function missing(spec) {
  if (spec.requires !== undefined && !existsSync(spec.requires)) {
    return `${fileURLToPath(spec.requires)} is not built`;
  }
  return undefined;
}
