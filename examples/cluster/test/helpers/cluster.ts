import { randomBytes } from 'node:crypto';
import { freePort, type Listening, startBalancer, startInstance, startRedis } from '../../src/processes.js';

export type Started = Listening & { readonly url: string };

/** A cluster for a test file: Redis, demo instances `a` and `b`, HAProxy in front, all on loopback. */
export async function startCluster() {
  const secret = randomBytes(32).toString('base64url');
  let redis = await startRedis();
  const instances = {
    a: await startInstance('a', { redisUrl: redis.url, secret }),
    b: await startInstance('b', { redisUrl: redis.url, secret }),
  };
  const balancer = await startBalancer({
    port: await freePort(),
    servers: Object.entries(instances).map(([name, instance]) => ({ name, port: instance.port })),
  });
  return {
    url: balancer.url,
    secret,
    instances,
    get redis() {
      return redis;
    },
    /** Kills Redis (SIGKILL: no persistence, every session gone) and waits for it to exit. */
    killRedis: () => redis.kill(),
    /** Starts Redis again on the same port. */
    async restartRedis() {
      redis = await startRedis(redis.port);
    },
    async stop() {
      await balancer.stop();
      await Promise.all(Object.values(instances).map((instance) => instance.stop()));
      await redis.stop();
    },
  };
}
