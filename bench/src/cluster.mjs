// The cluster row of BENCHMARKS.md: `tools/call echo` through HAProxy (round robin per request,
// examples/cluster's configuration) in front of 1 and 2 demo instances sharing one redis-server,
// 2026-07-28 (stateless) and a 2025-06-18 session. Per row: requests per second, p50/p99, server
// CPU per request (every demo instance's utime+stime over the run / responses), HAProxy's and
// Redis's CPU per request, and Redis round trips per request (the commands the instances sent,
// from INFO commandstats: commands run inside a script are not round trips).
//   node bench/src/cluster.mjs [--rounds 3] [--duration 5] [--connections 32]
// Needs examples/cluster built (pnpm build). Every address is 127.0.0.1.

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { freePort, startBalancer, startInstance, startRedis } from '../../examples/cluster/dist/processes.js';
import { cpuMsOf } from './lib/proc.mjs';
import { echo, initialize, initialized } from './lib/requests.mjs';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '32' },
  },
});
const ROUNDS = Number(values.rounds);
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
/** Commands a script runs inside Redis: they cost no round trip. */
const INNER = new Set([
  'getex',
  'get',
  'time',
  'zadd',
  'zrem',
  'pttl',
  'pexpire',
  'zremrangebyscore',
  'zrange',
  'set',
  'zcard',
  'zpopmin',
  'del',
]);

async function cluster(count) {
  const secret = randomBytes(32).toString('base64url');
  const redis = await startRedis();
  const instances = [];
  for (let i = 0; i < count; i++)
    instances.push(await startInstance(String.fromCharCode(97 + i), { redisUrl: redis.url, secret }));
  const balancer = await startBalancer({
    port: await freePort(),
    servers: instances.map((instance) => ({ name: instance.name, port: instance.port })),
  });
  const cli = (...args) =>
    execFileSync('redis-cli', ['-p', String(redis.port), ...args], { encoding: 'utf8' });
  return {
    url: balancer.url,
    instances,
    balancer,
    redis,
    cli,
    async stop() {
      await balancer.stop();
      await Promise.all(instances.map((instance) => instance.stop()));
      await redis.stop();
    },
  };
}

async function prepare(url, dialect) {
  const request = echo(dialect === 'modern' ? 'modern' : 'session', 'hi', { idToken: true });
  const headers = { ...request.headers };
  if (dialect === 'session') {
    const init = initialize();
    const response = await fetch(url, { method: 'POST', headers: init.headers, body: init.body });
    await response.text();
    const id = response.headers.get('mcp-session-id');
    if (id === null) throw new Error(`initialize: ${response.status}`);
    const note = initialized(id);
    await (await fetch(url, { method: 'POST', headers: note.headers, body: note.body })).text();
    headers['mcp-session-id'] = id;
  }
  const check = await fetch(url, { method: 'POST', headers, body: request.body.replace('"[<id>]"', '1') });
  const text = await check.text();
  if (check.status !== 200 || !text.includes('"hi"'))
    throw new Error(`check: ${check.status} ${text.slice(0, 200)}`);
  return { headers, body: request.body };
}

function load(url, { headers, body }, duration) {
  return new Promise((resolve, reject) => {
    const latencies = [];
    const instance = autocannon(
      { url, method: 'POST', headers, body, connections: CONNECTIONS, duration, idReplacement: true },
      (error, result) => (error ? reject(error) : resolve({ result, latencies })),
    );
    instance.on('response', (_client, status, _bytes, time) => {
      if (status === 200) latencies.push(time);
    });
  });
}

function commandCalls(cli) {
  return Object.fromEntries(
    [...cli('INFO', 'commandstats').matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)].map(([, command, count]) => [
      command,
      Number(count),
    ]),
  );
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function row(count, dialect) {
  const rounds = [];
  for (let round = 0; round < ROUNDS; round++) {
    const c = await cluster(count);
    try {
      const request = await prepare(c.url, dialect);
      await load(c.url, request, 1); // warm-up, discarded
      const pids = c.instances.map((instance) => instance.pid);
      const cpu0 = pids.map(cpuMsOf);
      const lb0 = cpuMsOf(c.balancer.pid);
      const redis0 = cpuMsOf(c.redis.pid);
      c.cli('CONFIG', 'RESETSTAT');
      const { result, latencies } = await load(c.url, request, DURATION);
      const calls = commandCalls(c.cli);
      const responses = result['2xx'];
      const cpu = pids.map(cpuMsOf).reduce((sum, ms, i) => sum + ms - cpu0[i], 0);
      const roundTrips = Object.entries(calls)
        .filter(([command]) => !INNER.has(command) && command !== 'config' && command !== 'info')
        .reduce((sum, [, n]) => sum + n, 0);
      latencies.sort((a, b) => a - b);
      rounds.push({
        rps: responses / DURATION,
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        cpuUs: (cpu * 1000) / responses,
        lbUs: ((cpuMsOf(c.balancer.pid) - lb0) * 1000) / responses,
        redisUs: ((cpuMsOf(c.redis.pid) - redis0) * 1000) / responses,
        // Over every request sent: those still in flight when the run stopped were looked up too.
        rtt: roundTrips / result.requests.sent,
        non2xx: result.non2xx,
        calls,
      });
    } finally {
      await c.stop();
    }
  }
  const m = (key) => median(rounds.map((r) => r[key]));
  return {
    count,
    dialect,
    rps: m('rps'),
    p50: m('p50'),
    p99: m('p99'),
    cpuUs: m('cpuUs'),
    lbUs: m('lbUs'),
    redisUs: m('redisUs'),
    rtt: m('rtt'),
    non2xx: rounds.reduce((s, r) => s + r.non2xx, 0),
    rounds,
  };
}

const results = [];
for (const dialect of ['modern', 'session'])
  for (const count of [1, 2]) results.push(await row(count, dialect));
const load1 = execFileSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).trim();
console.log(
  `| row | req/s | p50 ms | p99 ms | server CPU µs/req | HAProxy CPU µs/req | Redis CPU µs/req | Redis round trips/req | non-2xx |`,
);
console.log('|---|---|---|---|---|---|---|---|---|');
for (const r of results) {
  const name = `${r.dialect === 'modern' ? '2026-07-28' : '2025-06-18 session'}, ${r.count} instance${r.count > 1 ? 's' : ''}`;
  console.log(
    `| ${name} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.cpuUs.toFixed(0)} | ${r.lbUs.toFixed(0)} | ${r.redisUs.toFixed(0)} | ${r.rtt.toFixed(3)} | ${r.non2xx} |`,
  );
}
console.log(
  `load average at the end: ${load1}; ${ROUNDS} rounds of ${DURATION} s, ${CONNECTIONS} connections, medians`,
);
console.log(JSON.stringify(results.map(({ rounds, ...r }) => ({ ...r, calls: rounds.map((x) => x.calls) }))));
