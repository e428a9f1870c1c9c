import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startCluster } from './helpers/cluster.js';
import { legacySession, modern, openStream, post, request } from './helpers/mcp.js';

let cluster: Awaited<ReturnType<typeof startCluster>>;

beforeEach(async () => {
  cluster = await startCluster();
});
afterEach(() => cluster?.stop());

const VERSION = '2025-06-18';

describe('failures in the cluster', () => {
  it('fails session calls honestly while Redis is down, then recovers after it restarts; nothing hangs', async () => {
    const session = await legacySession(cluster.url, VERSION);
    expect((await session.call('tools/call', { name: 'echo', arguments: { text: 'up' } })).status).toBe(200);
    const listen = modern('subscriptions/listen', { notifications: { toolsListChanged: true } });
    const stream = await openStream(cluster.url, listen.message, listen.headers);
    expect((await stream.next()).method).toBe('notifications/subscriptions/acknowledged');

    await cluster.killRedis();
    // Each instance, in turn: a 500 with a JSON-RPC internal error at once, never a hang or a 200.
    for (let i = 0; i < 2; i++) {
      const refused = await session.call('tools/call', { name: 'echo', arguments: { text: 'down' } });
      expect(refused.status).toBe(500);
      expect(refused.body.error.code).toBe(-32603);
    }
    const initialize = await post(
      cluster.url,
      request('initialize', {
        protocolVersion: VERSION,
        capabilities: {},
        clientInfo: { name: 'c', version: '1' },
      }),
    );
    expect(initialize.status).toBe(500);
    // 2026-07-28 is stateless: it goes on without Redis.
    const echo = modern('tools/call', { name: 'echo', arguments: { text: 'stateless' } });
    expect((await post(cluster.url, echo.message, echo.headers)).body.result.content[0].text).toBe(
      'stateless',
    );

    await cluster.restartRedis();
    // The listen stream stayed open; its instance says that what it may have missed is the lists.
    expect(await stream.next()).toMatchObject({ method: 'notifications/tools/list_changed' });
    stream.close();
    // Redis ran without persistence: the session is gone, and said so (404) once both instances
    // are back; the client initializes again and goes on, across both instances.
    const seen: number[] = [];
    while (seen.slice(-2).join() !== '404,404') {
      const reply = await session.call('tools/call', { name: 'echo', arguments: { text: 'back?' } });
      expect([500, 404]).toContain(reply.status);
      seen.push(reply.status);
      if (seen.length > 1000) throw new Error('the instances did not reconnect');
    }
    const again = await legacySession(cluster.url, VERSION);
    const replies = [
      await again.call('tools/call', { name: 'echo', arguments: { text: 'one' } }),
      await again.call('tools/call', { name: 'echo', arguments: { text: 'two' } }),
    ];
    expect(replies.map((reply) => reply.status)).toEqual([200, 200]);
    expect(new Set([again.init.instance, ...replies.map((reply) => reply.instance)])).toEqual(
      new Set(['a', 'b']),
    );
  });

  it('fails the work of an instance that is killed, while every session goes on on the other', async () => {
    const first = await legacySession(cluster.url, VERSION);
    const second = await legacySession(cluster.url, VERSION);
    const sleep = request('tools/call', {
      name: 'sleep',
      arguments: { ms: 60_000 },
      _meta: { progressToken: 'p' },
    });
    const running = await openStream(cluster.url, sleep, {
      'mcp-session-id': first.id,
      'mcp-protocol-version': VERSION,
    });
    expect((await running.next()).method).toBe('notifications/progress');
    const doomed = running.instance as 'a' | 'b';
    const survivor = doomed === 'a' ? 'b' : 'a';
    // Everything the stream carries until it ends.
    const ended = (async () => {
      const messages = [];
      try {
        for (;;) messages.push(await running.next());
      } catch (error) {
        return { messages, error };
      }
    })();

    await cluster.instances[doomed].kill();
    // The call's stream ends without a result: its work failed, and nothing pretends it succeeded.
    const { messages, error } = await ended;
    expect(error).toBeDefined();
    expect(messages.every((message) => message.method === 'notifications/progress')).toBe(true);

    const replies = [];
    for (const session of [first, second, first, second]) {
      replies.push(await session.call('tools/call', { name: 'echo', arguments: { text: 'still here' } }));
    }
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200]);
    expect(replies.map((reply) => reply.instance)).toEqual([survivor, survivor, survivor, survivor]);
  });
});
