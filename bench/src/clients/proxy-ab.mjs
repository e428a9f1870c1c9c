// The proxy before/after in one process: snodo-proxy's library (createProxy + the HTTP listener)
// from this checkout and from the checkout at --ab, both served from this process in front of one
// backend child (Snodo's listener with the demo server), loaded in alternating batches by one
// autocannon child. Each batch's CPU per call is this process's (process.cpuUsage: the proxy's
// whole work, its listener, core, the client and undici) and the backend child's (/proc) over the
// same calls, so both sides of a pair see the same machine load; the ratio is the median of
// per-pair ratios (this / base). What the bench's proxy scenario measures, without its
// round-to-round drift on a shared machine. KB allocated per call (this process's JS heap, from
// v8.GCProfiler as servers/control.mjs counts it) does not depend on the load.
//   node bench/src/clients/proxy-ab.mjs --ab PATH [--this PATH] [--pairs 8] [--seconds 2] [--connections 16]
// prints, per side, the median proxy µs/call, backend µs/call, their ratio, KB allocated per call,
// and the p50 at 4 connections (a second batch pair per pair), then the paired ratios.
import { parseArgs } from 'node:util';
import { resolveIn, THIS_ROOT } from '../lib/checkout.mjs';
import { startServer, Worker } from '../lib/child.mjs';
import { proxyPass, servedBatch } from '../lib/proxy.mjs';
import { echo } from '../lib/requests.mjs';
import { serverSpec } from '../lib/servers.mjs';
import { abReport } from '../lib/stats.mjs';

const { values } = parseArgs({
  options: {
    ab: { type: 'string' },
    // The other side (default this checkout): `--this` the same PATH as `--ab` is an A/A run.
    this: { type: 'string' },
    pairs: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '8' },
    connections: { type: 'string', default: '16' },
  },
});
if (values.ab === undefined) throw new Error('--ab PATH is required (the base checkout)');

const request = echo('modern', 'hi');
const expect = { contains: '"text":"hi"' };
const backend = await startServer(serverSpec('snodo'));
const load = new Worker(new URL('./autocannon.mjs', import.meta.url));

/** One side: the proxy library of `root`, listening on its own port in this process. */
async function side(label, root) {
  const { createProxy } = await import(resolveIn(root, '@snodo/proxy'));
  const { listen } = await import(resolveIn(root, '@snodo/transport-http'));
  const proxy = await createProxy({
    backends: [{ id: 'backend', target: { http: backend.url }, prefix: '' }],
  });
  const server = await listen({ runtime: proxy.runtime(), host: '127.0.0.1', port: 0, path: '/mcp' });
  const url = server.url();
  const { headers } = await load.call({ type: 'prepare', url, request, expect }, 30_000);
  return { label, proxy, server, url, headers, rows: [] };
}

async function batch(s, connections, seconds) {
  const { us, ...rest } = await servedBatch(load, {
    url: s.url,
    headers: s.headers,
    body: request.body,
    backendPid: backend.pid,
    connections,
    seconds,
  });
  return { proxyUs: us, ...rest };
}

try {
  const base = await side('base', values.ab);
  const ours = await side('this', values.this ?? THIS_ROOT);
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  // JIT warm-up of both sides (the proxy needs ~10,000 calls to reach its steady state).
  for (const s of [base, ours]) await batch(s, connections, Number(values.warmup));
  for (let pair = 0; pair < Number(values.pairs); pair++) {
    const order = pair % 2 === 0 ? [base, ours] : [ours, base];
    await proxyPass(order, batch, { connections, seconds, cpuKey: 'proxyUs' });
  }
  const keys = ['proxyUs', 'backendUs', 'ratio', 'kb', 'p50At4'];
  const report = abReport(base, ours, keys);
  console.log(JSON.stringify(report, (_k, v) => (typeof v === 'number' ? Number(v.toFixed(3)) : v)));
  for (const s of [base, ours]) {
    await s.server.close();
    await s.proxy.close();
  }
} finally {
  await load.close();
  await backend.kill();
}
