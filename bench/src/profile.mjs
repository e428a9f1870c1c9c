#!/usr/bin/env node
// Profiles one server under the load of one scenario's request: the server child runs with
// --cpu-prof, the load comes from the autocannon child (HTTP) or from this process over the pipe
// (stdio), and the profile is summarized by self time per function and per file.
//   node src/profile.mjs --server snodo --dialect modern [--seconds 5] [--connections 32] [--text-bytes N]
//   node src/profile.mjs --server snodo-stdio --dialect modern --calls 20000
//   node src/profile.mjs --server proxy [--seconds 5] [--connections 32]   (snodo-proxy is profiled,
//     in front of Snodo's listener; the proxy scenario's set-up)
// Writes the .cpuprofile under --dir (default /tmp/snodo-bench-prof) for a flame graph viewer.
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { inCheckout } from './lib/checkout.mjs';
import { startServer, Worker } from './lib/child.mjs';
import { summarize } from './lib/profile-summary.mjs';
import { withProxy } from './lib/proxy.mjs';
import { echo } from './lib/requests.mjs';
import { serverSpec } from './lib/servers.mjs';
import { stdioRound } from './lib/stdio-round.mjs';

const { values } = parseArgs({
  options: {
    server: { type: 'string', default: 'snodo' },
    dialect: { type: 'string', default: 'modern' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '32' },
    'text-bytes': { type: 'string', default: '2' },
    calls: { type: 'string', default: '20000' },
    dir: { type: 'string', default: '/tmp/snodo-bench-prof' },
    top: { type: 'string', default: '30' },
  },
});

const dir = join(values.dir, `${values.server}-${Date.now()}`);
mkdirSync(dir, { recursive: true });
const execArgv = ['--cpu-prof', `--cpu-prof-dir=${dir}`];
const spec = values.server === 'proxy' ? {} : serverSpec(values.server);

if (spec.stdio) {
  // stdio servers exit at EOF, which writes the profile.
  const result = await stdioRound({
    server: values.server,
    dialect: values.dialect,
    calls: Number(values.calls),
    execArgv,
    graceful: true,
  });
  console.log(JSON.stringify(result));
} else if (values.server === 'proxy') {
  const cli = inCheckout(undefined, 'packages/proxy/dist/cli/main.js');
  await withProxy({ cli, execArgv }, async (proxy) => {
    await loadAndReport(proxy.url);
    // SIGTERM lets the proxy exit on its own, which writes the profile (withProxy's kill is SIGKILL).
    proxy.child.kill('SIGTERM');
    await proxy.exited;
  });
} else {
  const child = await startServer({ ...spec, execArgv });
  await loadAndReport(child.url);
  child.child.kill('SIGTERM');
  await child.exited;
}

/** Runs the load of the chosen dialect against `url` for --seconds and prints autocannon's figures. */
async function loadAndReport(url) {
  const load = new Worker(new URL('./clients/autocannon.mjs', import.meta.url));
  const text = values['text-bytes'] === '2' ? 'hi' : 'x'.repeat(Number(values['text-bytes']));
  const session = values.dialect === 'session';
  const request = echo(values.dialect, text, { idToken: session });
  const prepared = await load.call({ type: 'prepare', url, request, session, expect: {} }, 30_000);
  const run = await load.call(
    {
      type: 'run',
      url,
      headers: prepared.headers,
      body: request.body,
      connections: Number(values.connections),
      duration: Number(values.seconds),
      idToken: session,
    },
    120_000,
  );
  console.log(JSON.stringify(run));
  await load.close();
}

const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
if (file === undefined) throw new Error(`no profile written in ${dir}`);
summarize(JSON.parse(readFileSync(join(dir, file), 'utf8')), Number(values.top));
console.log(`profile: ${join(dir, file)}`);
