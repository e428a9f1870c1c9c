// Two proxies whose task managers share @snodo/redis's task store, on a real redis-server: a task
// of the proxy's own made on one is read, answered and cancelled through the other, and the one
// running its backend call acts on it.
import { type Client, type ConnectOptions, connect } from '@snodo/client';
import { createTaskManager } from '@snodo/core';
import { connectRedis, type SnodoRedis } from '@snodo/redis';
import { listen, type McpHttpServer } from '@snodo/transport-http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RedisServer, startRedis } from '../../redis/test/helpers/redis-server.js';
import { bearerAuthenticator } from '../src/cli/tokens.js';
import { createProxy, type McpProxy } from '../src/index.js';
import { demoStdio } from './helpers/servers.js';

const TOKENS = ['alice-token-0123456789', 'bob-token-0123456789'];

describe("the proxy's own tasks in a task store shared by two proxies (Redis)", () => {
  let redis: RedisServer;
  const links: SnodoRedis[] = [];
  const proxies: McpProxy[] = [];
  const servers: McpHttpServer[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    for (let i = 0; i < 2; i++) {
      const link = await connectRedis({ url: redis.url, prefix: 'proxy-tasks:' });
      links.push(link);
      const proxy = await createProxy({
        taskManager: createTaskManager({ store: link.taskStore, pollIntervalMs: 20 }),
        taskAfterMs: 0,
        backends: [{ id: 'st', target: demoStdio() }],
      });
      proxies.push(proxy);
      servers.push(
        await listen({ runtime: proxy.runtime(), port: 0, authenticate: bearerAuthenticator(TOKENS) }),
      );
    }
  });

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => {});
    for (const server of servers) await server.close();
    for (const proxy of proxies) await proxy.close();
    for (const link of links) await link.close();
    await redis?.stop();
  });

  async function on(
    proxy: 0 | 1,
    token = TOKENS[0] as string,
    options: ConnectOptions = {},
  ): Promise<Client> {
    const url = (servers[proxy] as McpHttpServer).url();
    const client = await connect({ http: url }, { tasks: true, ...options, authorization: () => token });
    clients.push(client);
    return client;
  }

  it('made on A: B reads it, answers its input request with tasks/update, and reads its result', async () => {
    const onElicit = async () => {
      throw new Error('answered by tasks/update');
    };
    const a = await on(0, TOKENS[0], { onElicit });
    const b = await on(1, TOKENS[0], { onElicit });
    const { task } = await a.tasks.start('st.ask', { afterMs: 300 });
    const taskId = task?.taskId as string;
    const asked = await vi.waitFor(async () => {
      const current = await b.tasks.get(taskId);
      expect(current.status).toBe('input_required');
      return current;
    });
    const [key] = Object.keys(asked.inputRequests ?? {});
    await b.tasks.update(taskId, { [key as string]: { action: 'accept', content: { name: 'Barbara' } } });
    const done = await b.tasks.follow(taskId);
    expect(done.content).toEqual([{ type: 'text', text: 'Hello, Barbara!' }]);
    // Another principal is refused on either proxy.
    for (const proxy of [0, 1] as const) {
      const other = await on(proxy, TOKENS[1]);
      await expect(other.tasks.get(taskId)).rejects.toMatchObject({ code: -32602 });
    }
  });

  it("made on A, cancelled through B: A stops the backend's call", async () => {
    const a = await on(0);
    const b = await on(1);
    const sleeping = async () =>
      ((await a.callTool('st.sleep', { ms: 0 })).structuredContent as { concurrent: number }).concurrent - 1;
    const { task } = await a.tasks.start('st.sleep', { ms: 600_000 });
    const taskId = task?.taskId as string;
    await vi.waitFor(async () => expect(await sleeping()).toBe(1));
    await b.tasks.cancel(taskId);
    await vi.waitFor(async () => expect((await b.tasks.get(taskId)).status).toBe('cancelled'));
    await vi.waitFor(async () => expect(await sleeping()).toBe(0));
  });
});
