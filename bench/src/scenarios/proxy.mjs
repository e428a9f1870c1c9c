// 6. Proxy: tools/call echo through snodo-proxy against the same call sent straight to the same
// backend (Snodo's listener serving the demo server). Each round loads a warm process twice: at 32
// connections (throughput, and CPU per call: the proxy's against its backend's over the same calls)
// and then at 4 connections, not saturated, where the p50 the proxy adds is the figure.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { inCheckout } from '../lib/checkout.mjs';
import { startServer } from '../lib/child.mjs';
import { loadRound } from '../lib/http-round.mjs';
import { proxiedRun, withProxy } from '../lib/proxy.mjs';
import { echo } from '../lib/requests.mjs';
import { serverSpec } from '../lib/servers.mjs';

const proxyCli = (root) => inCheckout(root, 'packages/proxy/dist/cli/main.js');

const ROWS = [
  { id: 'proxy', label: 'through snodo-proxy, 2026-07-28', role: 'ours', versus: ['direct'] },
  {
    id: 'direct',
    label: 'direct to the backend (Snodo listener), 2026-07-28',
    role: 'peer',
    short: 'direct',
  },
];

export default {
  id: 'proxy',
  title: 'Proxy: tools/call echo through snodo-proxy vs direct',
  budgetMs: 90_000,
  // A 5 s warm-up on both rows: the proxy takes ~10,000 calls to reach its steady state (its CPU per
  // call falls from ~1.4 ms to ~0.6 ms over the first 10 s, JIT tiering), the listener ~1 s.
  params: (quick) => ({
    connections: quick ? 4 : 32,
    fewConnections: 4,
    warmupS: quick ? 0.3 : 5,
    durationS: quick ? 0.5 : 3,
  }),
  metrics: [
    { key: 'rps', label: 'req/s', better: 'higher', digits: 0 },
    { key: 'p50', label: 'p50 ms', better: 'lower', digits: 2 },
    { key: 'p50At4', label: 'p50 ms, 4 connections', better: 'lower', digits: 3 },
    { key: 'cpuUsPerRequest', label: 'CPU µs/req (proxy or backend)', better: 'lower', digits: 0 },
    { key: 'cpuVsBackend', label: 'proxy CPU / backend CPU per call', better: 'lower', digits: 2 },
    { key: 'allocKbPerRequest', label: 'KB allocated/req', better: 'lower', digits: 1 },
  ],
  primary: 'rps',
  rows: () => ROWS,
  available(row) {
    const cli = proxyCli(row.root);
    if (row.id !== 'direct' && !existsSync(cli)) return `${fileURLToPath(cli)} is not built`;
    return undefined;
  },
  async run(row, ctx) {
    const { connections, fewConnections, warmupS, durationS } = ctx.params;
    const expect = { contains: '"text":"hi"' };
    const load = { connections, warmup: warmupS, duration: durationS, expect };
    const few = { connections: fewConnections, warmup: 0, duration: durationS, expect };
    if (row.id === 'direct') {
      const child = await startServer(serverSpec('snodo', ctx.root));
      try {
        const request = echo('modern', 'hi');
        const values = await loadRound(ctx, { child, url: child.url, request, ...load });
        const quiet = await loadRound(ctx, { child, url: child.url, request, ...few });
        return { ...values, p50At4: quiet.p50 };
      } finally {
        await child.kill();
      }
    }
    return withProxy({ cli: proxyCli(ctx.root), root: ctx.root }, async (proxy, _url, backend) => {
      const values = await proxiedRun(ctx, proxy, backend, load);
      const quiet = await proxiedRun(ctx, proxy, backend, few);
      return {
        ...values,
        p50At4: quiet.p50,
        backendCpuUsPerRequest: values.observedCpuUsPerRequest,
        cpuVsBackend: values.cpuUsPerRequest / values.observedCpuUsPerRequest,
      };
    });
  },
};
