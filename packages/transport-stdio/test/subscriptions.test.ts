import { createChangeHub, createServer, Executor, resource, type SessionOwner, tool } from '@snodo/core';
import { deriveRuntime } from '@snodo/core/internal';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { callTool, cancelled, isResponseTo, type Message, modern, Served } from './helpers/in-process.js';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** A server with one resource and a `touch` tool that reports it updated through the change hub. */
function hubServer() {
  const hub = createChangeHub();
  const runtime = createServer({
    name: 'hub',
    version: '1.0.0',
    hub,
    resources: [resource({ uri: 'demo://a', name: 'a', read: () => 'a' })],
    tools: [
      tool({
        name: 'touch',
        inputSchema: z.object({ uri: z.string() }),
        handler: ({ uri }) => {
          hub.notifyResourceUpdated(uri);
          return `touched ${uri}`;
        },
      }),
      tool({
        name: 'ask',
        handler: async (_args, ctx) => {
          const answer = await ctx.elicit({
            message: 'Name?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          });
          return `Hello, ${String((answer.content as { name?: string } | undefined)?.name)}!`;
        },
      }),
    ],
  });
  return { hub, runtime };
}

const listen = (id: number | string) =>
  modern(id, 'subscriptions/listen', { notifications: { resourceSubscriptions: ['demo://a'] } });
const forSubscription = (id: unknown) => (m: Message) =>
  m.method !== undefined && m.params?._meta?.[SUBSCRIPTION_ID] === id;
const updated = (id: unknown) => (m: Message) =>
  forSubscription(id)(m) && m.method === 'notifications/resources/updated';

describe('subscriptions/listen over stdio', () => {
  it('writes the acknowledgement and each notification as they come, tagged with the listen id', async () => {
    const { runtime } = hubServer();
    const served = new Served(runtime);
    served.send(listen(7));
    const ack = await served.next(forSubscription(7));
    expect(ack).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { resourceSubscriptions: ['demo://a'] } },
    });
    served.send(callTool(1, 'touch', { uri: 'demo://a' }));
    expect(await served.next(updated(7))).toMatchObject({ params: { uri: 'demo://a' } });
    served.send(callTool(2, 'touch', { uri: 'demo://a' }));
    await served.count(updated(7), 2);
    await served.end();
  });

  it('notifications/cancelled naming the listen id ends it: nothing more is written for it, not even a result', async () => {
    const { hub, runtime } = hubServer();
    const served = new Served(runtime);
    served.send(listen('L'));
    await served.next(forSubscription('L'));
    served.send(cancelled('L'));
    served.send(callTool(1, 'touch', { uri: 'demo://a' }));
    await served.next(isResponseTo(1));
    await served.end();
    expect(served.messages.filter(updated('L'))).toEqual([]);
    expect(served.messages.filter(isResponseTo('L'))).toEqual([]);
    expect(hub.size).toBe(0); // closed, not just muted
  });

  it('EOF ends it gracefully with the listen result, after its pending notifications, and serve resolves', async () => {
    const { hub, runtime } = hubServer();
    const served = new Served(runtime);
    served.send(listen(9));
    await served.next(forSubscription(9));
    served.send(callTool(1, 'touch', { uri: 'demo://a' }));
    await served.end();
    const forNine = served.messages.filter((m) => forSubscription(9)(m) || isResponseTo(9)(m));
    expect(forNine.map((m) => m.method ?? 'result')).toEqual([
      'notifications/subscriptions/acknowledged',
      'notifications/resources/updated',
      'result',
    ]);
    expect(forNine.at(-1)).toMatchObject({
      id: 9,
      result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: 9 } },
    });
    expect(hub.size).toBe(0);
  });

  it('the stop signal ends it gracefully too', async () => {
    const { runtime } = hubServer();
    const controller = new AbortController();
    const served = new Served(runtime, { signal: controller.signal });
    served.send(listen(3));
    await served.next(forSubscription(3));
    controller.abort();
    await served.done;
    expect(served.messages.at(-1)).toMatchObject({ id: 3, result: { resultType: 'complete' } });
  });

  it('takes a subscription slot of the executor: beyond maxSubscriptions a listen gets -32000', async () => {
    const { runtime } = hubServer();
    const executor = new Executor({ maxSubscriptions: 1 });
    const served = new Served(runtime, { executor });
    served.send(listen(1));
    await served.next(forSubscription(1));
    served.send(listen(2));
    expect(await served.next(isResponseTo(2))).toMatchObject({ error: { code: -32000 } });
    expect(executor.stats()).toMatchObject({ subscriptions: 1, subscriptionsRejected: 1 });
    served.send(cancelled(1));
    served.send(listen(3));
    await served.next(forSubscription(3));
    await served.end();
    expect(executor.stats().subscriptions).toBe(0);
  });
});

describe('the initialize-based session over stdio', () => {
  const initialize = (capabilities: Record<string, unknown> = {}) => ({
    jsonrpc: '2.0',
    id: 'init',
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities, clientInfo: { name: 'test', version: '0' } },
  });
  const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args },
  });

  it('resources/subscribe: the session is notified of updates once initialized', async () => {
    const { runtime } = hubServer();
    const served = new Served(runtime);
    served.send(initialize());
    served.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    served.send({ jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri: 'demo://a' } });
    served.send(call(2, 'touch', { uri: 'demo://a' }));
    const notice = await served.next((m) => m.method === 'notifications/resources/updated');
    expect(notice).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: 'demo://a' },
    });
    await served.end();
  });

  it("one connectionId names the connection: every request's and the session stream's (sessionHub)", async () => {
    const { runtime: base, hub } = hubServer();
    const seen: (string | undefined)[] = [];
    const owners: SessionOwner[] = [];
    const runtime = deriveRuntime(base, {
      operations: {
        'tools/call': (callOf) => {
          seen.push(callOf.connectionId);
          return { content: [{ type: 'text', text: 'ok' }] };
        },
      },
      sessionHub: (owner) => {
        owners.push(owner);
        return hub;
      },
    });
    const served = new Served(runtime);
    served.send(initialize());
    served.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    served.send(call(1, 'touch', { uri: 'demo://a' }));
    served.send(call(2, 'touch', { uri: 'demo://a' }));
    await served.next(isResponseTo(2));
    expect(seen).toEqual([expect.any(String), seen[0]]);
    expect(owners).toEqual([{ auth: undefined, connectionId: seen[0] }]);
    const other = new Served(runtime);
    other.send(initialize());
    other.send(call(3, 'touch', { uri: 'demo://a' }));
    await other.next(isResponseTo(3));
    expect(seen[2]).toEqual(expect.any(String));
    expect(seen[2]).not.toBe(seen[0]);
    await served.end();
    await other.end();
  });

  it('server-initiated requests go to the client and its responses come back to the handler', async () => {
    const { runtime } = hubServer();
    const served = new Served(runtime);
    served.send(initialize({ elicitation: {} }));
    served.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    served.send(call(1, 'ask'));
    const request = await served.next((m) => m.method === 'elicitation/create');
    expect(request).toMatchObject({ id: expect.any(String), params: { message: 'Name?' } });
    served.send({ jsonrpc: '2.0', id: 'unknown', result: {} }); // answers nothing pending: ignored
    served.send({ jsonrpc: '2.0', id: request.id, result: { action: 'accept', content: { name: 'Ada' } } });
    expect(await served.next(isResponseTo(1))).toMatchObject({
      result: { content: [{ text: 'Hello, Ada!' }] },
    });
    await served.end();
  });

  it('EOF while the server waits for the client: the pending server request fails at once and serve resolves', async () => {
    const { runtime } = hubServer();
    const served = new Served(runtime);
    served.send(initialize({ elicitation: {} }));
    served.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    served.send(call(1, 'ask'));
    await served.next((m) => m.method === 'elicitation/create');
    await served.end(); // no 60 s wait for an answer that cannot come
    expect(served.messages.find(isResponseTo(1))).toBeDefined();
  });
});
