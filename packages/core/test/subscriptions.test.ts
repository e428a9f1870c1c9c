import { describe, expect, it } from 'vitest';
import {
  createChangeHub,
  createServer,
  dispatch,
  type OpenedSubscription,
  openSessionNotifications,
  resourceTemplate,
} from '../src/index.js';
import { initialize, legacy, MODERN, modern } from './helpers/demo.js';
import { featureServer } from './helpers/features.js';
import { run } from './helpers/run.js';
import { expectResponse, expectSchema } from './helpers/wire-schema.js';

const SUB = 'io.modelcontextprotocol/subscriptionId';

async function listen(runtime: any, notifications: unknown, id: string | number = 7, queue?: number) {
  const request = { ...modern('subscriptions/listen', { notifications }), id };
  const outcome = await dispatch(runtime, request, queue === undefined ? {} : { subscriptionQueue: queue });
  if (outcome.type !== 'subscription')
    throw new Error(`expected a subscription, got ${JSON.stringify(outcome)}`);
  return outcome.subscription;
}

async function take(subscription: OpenedSubscription, count: number) {
  const out: any[] = [];
  const iterator = subscription[Symbol.asyncIterator]();
  while (out.length < count) {
    const next = await iterator.next();
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}

describe('subscriptions/listen (2026-07-28)', () => {
  it('acknowledges first, listing only what will be honoured, tagged with the listen id', async () => {
    const { runtime } = featureServer();
    const subscription = await listen(runtime, {
      toolsListChanged: true,
      promptsListChanged: false,
      resourceSubscriptions: ['demo://greeting', 'demo://items/3', 'other://unknown'],
    });
    const [ack] = await take(subscription, 1);
    expectSchema(MODERN, 'SubscriptionsAcknowledgedNotification', ack);
    expect(ack).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: {
        notifications: {
          toolsListChanged: true,
          resourceSubscriptions: ['demo://greeting', 'demo://items/3'],
        },
        _meta: { [SUB]: 7 },
      },
    });
    subscription.close();
  });

  it('delivers requested changes with the subscription id, and nothing else', async () => {
    const { runtime, hub } = featureServer();
    const subscription = await listen(
      runtime,
      { toolsListChanged: true, resourceSubscriptions: ['demo://greeting'] },
      'sub-1',
    );
    hub.notifyPromptsChanged();
    hub.notifyResourceUpdated('demo://other');
    hub.notifyToolsChanged();
    hub.notifyResourceUpdated('demo://greeting');
    const [, tools, updated] = await take(subscription, 3);
    expectSchema(MODERN, 'ToolListChangedNotification', tools);
    expectSchema(MODERN, 'ResourceUpdatedNotification', updated);
    expect(tools).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { [SUB]: 'sub-1' } },
    });
    expect(updated.params).toEqual({ uri: 'demo://greeting', _meta: { [SUB]: 'sub-1' } });
    const final = subscription.close();
    expectResponse(MODERN, 'subscriptions/listen', final);
    expect(final).toMatchObject({
      id: 'sub-1',
      result: { resultType: 'complete', _meta: { [SUB]: 'sub-1' } },
    });
    hub.notifyToolsChanged();
    expect(await take(subscription, 1)).toEqual([]);
    expect(hub.size).toBe(0);
  });

  it('a touch through a tool reaches the subscriber', async () => {
    const { runtime } = featureServer();
    const subscription = await listen(runtime, { resourceSubscriptions: ['demo://greeting'] });
    await run(runtime, modern('tools/call', { name: 'touch', arguments: { uri: 'demo://greeting' } }));
    const [, updated] = await take(subscription, 2);
    expect(updated.method).toBe('notifications/resources/updated');
    subscription.close();
  });

  it('drops a subscriber that stops reading once its bounded queue fills; the others still receive', async () => {
    const { runtime, hub } = featureServer();
    const slow = await listen(runtime, { resourceSubscriptions: ['demo://greeting'] }, 1, 3);
    const fast = await listen(runtime, { resourceSubscriptions: ['demo://greeting'] }, 2, 3);
    const fastIterator = fast[Symbol.asyncIterator]();
    await fastIterator.next();
    for (let i = 0; i < 10; i++) {
      hub.notifyResourceUpdated('demo://greeting');
      const next = await fastIterator.next();
      expect(next.value.params._meta[SUB]).toBe(2);
    }
    expect((slow as any).overflowed).toBe(true);
    expect(await take(slow, 100)).toEqual([]);
    expect(hub.size).toBe(1);
    fast.close();
    expect(hub.size).toBe(0);
  });

  it('coalesces unread list-changed notifications', async () => {
    const { runtime, hub } = featureServer();
    const subscription = await listen(runtime, { toolsListChanged: true }, 9, 2);
    for (let i = 0; i < 50; i++) hub.notifyToolsChanged();
    subscription.close();
    const messages: any[] = [];
    for await (const message of subscription) messages.push(message);
    expect((subscription as any).overflowed).toBe(false);
  });

  it('a filter naming a hostile URI for a {a}-{b}-{c} template acknowledges only the URIs it can serve', async () => {
    // Before matching was linear this filter blocked the event loop for ~31 s (uri-template.test.ts counts the steps).
    const runtime = createServer({
      name: 's',
      version: '1',
      hub: createChangeHub(),
      resourceTemplates: [
        resourceTemplate({ uriTemplate: 'calendar://{year}-{month}-{day}', name: 'day', read: () => '' }),
      ],
    });
    const hostile = `calendar://${'-'.repeat(4000)}!`;
    const subscription = await listen(runtime, { resourceSubscriptions: [hostile, 'calendar://2026-07-28'] });
    const [ack] = await take(subscription, 1);
    expect(ack.params.notifications).toEqual({ resourceSubscriptions: ['calendar://2026-07-28'] });
    subscription.close();
  });

  it('a listen without notifications is -32602', async () => {
    const { runtime } = featureServer();
    const { response } = await run(runtime, modern('subscriptions/listen'));
    expectResponse(MODERN, 'subscriptions/listen', response);
    expect(response.error.code).toBe(-32602);
  });

  it('a server without a hub acknowledges an empty filter', async () => {
    const { runtime } = featureServer({ hub: undefined });
    const subscription = await listen(runtime, {
      toolsListChanged: true,
      resourceSubscriptions: ['demo://greeting'],
    });
    const messages: any[] = [];
    for await (const message of subscription) messages.push(message);
    expect(messages).toHaveLength(1);
    expect(messages[0].params.notifications).toEqual({});
  });
});

describe('resources/subscribe on the initialize-based revisions', () => {
  it.each(['2025-11-25', '2025-06-18', '2025-03-26'])(
    '%s: subscribe, get updates, unsubscribe',
    async (version) => {
      const { runtime, hub } = featureServer();
      let session = (await run(runtime, initialize(version))).outcome as any;
      expectResponse(version, 'initialize', (await run(runtime, initialize(version))).response);
      expect((await run(runtime, initialize(version))).response.result.capabilities.resources).toEqual({
        subscribe: true,
        listChanged: true,
      });
      session = session.session;
      const stream = openSessionNotifications(runtime, () => session);
      const subscribed = await run(runtime, legacy('resources/subscribe', { uri: 'demo://greeting' }), {
        session,
      });
      expectResponse(version, 'resources/subscribe', subscribed.response);
      session = (subscribed.outcome as any).session;
      expect(session.subscriptions).toEqual(['demo://greeting']);
      hub.notifyResourceUpdated('demo://other');
      hub.notifyResourceUpdated('demo://greeting');
      hub.notifyToolsChanged();
      const iterator = stream[Symbol.asyncIterator]();
      const updated = (await iterator.next()).value;
      expectSchema(version, 'ResourceUpdatedNotification', updated);
      expect(updated).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri: 'demo://greeting' },
      });
      expect((await iterator.next()).value.method).toBe('notifications/tools/list_changed');
      const unsubscribed = await run(runtime, legacy('resources/unsubscribe', { uri: 'demo://greeting' }), {
        session,
      });
      session = (unsubscribed.outcome as any).session;
      hub.notifyResourceUpdated('demo://greeting');
      hub.notifyPromptsChanged();
      expect((await iterator.next()).value.method).toBe('notifications/prompts/list_changed');
      stream.close();
      expect((await iterator.next()).done).toBe(true);
    },
  );

  it.each(['2025-11-25', '2025-06-18', '2025-03-26'])(
    '%s: a URI that is neither a resource nor a template match is refused (-32002), as listen leaves it out',
    async (version) => {
      const { runtime } = featureServer();
      const session = ((await run(runtime, initialize(version))).outcome as any).session;
      const refused = await run(runtime, legacy('resources/subscribe', { uri: 'other://unknown' }), {
        session,
      });
      expect(refused.response.error).toMatchObject({ code: -32002, data: { uri: 'other://unknown' } });
      expect((refused.outcome as any).session).toBeUndefined();
      const instance = await run(runtime, legacy('resources/subscribe', { uri: 'demo://items/3' }), {
        session,
      });
      expect((instance.outcome as any).session.subscriptions).toEqual(['demo://items/3']);
    },
  );

  it('is -32601 on 2026-07-28 and without a hub', async () => {
    const { runtime } = featureServer();
    expect(
      (await run(runtime, modern('resources/subscribe', { uri: 'demo://greeting' }))).response.error.code,
    ).toBe(-32601);
    const plain = featureServer({ hub: undefined }).runtime;
    const init = await run(plain, initialize('2025-06-18'));
    const refused = await run(plain, legacy('resources/subscribe', { uri: 'demo://greeting' }), {
      session: (init.outcome as any).session,
    });
    expect(refused.response.error.code).toBe(-32601);
  });
});
