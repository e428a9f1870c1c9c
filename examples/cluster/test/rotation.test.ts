import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startBalancer, startInstance, startRedis } from '../src/processes.js';
import { mrtr } from './helpers/mcp.js';

const K1 = randomBytes(32).toString('base64url');
const K2 = randomBytes(32).toString('base64url');
/** The rings of a rotation from K1 to K2, one deploy after another: SNODO_MRTR_SECRET of each. */
const STEPS = { before: K1, added: `${K1},${K2}`, moved: `${K2},${K1}`, dropped: K2 };
type Step = keyof typeof STEPS;

let redis: Awaited<ReturnType<typeof startRedis>>;
let instances: Record<Step, Awaited<ReturnType<typeof startInstance>>>;

beforeAll(async () => {
  redis = await startRedis();
  const started = await Promise.all(
    Object.entries(STEPS).map(([step, secret]) => startInstance(step, { redisUrl: redis.url, secret })),
  );
  instances = Object.fromEntries(started.map((instance) => [instance.name, instance])) as typeof instances;
});
afterAll(async () => {
  await Promise.all(Object.values(instances ?? {}).map((instance) => instance.stop()));
  await redis?.stop();
});

describe('an MRTR key rotation across a cluster', () => {
  for (const [from, to] of [
    ['before', 'added'],
    ['added', 'moved'],
    ['moved', 'dropped'],
  ] as [Step, Step][]) {
    it(`loses no retry behind the balancer while instances run "${from}" and "${to}"`, async () => {
      const balancer = await startBalancer({
        port: await freePort(),
        servers: [from, to].map((name) => ({ name, port: instances[name].port })),
      });
      try {
        // Round robin: each flow asks on one instance and retries on the other; two flows cover
        // both directions.
        for (let flow = 0; flow < 2; flow++) {
          const { asked, done } = await mrtr(balancer.url, balancer.url);
          expect(done.instance).not.toBe(asked.instance);
          expect(done.body.result?.content[0].text).toBe('Hello, Ada!');
        }
      } finally {
        await balancer.stop();
      }
    });
  }

  it('fails the retries that land on an instance without the signing key when a step is skipped', async () => {
    const { done } = await mrtr(instances.moved.url, instances.before.url);
    expect(done.body.error.code).toBe(-32602);
    expect(done.body.error.message).toMatch(
      /^Invalid requestState: requestState was signed with key "k[\w-]{12}", which this server does not hold$/,
    );
    const stale = await mrtr(instances.before.url, instances.dropped.url);
    expect(stale.done.body.error.code).toBe(-32602);
  });
});
