import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster } from './helpers/cluster.js';
import { LEGACY, legacySession } from './helpers/mcp.js';

let cluster: Awaited<ReturnType<typeof startCluster>>;

beforeAll(async () => {
  cluster = await startCluster();
});
afterAll(() => cluster?.stop());

/**
 * Calls `sleep` with 0 ms (in a 2025-11-25 session of its own: 2025-03-26 has no structured
 * content) until one lands on `instance`, and says how many sleeps run there then.
 */
async function sleepingOn(instance: string): Promise<number> {
  const session = await legacySession(cluster.url, '2025-11-25');
  for (let i = 0; i < 4; i++) {
    const reply = await session.call('tools/call', { name: 'sleep', arguments: { ms: 0 } });
    if (reply.instance === instance) return reply.body.result.structuredContent.concurrent;
  }
  throw new Error(`no request reached ${instance}`);
}

/** True when the stream ends with notifications only; the response (or request) it yielded otherwise. */
async function endsWithoutResponse(stream: { next(): Promise<any> }): Promise<unknown> {
  for (;;) {
    const message = await stream.next().catch(() => undefined);
    if (message === undefined) return true;
    if (message.id !== undefined) return message;
  }
}

describe('control messages reach the instance holding the session’s work, through HAProxy', () => {
  for (const version of LEGACY) {
    describe(version, () => {
      it('cancels a call running on the other instance: its handler stops, and no response comes late', async () => {
        const session = await legacySession(cluster.url, version);
        const { id, stream } = await session.stream('tools/call', {
          name: 'sleep',
          arguments: { ms: 600_000 },
          _meta: { progressToken: 'p' },
        });
        expect((await stream.next()).method).toBe('notifications/progress');
        const cancel = await session.notify('notifications/cancelled', { requestId: id, reason: 'enough' });
        expect(cancel.instance).not.toBe(stream.instance);
        expect(cancel.status).toBe(202);
        // Nothing sleeps on its instance any more, and the stream ends with no response.
        expect(await sleepingOn(stream.instance as string)).toBe(1);
        expect(await endsWithoutResponse(stream)).toBe(true);
      });

      it('answers 400 (-32602) to a cancel of a request no instance runs', async () => {
        const session = await legacySession(cluster.url, version);
        for (let i = 0; i < 2; i++) {
          const cancel = await session.notify('notifications/cancelled', { requestId: 999_999, reason: 'x' });
          expect(cancel.status).toBe(400);
          expect(cancel.body.error.code).toBe(-32602);
        }
      });

      it('delivers a roots/list answer posted to the other instance to the waiting call', async () => {
        const session = await legacySession(cluster.url, version);
        const { stream } = await session.stream('tools/call', { name: 'roots', arguments: {} });
        const asked = await stream.next();
        expect(asked.method).toBe('roots/list');
        const answer = await session.answer(asked.id, { roots: [{ uri: 'file:///work' }] });
        expect(answer.instance).not.toBe(stream.instance);
        expect(answer.status).toBe(202);
        expect((await stream.next()).result.content[0].text).toBe('Roots: file:///work');
      });

      // Elicitation came with 2025-06-18.
      if (version !== '2025-03-26')
        it('delivers an elicitation answer posted to the other instance to the waiting call', async () => {
          const session = await legacySession(cluster.url, version);
          const { stream } = await session.stream('tools/call', { name: 'ask', arguments: {} });
          const asked = await stream.next();
          expect(asked.method).toBe('elicitation/create');
          const answer = await session.answer(asked.id, { action: 'accept', content: { name: 'Ada' } });
          expect(answer.instance).not.toBe(stream.instance);
          expect(answer.status).toBe(202);
          expect((await stream.next()).result.content[0].text).toBe('Hello, Ada!');
        });

      it('answers 400 (-32600) to an answer no instance waits for', async () => {
        const session = await legacySession(cluster.url, version);
        for (let i = 0; i < 2; i++) {
          const answer = await session.answer(424_242, { action: 'accept', content: { name: 'Ada' } });
          expect(answer.status).toBe(400);
          expect(answer.body.error.code).toBe(-32600);
        }
      });

      it('delivers the updates of a resources/subscribe sent to one instance on the GET stream held by the other', async () => {
        const session = await legacySession(cluster.url, version);
        const get = await session.get();
        const subscribed = await session.call('resources/subscribe', { uri: 'demo://items/1' });
        expect(subscribed.instance).not.toBe(get.instance);
        expect(subscribed.status).toBe(200);
        const touchedOn = new Set<string | undefined>();
        for (let i = 0; i < 3; i++) {
          const touched = await session.call('tools/call', {
            name: 'touch',
            arguments: { uri: 'demo://items/1' },
          });
          touchedOn.add(touched.instance);
          expect(await get.next()).toMatchObject({
            method: 'notifications/resources/updated',
            params: { uri: 'demo://items/1' },
          });
        }
        expect(touchedOn).toEqual(new Set(['a', 'b']));
        const unsubscribed = await session.call('resources/unsubscribe', { uri: 'demo://items/1' });
        expect(unsubscribed.status).toBe(200);
        await session.call('tools/call', { name: 'touch', arguments: { uri: 'demo://items/1' } });
        await session.call('tools/call', { name: 'touch', arguments: { uri: 'demo://items/2' } });
        get.close();
      });

      it('closes on every instance the streams of a session DELETEd on one', async () => {
        const session = await legacySession(cluster.url, version);
        const get = await session.get();
        const { stream } = await session.stream('tools/call', {
          name: 'sleep',
          arguments: { ms: 600_000 },
          _meta: { progressToken: 'p' },
        });
        expect((await stream.next()).method).toBe('notifications/progress');
        const deleted = await session.delete();
        expect(deleted.status).toBe(204);
        expect(new Set([get.instance, stream.instance, deleted.instance]).size).toBe(2);
        expect(await sleepingOn(stream.instance as string)).toBe(1);
        expect(await endsWithoutResponse(stream)).toBe(true);
        expect(await endsWithoutResponse(get)).toBe(true);
        expect((await session.call('tools/list')).status).toBe(404);
      });
    });
  }
});
