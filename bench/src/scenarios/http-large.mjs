// 2. HTTP tools/call echo with a 1 MB argument: throughput and the server's peak memory.
import { httpRound } from '../lib/http-round.mjs';
import { echo } from '../lib/requests.mjs';

const ROWS = [
  { id: 'snodo-2026', label: 'Snodo listener, 2026-07-28', role: 'ours', server: 'snodo', dialect: 'modern' },
  {
    id: 'snodo-fastify',
    label: 'Snodo Fastify plugin, 2026-07-28',
    role: 'ours',
    server: 'fastify',
    dialect: 'modern',
  },
  {
    id: 'sdk-v2',
    label: 'SDK 2.x createMcpHandler, 2026-07-28',
    role: 'peer',
    short: 'SDK 2.x',
    server: 'v2',
    dialect: 'modern',
  },
  {
    id: 'sdk-v1',
    label: 'SDK 1.x stateless',
    role: 'peer',
    short: 'SDK 1.x',
    server: 'v1',
    dialect: 'legacy',
  },
  {
    id: 'bare',
    label: 'bare node:http, fixed response',
    role: 'ceiling',
    short: 'bare',
    server: 'bare',
    dialect: 'modern',
  },
];

export default {
  id: 'http-large',
  title: 'HTTP tools/call echo, 1 MB argument',
  budgetMs: 85_000,
  params: (quick) => ({
    argumentBytes: quick ? 10_000 : 1_000_000,
    connections: quick ? 2 : 8,
    warmupS: quick ? 0.3 : 1,
    durationS: quick ? 0.5 : 3,
  }),
  metrics: [
    { key: 'rps', label: 'req/s', better: 'higher', digits: 0 },
    { key: 'p50', label: 'p50 ms', better: 'lower', digits: 1 },
    { key: 'p99', label: 'p99 ms', better: 'lower', digits: 1 },
    { key: 'peakRssMb', label: 'server peak RSS MB', better: 'lower', digits: 0 },
    { key: 'cpuUsPerMb', label: 'server CPU µs/MB moved', better: 'lower', digits: 0 },
  ],
  primary: 'rps',
  rows: () => ROWS,
  async run(row, ctx) {
    const { argumentBytes, connections, warmupS, durationS } = ctx.params;
    const text = 'x'.repeat(argumentBytes);
    const request = echo(row.dialect, text);
    const values = await httpRound(ctx, {
      server: row.server,
      // The bare server answers a fixed response of the same size as the echo, parsing nothing.
      args: row.role === 'ceiling' ? ['--text-bytes', String(argumentBytes)] : [],
      request,
      expect: { minLength: argumentBytes },
      connections,
      warmup: warmupS,
      duration: durationS,
    });
    // Every row moves the same bytes per request (the argument in, the same text out), so CPU per
    // byte compares as CPU per request does; it is reported per MB of request and response body.
    const mb = (request.body.length + argumentBytes) / 1e6;
    return { ...values, peakRssMb: values.peakRss / 2 ** 20, cpuUsPerMb: values.cpuUsPerRequest / mb };
  },
};
