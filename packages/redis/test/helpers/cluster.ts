import { afterAll, afterEach, beforeAll } from 'vitest';
import { connectRedis, type RedisOptions, type SnodoRedis } from '../../src/index.js';
import { type RedisServer, startRedis } from './redis-server.js';

/**
 * A real redis-server for a test file (started before its tests, stopped after), and `cluster`,
 * which connects instances as separate processes would: each its own link, all under a prefix
 * fresh for the test, so tests never see each other's keys. Instances are closed after each test.
 */
export function useRedis() {
  let redis: RedisServer | undefined;
  const open: SnodoRedis[] = [];
  let prefixes = 0;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());
  afterEach(async () => {
    await Promise.all(open.splice(0).map((instance) => instance.close()));
  });
  const server = () => {
    if (redis === undefined) throw new Error('redis-server is not started yet');
    return redis;
  };
  /** One more instance under `prefix`, closed after the test. */
  const join = async (prefix: string, options: Omit<RedisOptions, 'url' | 'prefix'> = {}) => {
    const instance = await connectRedis({ url: server().url, prefix, ...options });
    open.push(instance);
    return instance;
  };
  return {
    server,
    join,
    /** A prefix no other test uses. */
    freshPrefix: () => `t${++prefixes}:`,
    async cluster(count: number, options: Omit<RedisOptions, 'url' | 'prefix'> = {}) {
      const prefix = `t${++prefixes}:`;
      const instances: SnodoRedis[] = [];
      for (let i = 0; i < count; i++) instances.push(await join(prefix, options));
      return { prefix, instances: instances as [SnodoRedis, SnodoRedis, ...SnodoRedis[]] };
    },
  };
}
