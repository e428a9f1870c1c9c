// tools/call echo: directly to the demo server over HTTP, and through snodo-proxy in front of the
// same server process, in the same run, alternating rounds. Three processes: the demo server, the
// proxy (the snodo-proxy command) and this client (@snodo/client over HTTP, 2026-07-28).
//   node bench/echo.mjs [--calls 2000] [--concurrency 32] [--total 8000] [--rounds 2]
// Latency: sequential calls, one at a time (p50/p99). Throughput: --total calls from --concurrency
// concurrent callers. CPU: utime+stime of the server and proxy processes per call (/proc).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { connect } from '@snodo/client';

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '32' },
    total: { type: 'string', default: '8000' },
    rounds: { type: 'string', default: '2' },
  },
});
const CALLS = Number(values.calls);
const CONCURRENCY = Number(values.concurrency);
const TOTAL = Number(values.total);
const ROUNDS = Number(values.rounds);

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const demo = join(dirname(require.resolve('everything/package.json')), 'dist', 'main.js');
const bin = join(here, '..', 'dist', 'cli', 'main.js');

function waitFor(child, stream, pattern) {
  return new Promise((resolve, reject) => {
    let text = '';
    child[stream].on('data', (chunk) => {
      text += chunk;
      const match = text.match(pattern);
      if (match) resolve(match);
    });
    child.once('exit', (code) => reject(new Error(`exited (${code}): ${text}`)));
  });
}

const TICKS = 100; // USER_HZ on Linux
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
  } catch {
    return Number.NaN;
  }
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function latency(client, tool) {
  for (let i = 0; i < 200; i++) await client.callTool(tool, { text: 'warm' });
  const samples = [];
  for (let i = 0; i < CALLS; i++) {
    const start = process.hrtime.bigint();
    await client.callTool(tool, { text: `echo ${i}` });
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

async function throughput(client, tool, pids) {
  let next = 0;
  const before = pids.map(cpuMs);
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < TOTAL) {
        next++;
        const result = await client.callTool(tool, { text: 'x' });
        if (result.content[0].text !== 'x') throw new Error('wrong echo');
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const cpu = pids.map((pid, i) => (cpuMs(pid) - before[i]) / TOTAL);
  return { rps: TOTAL / seconds, cpu };
}

const server = spawn(process.execPath, [demo, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const [serverUrl] = await waitFor(server, 'stdout', /http:\/\/\S+/);
const config = join(mkdtempSync(join(tmpdir(), 'snodo-proxy-bench-')), 'proxy.json');
writeFileSync(
  config,
  JSON.stringify({ listen: { port: 0 }, backends: [{ id: 'demo', target: { http: serverUrl } }] }),
);
const proxy = spawn(process.execPath, [bin, '--config', config], { stdio: ['ignore', 'ignore', 'pipe'] });
const [, proxyUrl] = await waitFor(proxy, 'stderr', /listening on (http:\/\/\S+)/);

const options = { connections: CONCURRENCY, cache: false };
const direct = await connect({ http: serverUrl }, options);
const proxied = await connect({ http: proxyUrl }, options);
const rows = { direct: [], proxy: [] };
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, client, tool, pids] of [
    ['direct', direct, 'echo', [server.pid]],
    ['proxy', proxied, 'demo.echo', [server.pid, proxy.pid]],
  ]) {
    const lat = await latency(client, tool);
    const tput = await throughput(client, tool, pids);
    rows[name].push({ ...lat, ...tput });
  }
}
await direct.close();
await proxied.close();
proxy.kill('SIGTERM');
server.kill('SIGTERM');

const median = (items) => [...items].sort((a, b) => a - b)[Math.floor(items.length / 2)];
const fmt = (n, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
console.log(
  `tools/call echo, 2026-07-28 over HTTP, ${CALLS} sequential calls, ${TOTAL} calls x ${CONCURRENCY} concurrent, ${ROUNDS} rounds (median)`,
);
console.log('| path | p50 ms | p99 ms | calls/s | server CPU ms/call | proxy CPU ms/call |');
console.log('|---|---|---|---|---|---|');
for (const name of ['direct', 'proxy']) {
  const r = rows[name];
  const proxyCpu = name === 'proxy' ? fmt(median(r.map((x) => x.cpu[1])), 3) : '-';
  console.log(
    `| ${name} | ${fmt(median(r.map((x) => x.p50)))} | ${fmt(median(r.map((x) => x.p99)))} | ${fmt(median(r.map((x) => x.rps)), 0)} | ${fmt(median(r.map((x) => x.cpu[0])), 3)} | ${proxyCpu} |`,
  );
}
process.exit(0);
