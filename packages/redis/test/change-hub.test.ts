import type { ChangeEvent } from '@snodo/core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_REDIS_MAX_MESSAGE_BYTES, RedisError, type SnodoRedis } from '../src/index.js';
import { useRedis } from './helpers/cluster.js';
import { until } from './helpers/until.js';

const { server, cluster } = useRedis();

async function pair(options: { maxMessageBytes?: number } = {}) {
  const {
    prefix,
    instances: [a, b],
  } = await cluster(2, options);
  return { prefix, a, b, seenA: listen(a), seenB: listen(b) };
}

function listen(instance: SnodoRedis): ChangeEvent[] {
  const seen: ChangeEvent[] = [];
  instance.hub.subscribe((event) => seen.push(event));
  return seen;
}

describe('the Redis change hub', () => {
  it('delivers every change once on every instance, the publisher included (its own message is dropped)', async () => {
    const { a, b, seenA, seenB } = await pair();
    a.hub.notifyResourceUpdated('demo://items/1');
    // Delivered on A at once, without Redis.
    expect(seenA).toEqual([{ type: 'updated', uri: 'demo://items/1' }]);
    await until('A to reach B', () => seenB.length === 1);
    // Redis sends A's subscriber its own message before B's later one: once B's change is on A,
    // A's own message came back first and was dropped.
    b.hub.notifyToolsChanged();
    await until('B to reach A', () => seenA.length === 2);
    expect(seenA).toEqual([{ type: 'updated', uri: 'demo://items/1' }, { type: 'tools' }]);
    expect(seenB).toEqual([{ type: 'updated', uri: 'demo://items/1' }, { type: 'tools' }]);
    a.hub.notifyPromptsChanged();
    a.hub.notifyResourcesChanged();
    await until('both to reach B', () => seenB.length === 4);
    expect(seenB.slice(2)).toEqual([{ type: 'prompts' }, { type: 'resources' }]);
    expect(a.hub.stats).toMatchObject({ published: 3, publishFailed: 0, received: 1, gaps: 0 });
    expect(a.hub.size).toBe(1);
  });

  it('ignores and counts messages on its channel that are not changes', async () => {
    const { prefix, a, b, seenA } = await pair({ maxMessageBytes: 200 });
    for (const junk of [
      'not json',
      '[]',
      '{"o":"x","t":"deleted"}',
      '{"o":"x","t":"updated"}',
      '{"o":"x","t":"tools","u":"demo://a"}',
      JSON.stringify({ o: 'x', t: 'updated', u: 'x'.repeat(200) }),
    ]) {
      server().cli('PUBLISH', `${prefix}changes`, junk);
    }
    b.hub.notifyToolsChanged();
    await until('B to reach A', () => seenA.length === 1);
    expect(seenA).toEqual([{ type: 'tools' }]);
    expect(a.hub.stats).toMatchObject({ ignored: 6, received: 1 });
  });

  it(`publishes a message of maxMessageBytes (default ${DEFAULT_REDIS_MAX_MESSAGE_BYTES}) and refuses one byte more, delivering it nowhere`, async () => {
    const { a, b, seenA, seenB } = await pair({ maxMessageBytes: 300 });
    const overhead = JSON.stringify({ o: a.instanceId, t: 'updated', u: '' }).length;
    const fits = `demo://${'x'.repeat(300 - overhead - 7)}`;
    a.hub.notifyResourceUpdated(fits);
    await until('A to reach B', () => seenB.length === 1);
    expect(seenB).toEqual([{ type: 'updated', uri: fits }]);
    let refused: unknown;
    try {
      a.hub.notifyResourceUpdated(`${fits}y`);
    } catch (error) {
      refused = error;
    }
    expect(RedisError.is(refused) && refused.code).toBe('SNODO_ERR_REDIS_MESSAGE_TOO_LARGE');
    expect(seenA).toEqual([{ type: 'updated', uri: fits }]);
    b.hub.notifyToolsChanged();
    await until('B to reach A', () => seenA.length === 2);
    expect(seenB).toEqual([{ type: 'updated', uri: fits }, { type: 'tools' }]);
  });

  it('says what a Redis restart lost: failed publishes, and a gap after which every list may have changed', async () => {
    const { a, b, seenA, seenB } = await pair();
    await server().kill();
    // While Redis is down a change still reaches this instance's subscribers; the others miss it.
    a.hub.notifyResourceUpdated('demo://lost');
    expect(seenA).toEqual([{ type: 'updated', uri: 'demo://lost' }]);
    await until('the publish to fail', () => a.hub.stats.publishFailed === 1);
    await server().restart();
    await until('B to resubscribe', () => b.hub.stats.gaps === 1);
    expect(seenB).toEqual([{ type: 'tools' }, { type: 'prompts' }, { type: 'resources' }]);
    const gap = b.hub.stats.lastGap;
    expect(gap && gap.to >= gap.from).toBe(true);
    await until('A to resubscribe', () => a.hub.stats.gaps === 1);
    seenB.length = 0;
    a.hub.notifyResourceUpdated('demo://after');
    await until('A to reach B again', () => seenB.length === 1);
    expect(seenB).toEqual([{ type: 'updated', uri: 'demo://after' }]);
  });
});
