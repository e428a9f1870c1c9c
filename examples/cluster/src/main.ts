#!/usr/bin/env node
// One command for a cluster on this machine: a redis-server on a free loopback port (no
// persistence), K demo servers (examples/everything --redis) sharing it, and HAProxy in front on
// http://127.0.0.1:N/mcp, round robin per request with no affinity. SIGINT or SIGTERM stops all.
//   node dist/main.js --port N [--instances K]     K from 1 to 8, default 2
// The MRTR key is SNODO_MRTR_SECRET when set (32 characters or more), else a random one for this run.
// Prints the URL on stdout once every part is ready; what it started goes to stderr.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { type Child, startBalancer, startInstance, startRedis } from './processes.js';

const USAGE = 'usage: main.js --port N [--instances K]';
const { values } = parseArgs({
  options: { port: { type: 'string' }, instances: { type: 'string', default: '2' } },
  strict: true,
});
const port = Number(values.port);
const count = Number(values.instances);
if (
  !Number.isInteger(port) ||
  port < 1 ||
  port > 65535 ||
  !Number.isInteger(count) ||
  count < 1 ||
  count > 8
) {
  console.error(`give --port N (1 to 65535) and optionally --instances K (1 to 8)\n${USAGE}`);
  process.exit(2);
}
const secret = process.env.SNODO_MRTR_SECRET ?? randomBytes(32).toString('base64url');

const started: Child[] = [];
let stopping = false;

/** Stops what was started, front to back: the balancer, the instances, then Redis. */
async function stop(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    for (const group of [['haproxy'], ['instance'], ['redis']]) {
      await Promise.all(
        started
          .filter((child) => group.some((name) => child.name.startsWith(name)))
          .map((child) => child.stop()),
      );
    }
  }
  process.exit(code);
}
process.once('SIGINT', () => stop(0));
process.once('SIGTERM', () => stop(0));

try {
  const redis = await startRedis();
  started.push(redis);
  const instances = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      startInstance(`instance-${i + 1}`, { redisUrl: redis.url, secret }),
    ),
  );
  started.push(...instances);
  const balancer = await startBalancer({
    port,
    servers: instances.map((instance) => ({ name: instance.name, port: instance.port })),
  });
  started.push(balancer);
  for (const child of started) {
    child.exited.then((exitCode) => {
      if (stopping) return;
      console.error(`cluster: ${child.name} (pid ${child.pid}) exited (${exitCode})`);
      // Without the balancer there is no endpoint left to serve.
      if (child === balancer) stop(1);
    });
  }
  console.error(
    `cluster: ${started.map((child) => `${child.name} pid ${child.pid} port ${(child as Child & { port: number }).port}`).join(', ')}`,
  );
  console.log(balancer.url);
} catch (error) {
  console.error('cluster: cannot start:', error instanceof Error ? error.message : error);
  await stop(1);
}
