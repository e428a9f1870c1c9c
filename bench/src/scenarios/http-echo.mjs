// 1. HTTP tools/call echo with small arguments, 32 concurrent keep-alive connections.
import { httpRound } from '../lib/http-round.mjs';
import { echo } from '../lib/requests.mjs';

const ROWS = [
  { id: 'snodo-2026', label: 'Snodo listener, 2026-07-28', role: 'ours', server: 'snodo', dialect: 'modern' },
  {
    id: 'snodo-2025',
    label: 'Snodo listener, 2025-06-18 session',
    role: 'ours',
    server: 'snodo',
    dialect: 'session',
  },
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
  {
    // The least a server that parses must do (servers/bare-jsonrpc-http.mjs): the floor under MCP's work.
    id: 'bare-jsonrpc',
    label: 'bare node:http, JSON-RPC echo (JSON.parse + JSON.stringify, no checks)',
    role: 'ceiling',
    short: 'bare JSON-RPC',
    server: 'bare-jsonrpc',
    dialect: 'modern',
  },
];

export default {
  id: 'http-echo',
  title: 'HTTP tools/call echo, small arguments',
  budgetMs: 100_000,
  params: (quick) => ({ connections: quick ? 4 : 32, warmupS: quick ? 0.3 : 1, durationS: quick ? 0.5 : 3 }),
  metrics: [
    { key: 'rps', label: 'req/s', better: 'higher', digits: 0 },
    { key: 'p50', label: 'p50 ms', better: 'lower', digits: 2 },
    { key: 'p99', label: 'p99 ms', better: 'lower', digits: 2 },
    { key: 'cpuUsPerRequest', label: 'server CPU µs/req', better: 'lower', digits: 0 },
    { key: 'allocKbPerRequest', label: 'server KB allocated/req', better: 'lower', digits: 1 },
  ],
  primary: 'rps',
  rows: () => ROWS,
  run(row, ctx) {
    const { connections, warmupS, durationS } = ctx.params;
    return httpRound(ctx, {
      server: row.server,
      request: echo(row.dialect, 'hi', { idToken: row.dialect === 'session' }),
      session: row.dialect === 'session',
      expect: { contains: '"text":"hi"' },
      connections,
      warmup: warmupS,
      duration: durationS,
    });
  },
};
