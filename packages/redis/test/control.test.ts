import { describe, expect, it } from 'vitest';
import { RedisError } from '../src/index.js';
import { useRedis } from './helpers/cluster.js';
import { until } from './helpers/until.js';

const redis = useRedis();

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!RedisError.is(error)) throw new Error(`expected a RedisError, got ${String(error)}`);
  return error.code;
}

describe('the control channel', () => {
  it('delivers a message to the instance holding the session, and acknowledges only after delivery there', async () => {
    const { instances } = await redis.cluster(3);
    const [a, b, c] = instances;
    const seen: unknown[] = [];
    let finishDelivery: (delivered: boolean) => void = () => undefined;
    a.control.receive((session, message) => {
      seen.push([session, message]);
      return new Promise<boolean>((resolve) => {
        finishDelivery = resolve;
      });
    });
    c.control.receive(() => {
      throw new Error('c holds nothing and is never asked');
    });
    await a.control.hold('s1');
    let settled = false;
    const sent = b.control.send('s1', { type: 'cancel', id: 7 }).finally(() => {
      settled = true;
    });
    await until('the message to reach a', () => seen.length === 1);
    expect(seen).toEqual([['s1', { type: 'cancel', id: 7 }]]);
    // a has not finished delivering it: the sender still waits.
    expect(settled).toBe(false);
    finishDelivery(true);
    expect(await sent).toBe(1);
    expect(a.control.stats).toMatchObject({ received: 1, held: 1 });
    expect(b.control.stats).toMatchObject({ sent: 1, timedOut: 0 });
  });

  it('answers 0 when no instance holds the session, or the holder took nothing, and after the last release', async () => {
    const { prefix, instances } = await redis.cluster(2);
    const [a, b] = instances;
    a.control.receive(() => false);
    expect(await b.control.send('nobody', { type: 'cancel' })).toBe(0);
    await a.control.hold('s2');
    await a.control.hold('s2');
    expect(await b.control.send('s2', { type: 'cancel' })).toBe(0);
    a.control.release('s2');
    expect(a.control.stats.held).toBe(1);
    a.control.release('s2');
    expect(a.control.stats.held).toBe(0);

    expect(await b.control.send('s2', { type: 'cancel' })).toBe(0);
    // The sender's own holds are not sent to: it delivers locally first.
    await b.control.hold('s3');
    expect(await b.control.send('s3', { type: 'cancel' })).toBe(0);
  });

  it('does not wait for an owner whose process is gone, and forgets its record after ownerTtl', async () => {
    const { prefix, instances } = await redis.cluster(2, { ownerTtl: 300 });
    const [a, b] = instances;
    await a.control.hold('s4');
    await a.close();
    // a's record is still there (closing does not release), but no one listens on its channel.
    expect(redis.server().cli('ZCARD', `${prefix}owner:s4`)).toBe('1');
    expect(await b.control.send('s4', { type: 'end' })).toBe(0);
    await until('the record to expire', () => redis.server().cli('EXISTS', `${prefix}owner:s4`) === '0');
  });

  it('keeps refreshing the record of a session held longer than ownerTtl', async () => {
    const { prefix, instances } = await redis.cluster(2, { ownerTtl: 90 });
    const [a, b] = instances;
    a.control.receive(() => true);
    await a.control.hold('s5');
    const first = Number(redis.server().cli('ZSCORE', `${prefix}owner:s5`, a.instanceId));
    await until('a refresh beyond the first expiry', () => {
      const score = Number(redis.server().cli('ZSCORE', `${prefix}owner:s5`, a.instanceId));
      return score > first + 90;
    });
    expect(await b.control.send('s5', { type: 'cancel' })).toBe(1);
  });

  it('fails with SNODO_ERR_CONTROL_TIMEOUT when a holder does not acknowledge in controlTimeout', async () => {
    const { instances } = await redis.cluster(2, { controlTimeout: 50 });
    const [a, b] = instances;
    a.control.receive(() => new Promise<boolean>(() => undefined));
    await a.control.hold('s6');
    expect(await refusal(b.control.send('s6', { type: 'cancel' }))).toBe('SNODO_ERR_CONTROL_TIMEOUT');
    expect(b.control.stats.timedOut).toBe(1);
  });

  it('refuses a message over maxControlBytes before sending it, and ignores one received', async () => {
    const { prefix, instances } = await redis.cluster(2, { maxControlBytes: 200 });
    const [a, b] = instances;
    const seen: unknown[] = [];
    a.control.receive((_, message) => {
      seen.push(message);
      return true;
    });
    await a.control.hold('s7');
    // The envelope (ids of the request, the sender and the session) is 120 bytes with this session id.
    const envelope = Buffer.byteLength(
      JSON.stringify({ q: 1, r: crypto.randomUUID(), f: b.instanceId, s: 's7', m: '' }),
    );
    const fits = 'x'.repeat(200 - envelope);
    expect(await b.control.send('s7', fits)).toBe(1);
    expect(await refusal(b.control.send('s7', `${fits}x`))).toBe('SNODO_ERR_MESSAGE_TOO_LARGE');
    expect(seen).toEqual([fits]);
    redis.server().cli('PUBLISH', `${prefix}control:${a.instanceId}`, 'y'.repeat(201));
    redis.server().cli('PUBLISH', `${prefix}control:${a.instanceId}`, '{"not":"control"}');
    await until('both to be ignored', () => a.control.stats.ignored === 2);
  });

  it('fails with SNODO_ERR_REDIS_CLOSED after close, and fails a send that was waiting', async () => {
    const { instances } = await redis.cluster(2);
    const [a, b] = instances;
    a.control.receive(() => new Promise<boolean>(() => undefined));
    await a.control.hold('s8');
    const waiting = b.control.send('s8', { type: 'cancel' });
    await until('a to receive it', () => a.control.stats.received === 1);
    await b.close();
    expect(await refusal(waiting)).toBe('SNODO_ERR_REDIS_CLOSED');
    expect(await refusal(b.control.send('s8', {}))).toBe('SNODO_ERR_REDIS_CLOSED');
    expect(await refusal(b.control.hold('s8'))).toBe('SNODO_ERR_REDIS_CLOSED');
  });

  it('fails a send and a hold honestly while Redis is down', async () => {
    const { instances } = await redis.cluster(2);
    const [a, b] = instances;
    await redis.server().kill();
    try {
      await until('b to see the link down', async () => !(await b.health()).ok);
      expect(await refusal(b.control.send('s9', {}))).toBe('SNODO_ERR_REDIS_UNAVAILABLE');
      expect(await refusal(a.control.hold('s9'))).toBe('SNODO_ERR_REDIS_UNAVAILABLE');
      expect(a.control.stats.held).toBe(0);
    } finally {
      await redis.server().restart();
    }
  });
});
