// 3. stdio: 30,000 pipelined echo calls over a real child process, after 10,000 untimed ones (the
// warm-up every HTTP row also gets); the first batch's rate is reported as the cold figure.
import { stdioRound } from '../lib/stdio-round.mjs';

const ROWS = [
  {
    id: 'snodo',
    label: 'Snodo stdio (demo server), 2026-07-28',
    role: 'ours',
    server: 'snodo-stdio',
    dialect: 'modern',
  },
  {
    id: 'sdk-v2',
    label: 'SDK 2.x serveStdio, 2026-07-28',
    role: 'peer',
    short: 'SDK 2.x',
    server: 'v2-stdio',
    dialect: 'modern',
  },
  {
    id: 'sdk-v1',
    label: 'SDK 1.x StdioServerTransport',
    role: 'peer',
    short: 'SDK 1.x',
    server: 'v1-stdio',
    dialect: 'legacy',
  },
  {
    // The least a stdio server that parses must do (servers/bare-jsonrpc-stdio.mjs).
    id: 'bare-jsonrpc',
    label: 'stdio JSON-RPC echo, JSON.parse + JSON.stringify, no checks',
    role: 'ceiling',
    short: 'bare JSON-RPC',
    server: 'bare-jsonrpc-stdio',
    dialect: 'modern',
  },
];

export default {
  id: 'stdio',
  title: 'stdio: pipelined echo calls',
  budgetMs: 60_000,
  params: (quick) => ({ calls: quick ? 200 : 30_000, warmupCalls: quick ? 200 : 10_000 }),
  metrics: [
    { key: 'callsPerSecond', label: 'calls/s', better: 'higher', digits: 0 },
    { key: 'coldCallsPerSecond', label: 'calls/s, first batch (cold)', better: 'higher', digits: 0 },
    { key: 'peakRssMb', label: 'server peak RSS MB', better: 'lower', digits: 0 },
    { key: 'cpuUsPerCall', label: 'server CPU µs/call', better: 'lower', digits: 0 },
    { key: 'allocKbPerCall', label: 'server KB allocated/call', better: 'lower', digits: 1 },
  ],
  primary: 'callsPerSecond',
  rows: () => ROWS,
  run: (row, ctx) =>
    stdioRound({
      server: row.server,
      dialect: row.dialect,
      calls: ctx.params.calls,
      warmupCalls: ctx.params.warmupCalls,
      root: ctx.root,
    }),
};
