import { createSession } from '@snodo/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, RedisError } from '../src/index.js';
import { freePort, type RedisServer, startRedis } from './helpers/redis-server.js';
import { until } from './helpers/until.js';

let redis: RedisServer;

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis.stop());

describe('the Redis link', () => {
  it('reports both connections in health(), down while Redis is, and up again after it restarts', async () => {
    const instance = await connectRedis({ url: redis.url, prefix: 'health:' });
    try {
      const up = await instance.health();
      expect(up).toMatchObject({ ok: true, commands: { state: 'ready' }, subscriber: { state: 'ready' } });
      expect(up.commands.pingMs).toBeGreaterThanOrEqual(0);
      expect(up.subscriber.pingMs).toBeGreaterThanOrEqual(0);
      expect(up.changes).toEqual({ published: 0, publishFailed: 0, received: 0, ignored: 0, gaps: 0 });

      const killedAt = Date.now();
      await redis.kill();
      const down = await until('both connections to be seen down', async () => {
        const health = await instance.health();
        return health.commands.state === 'down' && health.subscriber.state === 'down' && health;
      });
      expect(down.ok).toBe(false);
      expect(down.commands.downSince).toBeGreaterThanOrEqual(killedAt - 1);
      expect(down.commands.lastError).toEqual(expect.any(String));
      expect(down.commands.pingMs).toBeUndefined();
      instance.hub.notifyToolsChanged();
      await until('the failed publish', () => instance.hub.stats.publishFailed === 1);
      expect((await instance.health()).changes.lastPublishError).toEqual(expect.any(String));

      await redis.restart();
      const back = await until('the link to be back', async () => {
        const health = await instance.health();
        return health.ok && health;
      });
      expect(back.commands.downSince).toBeUndefined();
      expect(back.changes.gaps).toBe(1);
    } finally {
      await instance.close();
    }
  });

  it('refuses every call after close() with SNODO_ERR_REDIS_CLOSED; close is idempotent', async () => {
    const instance = await connectRedis({ url: redis.url, prefix: 'closed:' });
    await instance.close();
    await instance.close();
    await expect(instance.sessionStore.get('s')).rejects.toMatchObject({ code: 'SNODO_ERR_REDIS_CLOSED' });
    await expect(
      instance.sessionStore.set('s', createSession('2025-03-26', {}, undefined)),
    ).rejects.toMatchObject({ code: 'SNODO_ERR_REDIS_CLOSED' });
    // A change still reaches this instance's subscribers; the publish is counted as failed.
    let seen = 0;
    instance.hub.subscribe(() => seen++);
    instance.hub.notifyToolsChanged();
    expect(seen).toBe(1);
    await until('the refused publish', () => instance.hub.stats.publishFailed === 1);
    expect(await instance.health()).toMatchObject({
      ok: false,
      commands: { state: 'closed' },
      subscriber: { state: 'closed' },
    });
  });

  it('rejects with SNODO_ERR_REDIS_CONNECT after connectTimeout when nothing answers, without the password', async () => {
    const port = await freePort();
    const started = Date.now();
    const failure = await connectRedis({
      url: `redis://:secret-password@127.0.0.1:${port}`,
      connectTimeout: 300,
    }).catch((error: unknown) => error);
    expect(RedisError.is(failure) && failure.code).toBe('SNODO_ERR_REDIS_CONNECT');
    expect((failure as Error).message).toMatch(
      /^Redis could not be reached in connectTimeout: redis:\/\/:\*\*\*@127\.0\.0\.1:\d+ after 300 ms \(.*ECONNREFUSED/,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });
});
