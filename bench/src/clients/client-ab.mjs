// The client's HTTP path before/after in one process: `@snodo/client` from this checkout and from
// the checkout at --ab, each connected over HTTP to one backend child (Snodo's listener with the
// demo server), `callTool('echo')` with N calls in flight, timed in alternating batches
// (process.cpuUsage of this process: the client's work and undici's, nothing of the server's;
// KB allocated on the JS heap per call, which does not depend on the machine's load).
// The ratio is the median of per-pair ratios (this / base). `--bare` adds the floor, timed in the
// same pairs: the same request sent with undici's `dispatch` and a handler that only collects the
// answer (fixed headers, no MCP work: proxy-floor.mjs's forwarder's client side).
//   node bench/src/clients/client-ab.mjs --ab PATH [--this PATH] [--pairs 40] [--calls 1000] [--inflight 16] [--bare]
import process from 'node:process';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { allocated } from '../lib/allocated.mjs';
import { resolveIn, THIS_ROOT } from '../lib/checkout.mjs';
import { startServer } from '../lib/child.mjs';
import { echo } from '../lib/requests.mjs';
import { serverSpec } from '../lib/servers.mjs';
import { spread } from '../lib/stats.mjs';

const { values } = parseArgs({
  options: {
    ab: { type: 'string' },
    this: { type: 'string' },
    pairs: { type: 'string', default: '40' },
    calls: { type: 'string', default: '1000' },
    inflight: { type: 'string', default: '16' },
    text: { type: 'string', default: '2' },
    bare: { type: 'boolean', default: false },
  },
});
if (values.ab === undefined) throw new Error('--ab PATH is required (the base checkout)');

const backend = await startServer(serverSpec('snodo'));
const text = values.text === '2' ? 'hi' : 'x'.repeat(Number(values.text));

async function side(label, root) {
  const { connect } = await import(resolveIn(root, '@snodo/client'));
  const client = await connect({ http: backend.url }, { protocolVersions: ['2026-07-28'] });
  return { label, call: () => client.callTool('echo', { text }), close: () => client.close(), rows: [] };
}

/** The floor: one POST of the echo with undici's dispatch, the answer collected, nothing decoded. */
function bareSide() {
  const url = new URL(backend.url);
  const pool = new Pool(url.origin, { connections: 16, headersTimeout: 0, bodyTimeout: 0 });
  const { headers, body } = echo('modern', text);
  const flat = Object.entries(headers).flat();
  const call = () =>
    new Promise((resolve, reject) => {
      const chunks = [];
      pool.dispatch(
        { path: url.pathname, method: 'POST', headers: flat, body },
        {
          onRequestStart() {},
          onResponseStart() {},
          onResponseData(_controller, chunk) {
            chunks.push(chunk);
          },
          onResponseEnd() {
            resolve(Buffer.concat(chunks).toString('utf8'));
          },
          onResponseError(_controller, error) {
            reject(error);
          },
        },
      );
    });
  return { label: 'bare', call, close: () => pool.close(), rows: [] };
}

async function batch(s, calls, inflight) {
  let next = 0;
  const worker = async () => {
    while (next++ < calls) await s.call();
  };
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  // Bytes allocated on the JS heap: load-proof.
  const { bytes } = await allocated(() => Promise.all(Array.from({ length: inflight }, worker)));
  const used = process.cpuUsage(cpu);
  return {
    kb: bytes / 1024 / calls,
    us: (used.user + used.system) / calls,
    wallUs: Number(process.hrtime.bigint() - started) / 1000 / calls,
  };
}

try {
  const base = await side('base', values.ab);
  const ours = await side('this', values.this ?? THIS_ROOT);
  const calls = Number(values.calls);
  const inflight = Number(values.inflight);
  const bare = values.bare ? bareSide() : undefined;
  const sides = bare ? [base, ours, bare] : [base, ours];
  for (let i = 0; i < 10; i++) for (const s of sides) await batch(s, calls, inflight);
  for (let pair = 0; pair < Number(values.pairs); pair++) {
    const order = pair % 2 === 0 ? sides : [...sides].reverse();
    for (const s of order) s.rows.push(await batch(s, calls, inflight));
  }
  const ratios = ours.rows.map((r, i) => r.us / base.rows[i].us);
  const fmt = (xs) => {
    const [mid, low, high] = spread(xs);
    return `${mid.toFixed(2)} (${low.toFixed(2)}–${high.toFixed(2)})`;
  };
  console.log(
    JSON.stringify({
      baseUsPerCall: fmt(base.rows.map((r) => r.us)),
      thisUsPerCall: fmt(ours.rows.map((r) => r.us)),
      thisOverBase: fmt(ratios),
      baseKbPerCall: fmt(base.rows.map((r) => r.kb)),
      thisKbPerCall: fmt(ours.rows.map((r) => r.kb)),
      ...(bare
        ? {
            bareUsPerCall: fmt(bare.rows.map((r) => r.us)),
            thisOverBare: fmt(ours.rows.map((r, i) => r.us / bare.rows[i].us)),
            bareKbPerCall: fmt(bare.rows.map((r) => r.kb)),
          }
        : {}),
    }),
  );
  for (const s of sides) await s.close();
} finally {
  await backend.kill();
}
