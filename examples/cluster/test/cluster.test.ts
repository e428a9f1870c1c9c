import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster } from './helpers/cluster.js';
import { LEGACY, legacySession, modern, mrtr, openStream, post } from './helpers/mcp.js';

let cluster: Awaited<ReturnType<typeof startCluster>>;

beforeAll(async () => {
  cluster = await startCluster();
});
afterAll(() => cluster?.stop());

/** The commands of the session lookup and of an owner record's script. */
const OWNER_RECORD = new Set(['evalsha', 'getex', 'time', 'zadd', 'pttl', 'pexpire', 'zremrangebyscore']);

const text = (reply: { body: any }) => reply.body?.result?.content?.[0]?.text;

/** The instances that answered, checked to alternate request by request. */
function expectAlternating(instances: (string | undefined)[]): void {
  expect(instances.every((instance) => instance === 'a' || instance === 'b')).toBe(true);
  for (let i = 1; i < instances.length; i++) expect(instances[i]).not.toBe(instances[i - 1]);
}

describe('a cluster of two demo servers behind HAProxy, sharing one Redis', () => {
  for (const version of LEGACY) {
    it(`serves a ${version} session whose requests alternate between the instances`, async () => {
      const session = await legacySession(cluster.url, version);
      expect(session.init.body.result.protocolVersion).toBe(version);
      const replies = [
        await session.notify('notifications/initialized'),
        await session.call('tools/call', { name: 'echo', arguments: { text: 'one' } }),
        await session.call('tools/list'),
        await session.call('tools/call', { name: 'add', arguments: { a: 2, b: 3 } }),
        await session.call('prompts/list'),
        await session.call('resources/read', { uri: 'demo://greeting' }),
        await session.call('logging/setLevel', { level: 'error' }),
        await session.call('tools/call', { name: 'echo', arguments: { text: 'two' } }),
      ];
      expectAlternating([session.init.instance, ...replies.map((reply) => reply.instance)]);
      expect(replies.map((reply) => reply.status)).toEqual([202, 200, 200, 200, 200, 200, 200, 200]);
      expect(text(replies[1] as { body: unknown })).toBe('one');
      expect(replies[2]?.body.result.tools.map((tool: { name: string }) => tool.name)).toContain('echo');
      expect(text(replies[3] as { body: unknown })).toBe('{"sum":5}');
      expect(replies[4]?.body.result.prompts.length).toBeGreaterThan(0);
      expect(replies[5]?.body.result.contents[0].uri).toBe('demo://greeting');
      expect(text(replies[7] as { body: unknown })).toBe('two');
    });
  }

  it('costs one Redis command per legacy request (the session lookup) and none per 2026-07-28 request', async () => {
    const session = await legacySession(cluster.url, '2025-11-25');
    const redis = (...args: string[]) =>
      execFileSync('redis-cli', ['-p', String(cluster.redis.port), ...args], { encoding: 'utf8' });
    // One call on each instance first: each writes its owner record of the session (the control
    // channel), which it then rewrites only once per third of ownerTtl (5 s), not per call.
    for (let i = 0; i < 2; i++) await session.call('tools/call', { name: 'echo', arguments: { text: 'x' } });
    redis('CONFIG', 'RESETSTAT');
    for (let i = 0; i < 4; i++) {
      expect((await session.call('tools/call', { name: 'echo', arguments: { text: 'x' } })).status).toBe(200);
      const echo = modern('tools/call', { name: 'echo', arguments: { text: 'x' } });
      expect((await post(cluster.url, echo.message, echo.headers)).status).toBe(200);
    }
    // Every command Redis ran since the reset, but the two this test sent itself.
    const calls = Object.fromEntries(
      [...redis('INFO', 'commandstats').matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)]
        .filter(([, command]) => command !== 'config' && command !== 'info')
        .map(([, command, count]) => [command, Number(count)]),
    );
    // One round trip (EVALSHA) per legacy request; GETEX, TIME and ZADD run inside its script. An
    // owner record rewritten meanwhile (only if these calls took over 5 s) is one more script each,
    // at most one per instance.
    const rewrites = calls.pttl ?? 0;
    expect(rewrites).toBeLessThanOrEqual(2);
    expect(calls).toMatchObject({ evalsha: 4 + rewrites, getex: 4, time: 4 + rewrites, zadd: 4 + rewrites });
    expect(Object.keys(calls).filter((command) => !OWNER_RECORD.has(command))).toEqual([]);
  });

  it('delivers to a subscriptions/listen stream on one instance the updates triggered on the other', async () => {
    const listen = modern('subscriptions/listen', {
      notifications: { resourceSubscriptions: ['demo://items/1'] },
    });
    const stream = await openStream(cluster.url, listen.message, listen.headers);
    try {
      const acknowledged = await stream.next();
      expect(acknowledged.method).toBe('notifications/subscriptions/acknowledged');
      const touchedOn: (string | undefined)[] = [];
      for (let i = 0; i < 4; i++) {
        const touch = modern('tools/call', { name: 'touch', arguments: { uri: 'demo://items/1' } });
        const touched = await post(cluster.url, touch.message, touch.headers);
        expect(touched.body.result.content[0].text).toBe('touched demo://items/1');
        const update = await stream.next();
        expect(update).toMatchObject({
          method: 'notifications/resources/updated',
          params: { uri: 'demo://items/1' },
        });
        touchedOn.push(touched.instance);
      }
      // Half of the touches ran on the other instance: their updates came through Redis.
      expectAlternating([stream.instance, ...touchedOn]);
    } finally {
      stream.close();
    }
  });

  it('completes an MRTR retry on the other instance than the one that asked', async () => {
    const { asked, done } = await mrtr(cluster.url, cluster.url);
    expect(done.instance).not.toBe(asked.instance);
    expect(done.body.result.content[0].text).toBe('Hello, Ada!');
  });
});
