import { createFetchHandler, createServer, tool } from '@snodo/core';
import { snodo } from '@snodo/fastify';
import { listen } from '@snodo/transport-http';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, type SnodoRedis } from '../src/index.js';
import { type RedisServer, startRedis } from './helpers/redis-server.js';
import { until } from './helpers/until.js';

let redis: RedisServer;
const open: SnodoRedis[] = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await Promise.all(open.map((instance) => instance.close()));
  await redis.stop();
});

/** One instance of the application: its own Redis link, hub and runtime, as a separate process would have. */
async function instance() {
  const shared = await connectRedis({ url: redis.url, prefix: 'hosts:' });
  open.push(shared);
  const runtime = createServer({
    name: 'hosts',
    version: '1.0.0',
    hub: shared.hub,
    tools: [
      tool({
        name: 'touch',
        inputSchema: { type: 'object', properties: { uri: { type: 'string' } }, required: ['uri'] },
        handler: (args) => {
          shared.hub.notifyResourceUpdated(String(args.uri));
          return 'touched';
        },
      }),
    ],
  });
  return { shared, runtime };
}

const VERSION = '2025-11-25';
const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const call = (id: number, method: string, params: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });

describe('one session store and hub under every host', () => {
  it('serves a session initialized by the listener through the fetch handler and the Fastify plugin', async () => {
    const [a, b, c] = [await instance(), await instance(), await instance()];
    const server = await listen({
      runtime: a.runtime,
      port: 0,
      sessionStore: a.shared.sessionStore,
      control: a.shared.control,
    });
    const fetchHandler = createFetchHandler(b.runtime, {
      sessionStore: b.shared.sessionStore,
      control: b.shared.control,
    });
    const app = Fastify();
    await app.register(snodo, {
      runtime: c.runtime,
      path: '/mcp',
      sessionStore: c.shared.sessionStore,
      control: c.shared.control,
    });
    const seenOnA: unknown[] = [];
    a.shared.hub.subscribe((event) => seenOnA.push(event));
    try {
      const init = await fetch(server.url(), {
        method: 'POST',
        headers: json,
        body: call(1, 'initialize', {
          protocolVersion: VERSION,
          capabilities: {},
          clientInfo: { name: 'c', version: '1' },
        }),
      });
      expect(init.status).toBe(200);
      const session = init.headers.get('mcp-session-id') as string;
      const headers = { ...json, 'mcp-session-id': session, 'mcp-protocol-version': VERSION };

      const viaFetch = await fetchHandler(
        new Request('http://127.0.0.1/mcp', {
          method: 'POST',
          headers,
          body: call(2, 'tools/call', { name: 'touch', arguments: { uri: 'demo://b' } }),
        }),
      );
      expect(viaFetch.status).toBe(200);
      expect(await viaFetch.json()).toMatchObject({ result: { content: [{ text: 'touched' }] } });

      const viaFastify = await app.inject({
        method: 'POST',
        url: '/mcp',
        headers,
        payload: call(3, 'tools/call', { name: 'touch', arguments: { uri: 'demo://c' } }),
      });
      expect(viaFastify.statusCode).toBe(200);
      expect(viaFastify.json()).toMatchObject({ result: { content: [{ text: 'touched' }] } });

      // Both changes, notified on the other hosts' instances, reached the listener's.
      await until('the changes to reach A', () => seenOnA.length === 2);
      expect(seenOnA).toEqual([
        { type: 'updated', uri: 'demo://b' },
        { type: 'updated', uri: 'demo://c' },
      ]);
      // A session none of them holds is 404 everywhere.
      const unknown = await app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { ...headers, 'mcp-session-id': 'not-a-session' },
        payload: call(4, 'tools/list', {}),
      });
      expect(unknown.statusCode).toBe(404);
    } finally {
      await app.close();
      await server.close();
    }
  });
});
