// 6. Proxy: tools/call echo through snodo-proxy against the same call sent straight to the same
// backend (Snodo's listener serving the demo server). Added p50/p99 latency and throughput ratio.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { httpRound } from '../lib/http-round.mjs';
import { proxyRound } from '../lib/proxy.mjs';
import { echo } from '../lib/requests.mjs';
import { REPO } from '../lib/servers.mjs';

const PROXY_CLI = new URL('packages/proxy/dist/cli/main.js', REPO);

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
  budgetMs: 75_000,
  // A 5 s warm-up on both rows: the proxy takes ~10,000 calls to reach its steady state (its CPU per
  // call falls from ~1.4 ms to ~0.6 ms over the first 10 s, JIT tiering), the listener ~1 s.
  params: (quick) => ({ connections: quick ? 4 : 32, warmupS: quick ? 0.3 : 5, durationS: quick ? 0.5 : 3 }),
  metrics: [
    { key: 'rps', label: 'req/s', better: 'higher', digits: 0 },
    { key: 'p50', label: 'p50 ms', better: 'lower', digits: 2 },
    { key: 'p99', label: 'p99 ms', better: 'lower', digits: 2 },
    { key: 'cpuUsPerRequest', label: 'CPU µs/req (proxy or backend)', better: 'lower', digits: 0 },
  ],
  primary: 'rps',
  rows: () => ROWS,
  available(row) {
    if (row.id === 'proxy' && !existsSync(PROXY_CLI)) return `${fileURLToPath(PROXY_CLI)} is not built`;
    return undefined;
  },
  async run(row, ctx) {
    const { connections, warmupS, durationS } = ctx.params;
    const load = { connections, warmup: warmupS, duration: durationS, expect: { contains: '"text":"hi"' } };
    if (row.id === 'direct')
      return httpRound(ctx, { server: 'snodo', request: echo('modern', 'hi'), ...load });
    return proxyRound(ctx, { cli: PROXY_CLI, load });
  },
  targets(result) {
    const proxy = result.rows.find((r) => r.id === 'proxy');
    const direct = result.rows.find((r) => r.id === 'direct');
    const added = (key) => {
      const ratios = [];
      for (let i = 0; i < Math.min(proxy?.rounds.length ?? 0, direct?.rounds.length ?? 0); i++) {
        const a = proxy.rounds[i]?.[key];
        const b = direct.rounds[i]?.[key];
        if (Number.isFinite(a) && Number.isFinite(b) && b > 0) ratios.push(a / b - 1);
      }
      ratios.sort((x, y) => x - y);
      return ratios.length === 0 ? undefined : ratios[ratios.length >> 1];
    };
    const p50 = added('p50');
    return [
      {
        name: 'proxy adds ≤ 25% to p50 latency',
        value: p50 === undefined ? undefined : p50 * 100,
        goal: 25,
        unit: '%',
        digits: 0,
        met: p50 === undefined ? undefined : p50 <= 0.25,
      },
      {
        name: 'proxy: added p99 (informative)',
        value: added('p99') === undefined ? undefined : added('p99') * 100,
        unit: '%',
        digits: 0,
      },
    ];
  },
};
