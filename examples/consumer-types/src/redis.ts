import { createServer, type MrtrKey, tool } from '@snodo/core';
import { connectRedis, RedisError, type RedisHealth } from '@snodo/redis';
import { listen } from '@snodo/transport-http';
import { z } from 'zod';

const keys: MrtrKey[] = [{ name: 'k1', secret: 'a-secret-of-at-least-thirty-two-bytes!' }];
const shared = await connectRedis({ url: 'redis://127.0.0.1:6379', prefix: 'demo:', maxSessions: 1000 });
const runtime = createServer({
  name: 'demo',
  version: '1.0.0',
  tools: [tool({ name: 'echo', inputSchema: z.object({ text: z.string() }), handler: ({ text }) => text })],
  hub: shared.hub,
  mrtr: { keys },
});
const server = await listen({ runtime, port: 4000, sessionStore: shared.sessionStore });
shared.hub.notifyResourceUpdated('demo://a');
const health: RedisHealth = await shared.health();
console.info(health.ok, health.commands.state, health.changes.gaps, shared.instanceId);
try {
  await shared.sessionStore.get('x');
} catch (error) {
  if (RedisError.is(error)) console.info(error.code);
}
process.once('SIGTERM', () => server.close().then(() => shared.close()));
