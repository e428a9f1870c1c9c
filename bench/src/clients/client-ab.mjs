// The client's HTTP path before/after in one process: `@snodo/client` from this checkout and from
// the checkout at --ab, each connected over HTTP to one backend child (Snodo's listener with the
// demo server), `callTool('echo')` with N calls in flight, timed in alternating batches
// (process.cpuUsage of this process: the client's work and undici's, nothing of the server's;
// KB allocated on the JS heap per call, which does not depend on the machine's load).
// The ratio is the median of per-pair ratios (this / base).
//   node bench/src/clients/client-ab.mjs --ab PATH [--this PATH] [--pairs 40] [--calls 1000] [--inflight 16]
import process from 'node:process';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import { resolveIn, THIS_ROOT } from '../lib/checkout.mjs';
import { startServer } from '../lib/child.mjs';
import { serverSpec } from '../lib/servers.mjs';

const { values } = parseArgs({
  options: {
    ab: { type: 'string' },
    this: { type: 'string' },
    pairs: { type: 'string', default: '40' },
    calls: { type: 'string', default: '1000' },
    inflight: { type: 'string', default: '16' },
    text: { type: 'string', default: '2' },
  },
});
if (values.ab === undefined) throw new Error('--ab PATH is required (the base checkout)');

const backend = await startServer(serverSpec('snodo'));
const text = values.text === '2' ? 'hi' : 'x'.repeat(Number(values.text));

async function side(label, root) {
  const { connect } = await import(resolveIn(root, '@snodo/client'));
  const client = await connect({ http: backend.url }, { protocolVersions: ['2026-07-28'] });
  return { label, client, rows: [] };
}

async function batch(s, calls, inflight) {
  let next = 0;
  const worker = async () => {
    while (next++ < calls) await s.client.callTool('echo', { text });
  };
  // Bytes allocated on the JS heap (as bench/src/servers/control.mjs counts them): load-proof.
  const profiler = new v8.GCProfiler();
  profiler.start();
  const heapBefore = v8.getHeapStatistics().used_heap_size;
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: inflight }, worker));
  const used = process.cpuUsage(cpu);
  let bytes = v8.getHeapStatistics().used_heap_size - heapBefore;
  for (const gc of profiler.stop().statistics) {
    bytes += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
  }
  return {
    kb: bytes / 1024 / calls,
    us: (used.user + used.system) / calls,
    wallUs: Number(process.hrtime.bigint() - started) / 1000 / calls,
  };
}

const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

try {
  const base = await side('base', values.ab);
  const ours = await side('this', values.this ?? THIS_ROOT);
  const calls = Number(values.calls);
  const inflight = Number(values.inflight);
  for (let i = 0; i < 10; i++) for (const s of [base, ours]) await batch(s, calls, inflight);
  for (let pair = 0; pair < Number(values.pairs); pair++) {
    const order = pair % 2 === 0 ? [base, ours] : [ours, base];
    for (const s of order) s.rows.push(await batch(s, calls, inflight));
  }
  const ratios = ours.rows.map((r, i) => r.us / base.rows[i].us);
  const fmt = (xs) =>
    `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;
  console.log(
    JSON.stringify({
      baseUsPerCall: fmt(base.rows.map((r) => r.us)),
      thisUsPerCall: fmt(ours.rows.map((r) => r.us)),
      thisOverBase: fmt(ratios),
      baseKbPerCall: fmt(base.rows.map((r) => r.kb)),
      thisKbPerCall: fmt(ours.rows.map((r) => r.kb)),
    }),
  );
  await base.client.close();
  await ours.client.close();
} finally {
  await backend.kill();
}
