// Requests per second for `tools/call echo` at 32 keep-alive connections, four servers in one run,
// alternating (round-robin, ROUNDS rounds), each server and the load generator in its own process:
//   snodo      @snodo/transport-http, a 2026-07-28 stateless request
//   sdk-v2     @modelcontextprotocol/server 2.4.0 createMcpHandler on node:http, the same 2026-07-28 request
//   sdk-v1     @modelcontextprotocol/sdk 1.32.2 Streamable HTTP stateless, a 2025-era request (v1 has no 2026-07-28)
//   bare       node:http returning a fixed JSON-RPC response
// Usage: pnpm --filter @snodo/transport-http bench   (env: ROUNDS=5 SECONDS=5 CONNECTIONS=32)
// Build first (pnpm build). Prints a table of medians and ratios; writes every run to a JSON file in the temp dir.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const SECONDS = Number(process.env.SECONDS ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 32);
const here = (path) => fileURLToPath(new URL(path, import.meta.url));

const TARGETS = [
  { name: 'snodo', script: 'servers/snodo.mjs', kind: 'modern' },
  { name: 'sdk-v2', script: 'servers/sdk-v2.mjs', kind: 'modern' },
  { name: 'sdk-v1', script: 'servers/sdk-v1.mjs', kind: 'legacy' },
  { name: 'bare', script: 'servers/bare.mjs', kind: 'modern' },
];

async function startServer(target) {
  const child = spawn(process.execPath, [here(target.script)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = await once(child.stdout, 'data');
  return { ...target, child, url: line.toString().trim(), runs: [] };
}

function load(url, kind) {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [here('load.mjs'), url, kind, String(SECONDS), String(CONNECTIONS)],
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${url}: ${stderr || error.message}`));
        else resolve(JSON.parse(stdout.trim().split('\n').at(-1)));
      },
    );
  });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const servers = [];
try {
  for (const target of TARGETS) servers.push(await startServer(target));
  for (let round = 1; round <= ROUNDS; round++) {
    // Rotate the start so no server always runs first (or last) in a round.
    const order = servers.map((_, i) => servers[(i + round - 1) % servers.length]);
    for (const server of order) {
      const run = await load(server.url, server.kind);
      if (run.non2xx || run.errors || run.timeouts) throw new Error(`${server.name}: ${JSON.stringify(run)}`);
      server.runs.push(run);
      console.error(
        `round ${round} ${server.name.padEnd(7)} ${run.rps.toFixed(0)} req/s  p50 ${run.p50} ms  p99 ${run.p99} ms`,
      );
    }
  }
  const snodo = median(servers[0].runs.map((r) => r.rps));
  const rows = servers.map((s) => {
    const rps = median(s.runs.map((r) => r.rps));
    return {
      server: s.name,
      request: s.kind,
      medianRps: Math.round(rps),
      snodoRatio: Number((snodo / rps).toFixed(2)),
      p50: median(s.runs.map((r) => r.p50)),
      p99: median(s.runs.map((r) => r.p99)),
    };
  });
  console.log(
    `tools/call echo, ${CONNECTIONS} keep-alive connections, ${ROUNDS} rounds x ${SECONDS} s, Node ${process.version}`,
  );
  console.log('| server | request | median req/s | snodo / server | p50 ms | p99 ms |');
  console.log('|---|---|---|---|---|---|');
  for (const row of rows)
    console.log(
      `| ${row.server} | ${row.request} | ${row.medianRps} | ${row.snodoRatio} | ${row.p50} | ${row.p99} |`,
    );
  const file = join(tmpdir(), `snodo-echo-rps-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  const runs = Object.fromEntries(servers.map((s) => [s.name, s.runs]));
  writeFileSync(
    file,
    JSON.stringify({ ROUNDS, SECONDS, CONNECTIONS, node: process.version, rows, runs }, null, 2),
  );
  console.log(`every run: ${file}`);
} finally {
  for (const server of servers) server.child.kill('SIGTERM');
}
