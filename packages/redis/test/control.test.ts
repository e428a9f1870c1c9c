import { spawn } from 'node:child_process';
import { type ControlHolder, type ControlMessage, SnodoError } from '@snodo/core';
import { describe, expect, it } from 'vitest';
import { RedisError, type SnodoRedis } from '../src/index.js';
import { useRedis } from './helpers/cluster.js';
import { until } from './helpers/until.js';

const redis = useRedis();

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  // A timeout is core's row (any control channel's); the rest are RedisErrors.
  if (!SnodoError.is(error)) throw new Error(`expected a SnodoError, got ${String(error)}`);
  if (error.code !== 'SNODO_ERR_CONTROL_TIMEOUT' && !RedisError.is(error))
    throw new Error(`expected a RedisError, got ${String(error)}`);
  return error.code;
}

const cancel = (requestKey: string): ControlMessage => ({ kind: 'cancel', requestKey, reason: 'test' });

/** A holder that records what it receives and takes what `takes` says. */
function holder(takes: (message: ControlMessage) => boolean = () => true) {
  const seen: ControlMessage[] = [];
  const receive = (message: ControlMessage) => {
    seen.push(message);
    return takes(message);
  };
  return { seen, receive } satisfies ControlHolder & { seen: ControlMessage[] };
}

/** Attaches and waits until the owner record is in Redis (attach writes it without waiting). */
async function attached(instance: SnodoRedis, prefix: string, session: string, taker: ControlHolder) {
  const detach = instance.control.attach(session, taker);
  await until('the owner record', () =>
    redis.server().cli('ZSCORE', `${prefix}owner:${session}`, instance.instanceId) !== '' ? true : undefined,
  );
  return detach;
}

/**
 * An owner that never answers: a `redis-cli SUBSCRIBE` child on the channel of an instance id
 * recorded as holding `session`, as a process that hangs would be.
 */
async function ghost(prefix: string, session: string) {
  const id = `ghost-${session}`;
  const child = spawn(
    'redis-cli',
    ['-p', String(redis.server().port), 'SUBSCRIBE', `${prefix}control:${id}`],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  await until('the ghost to subscribe', () =>
    redis.server().cli('PUBSUB', 'NUMSUB', `${prefix}control:${id}`).endsWith('1'),
  );
  redis.server().cli('ZADD', `${prefix}owner:${session}`, String(Date.now() + 600_000), id);
  return {
    /** Control messages it got (each printed as "message", channel, payload). */
    received: () => output.split('\n').filter((line) => line.startsWith('{"q":1')).length,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

describe('the control channel (core’s ControlChannel across instances)', () => {
  it('delivers to the instance holding the session, once it acted there, and to no other', async () => {
    const { prefix, instances } = await redis.cluster(3);
    const [a, b] = instances;
    const c = instances[2] as SnodoRedis;
    const onA = holder((message) => message.kind === 'cancel' && message.requestKey === '"7"');
    const onC = holder();
    await attached(a, prefix, 's1', onA);
    c.control.attach('other', onC);
    expect(await b.control.deliver('s1', cancel('"7"'))).toBe(true);
    expect(await b.control.deliver('s1', cancel('"8"'))).toBe(false);
    expect(onA.seen).toEqual([cancel('"7"'), cancel('"8"')]);
    expect(onC.seen).toEqual([]);
    expect(a.control.stats).toMatchObject({ received: 2, held: 1 });
    expect(b.control.stats).toMatchObject({ sent: 2, timedOut: 0 });
  });

  it('delivers a cancel or an answer that found its target here without a round trip, an update and an end everywhere', async () => {
    const { prefix, instances } = await redis.cluster(2);
    const [a, b] = instances;
    const onA = holder();
    const onB = holder();
    await attached(a, prefix, 's2', onA);
    await attached(b, prefix, 's2', onB);
    expect(await b.control.deliver('s2', cancel('"1"'))).toBe(true);
    expect(onA.seen).toEqual([]);
    const update: ControlMessage = { kind: 'end', reason: 'session deleted' };
    expect(await b.control.deliver('s2', update)).toBe(true);
    expect(onA.seen).toEqual([update]);
    expect(onB.seen).toEqual([cancel('"1"'), update]);
  });

  it('answers false when no instance holds the session, or when its holder there has detached', async () => {
    const { prefix, instances } = await redis.cluster(2, { ownerTtl: 300 });
    const [a, b] = instances;
    expect(await b.control.deliver('nobody', cancel('"1"'))).toBe(false);
    expect(b.control.stats.sent).toBe(0);
    const first = await attached(a, prefix, 's3', holder());
    const second = a.control.attach('s3', holder());
    first();
    expect(a.control.stats.held).toBe(1);
    second();
    second();
    expect(a.control.stats.held).toBe(0);
    // The record stays until it expires (no round trip per call): a asks its holders, and has none.
    expect(await b.control.deliver('s3', cancel('"1"'))).toBe(false);
    expect(b.control.stats.sent).toBe(1);
    await until('the record to expire', () => redis.server().cli('EXISTS', `${prefix}owner:s3`) === '0');
    expect(await b.control.deliver('s3', cancel('"1"'))).toBe(false);
    expect(b.control.stats.sent).toBe(1);
  });

  it('writes the record of a session held call after call once per third of ownerTtl, not once per call', async () => {
    const { prefix, instances } = await redis.cluster(1);
    const [a] = instances;
    (await attached(a, prefix, 's10', holder()))();
    redis.server().cli('CONFIG', 'RESETSTAT');
    for (let i = 0; i < 5; i++) a.control.attach('s10', holder())();
    // A PING on the same connection: any write sent before it has been run when it answers.
    await a.health();
    expect(redis.server().cli('INFO', 'commandstats')).not.toMatch(/cmdstat_evalsha/);
  });

  it('does not wait for an owner whose process is gone, and forgets its record after ownerTtl', async () => {
    const { prefix, instances } = await redis.cluster(2, { ownerTtl: 2_000 });
    const [a, b] = instances;
    await attached(a, prefix, 's4', holder());
    await a.close();
    // a's record is still there (closing does not release), but no one listens on its channel.
    expect(redis.server().cli('ZCARD', `${prefix}owner:s4`)).toBe('1');
    expect(await b.control.deliver('s4', { kind: 'end', reason: 'x' })).toBe(false);
    await until('the record to expire', () => redis.server().cli('EXISTS', `${prefix}owner:s4`) === '0');
  });

  it('keeps refreshing the record of a session held longer than ownerTtl', async () => {
    const { prefix, instances } = await redis.cluster(2, { ownerTtl: 600 });
    const [a, b] = instances;
    await attached(a, prefix, 's5', holder());
    const first = Number(redis.server().cli('ZSCORE', `${prefix}owner:s5`, a.instanceId));
    await until('a refresh beyond the first expiry', () => {
      const score = Number(redis.server().cli('ZSCORE', `${prefix}owner:s5`, a.instanceId));
      return score > first + 600;
    });
    expect(await b.control.deliver('s5', cancel('"1"'))).toBe(true);
  });

  it('fails with SNODO_ERR_CONTROL_TIMEOUT when a holder does not acknowledge in controlTimeout', async () => {
    const { prefix, instances } = await redis.cluster(2, { controlTimeout: 50 });
    const [, b] = instances;
    const silent = await ghost(prefix, 's6');
    try {
      expect(await refusal(b.control.deliver('s6', cancel('"1"')))).toBe('SNODO_ERR_CONTROL_TIMEOUT');
      expect(b.control.stats.timedOut).toBe(1);
    } finally {
      await silent.stop();
    }
  });

  it('refuses a message over maxControlBytes before sending it, and ignores one received', async () => {
    const { prefix, instances } = await redis.cluster(2, { maxControlBytes: 300 });
    const [a, b] = instances;
    const onA = holder();
    await attached(a, prefix, 's7', onA);
    const envelope = Buffer.byteLength(
      JSON.stringify({
        q: 1,
        r: crypto.randomUUID(),
        f: b.instanceId,
        s: 's7',
        m: { kind: 'end', reason: '' },
      }),
    );
    const fits: ControlMessage = { kind: 'end', reason: 'x'.repeat(300 - envelope) };
    expect(await b.control.deliver('s7', fits)).toBe(true);
    const over: ControlMessage = { kind: 'end', reason: `${fits.reason}x` };
    expect(await refusal(b.control.deliver('s7', over))).toBe('SNODO_ERR_REDIS_MESSAGE_TOO_LARGE');
    expect(onA.seen).toEqual([fits]);
    redis.server().cli('PUBLISH', `${prefix}control:${a.instanceId}`, 'y'.repeat(301));
    redis
      .server()
      .cli('PUBLISH', `${prefix}control:${a.instanceId}`, '{"q":1,"r":"r","f":"f","s":"s","m":{}}');
    await until('both to be ignored', () => a.control.stats.ignored === 2);
  });

  it('fails with SNODO_ERR_REDIS_CLOSED after close, and fails a delivery that was waiting', async () => {
    const { prefix, instances } = await redis.cluster(2, { controlTimeout: 60_000 });
    const [, b] = instances;
    const silent = await ghost(prefix, 's8');
    try {
      const waiting = b.control.deliver('s8', cancel('"1"'));
      await until('the message to reach the silent owner', () => silent.received() === 1);
      await b.close();
      expect(await refusal(waiting)).toBe('SNODO_ERR_REDIS_CLOSED');
      expect(await refusal(b.control.deliver('s8', cancel('"1"')))).toBe('SNODO_ERR_REDIS_CLOSED');
    } finally {
      await silent.stop();
    }
  });

  it('fails a delivery honestly while Redis is down, and counts an owner record it could not write', async () => {
    const { instances } = await redis.cluster(2);
    const [a, b] = instances;
    await redis.server().kill();
    try {
      await until('the links to be seen down', async () => !(await b.health()).ok && !(await a.health()).ok);
      expect(await refusal(b.control.deliver('s9', cancel('"1"')))).toBe('SNODO_ERR_REDIS_UNAVAILABLE');
      a.control.attach('s9', holder());
      await until('the failed owner record', () => a.control.stats.holdFailed === 1);
    } finally {
      await redis.server().restart();
    }
  });
});
