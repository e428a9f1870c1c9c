// 9. The cost of tracing: scenario 1's 2026-07-28 echo on Snodo's listener with no OpenTelemetry
// SDK registered (core then skips tracing), with the SDK and exporters that drop everything, and
// with the SDK and in-memory exporters. One SERVER span and one duration measurement per request.
import { httpRound } from '../lib/http-round.mjs';
import { echo } from '../lib/requests.mjs';

const ROWS = [
  { id: 'otel-noop', label: 'SDK registered, no-op exporters', role: 'ours', args: ['--otel', 'noop'] },
  {
    id: 'otel-memory',
    label: 'SDK registered, in-memory exporters',
    role: 'ours',
    args: ['--otel', 'memory'],
  },
  { id: 'otel-none', label: 'no SDK registered', role: 'peer', short: 'no SDK', args: [] },
];

export default {
  id: 'otel',
  title: 'Tracing: HTTP tools/call echo with and without the OpenTelemetry SDK',
  budgetMs: 100_000,
  params: (quick) => ({ connections: quick ? 4 : 32, warmupS: quick ? 0.3 : 1, durationS: quick ? 0.5 : 3 }),
  metrics: [
    { key: 'rps', label: 'req/s', better: 'higher', digits: 0 },
    { key: 'p50', label: 'p50 ms', better: 'lower', digits: 2 },
    { key: 'p99', label: 'p99 ms', better: 'lower', digits: 2 },
    { key: 'cpuUsPerRequest', label: 'server CPU µs/req', better: 'lower', digits: 0 },
  ],
  primary: 'rps',
  rows: () => ROWS,
  run(row, ctx) {
    const { connections, warmupS, durationS } = ctx.params;
    return httpRound(ctx, {
      server: 'snodo',
      args: row.args,
      request: echo('modern', 'hi'),
      expect: { contains: '"text":"hi"' },
      connections,
      warmup: warmupS,
      duration: durationS,
    });
  },
  targets() {
    return [];
  },
};
