// The listener before/after in one process: @snodo/transport-http's listen() serving the demo
// server (examples/everything) from this checkout and from the checkout at --ab, both in this
// process, loaded in alternating batches by one autocannon child. Each batch's CPU per request is
// this process's (process.cpuUsage: node:http, the listener, core's HTTP path, the engine), so both
// sides of a pair see the same machine load; the ratio is the median of per-pair ratios
// (this / base). What the http-echo scenario's "server CPU µs/req" measures, without its
// round-to-round drift on a shared machine.
//   node bench/src/clients/listener-ab.mjs --ab PATH [--this PATH] [--dialect modern|session]
//     [--pairs 8] [--seconds 2] [--warmup 4] [--connections 32]
// prints, per side, µs/request, KB allocated/request and req/s [median, min, max], then the paired ratios.
import process from 'node:process';
import { parseArgs } from 'node:util';
import { countAllocation } from '../lib/allocated.mjs';
import { resolveIn, THIS_ROOT } from '../lib/checkout.mjs';
import { Worker } from '../lib/child.mjs';
import { echo } from '../lib/requests.mjs';
import { abReport } from '../lib/stats.mjs';

const { values } = parseArgs({
  options: {
    ab: { type: 'string' },
    // The other side (default this checkout): `--this` the same PATH as `--ab` is an A/A run.
    this: { type: 'string' },
    dialect: { type: 'string', default: 'modern' },
    pairs: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '4' },
    connections: { type: 'string', default: '32' },
  },
});
if (values.ab === undefined) throw new Error('--ab PATH is required (the base checkout)');

const request = echo(values.dialect, 'hi');
const expect = { contains: '"text":"hi"' };
const load = new Worker(new URL('./autocannon.mjs', import.meta.url));

/** One side: the listener of `root`, on its own port in this process. */
async function side(label, root) {
  const { listen } = await import(resolveIn(root, '@snodo/transport-http'));
  const { createEverythingServer } = await import(resolveIn(root, 'everything/server'));
  const server = await listen({ runtime: createEverythingServer(), host: '127.0.0.1', port: 0 });
  const url = server.url();
  const session = values.dialect === 'session';
  const { headers } = await load.call({ type: 'prepare', url, request, session, expect }, 30_000);
  return { label, server, url, headers, rows: [] };
}

async function batch(s, seconds) {
  const counting = countAllocation();
  const cpu = process.cpuUsage();
  const run = await load.call(
    {
      type: 'run',
      url: s.url,
      headers: s.headers,
      body: request.body,
      connections: Number(values.connections),
      duration: seconds,
    },
    seconds * 1000 + 60_000,
  );
  const used = process.cpuUsage(cpu);
  const { bytes: allocated } = counting.stop();
  if (run.non2xx > 0 || run.errors > 0)
    throw new Error(`${s.label}: ${run.non2xx} non-2xx, ${run.errors} errors`);
  return { us: (used.user + used.system) / run.ok, kb: allocated / run.ok / 1024, rps: run.rps };
}

const KEYS = ['us', 'kb', 'rps'];

try {
  const base = await side('base', values.ab);
  const ours = await side('this', values.this ?? THIS_ROOT);
  const seconds = Number(values.seconds);
  for (const s of [base, ours]) await batch(s, Number(values.warmup));
  for (let pair = 0; pair < Number(values.pairs); pair++) {
    const order = pair % 2 === 0 ? [base, ours] : [ours, base];
    for (const s of order) s.rows.push(await batch(s, seconds));
  }
  const report = { dialect: values.dialect, ...abReport(base, ours, KEYS) };
  console.log(JSON.stringify(report, (_k, v) => (typeof v === 'number' ? Number(v.toFixed(3)) : v)));
  for (const s of [base, ours]) await s.server.close();
} finally {
  await load.close();
}
