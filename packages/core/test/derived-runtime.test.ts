import { describe, expect, it } from 'vitest';
import {
  createChangeHub,
  createClientRequests,
  createServer,
  dispatch,
  type JsonRpcMessage,
  type OpenedSubscription,
  SnodoError,
} from '../src/index.js';
import { type ClientNotification, deriveRuntime, openListen } from '../src/internal.js';
import { modern } from './helpers/demo.js';
import { run } from './helpers/run.js';
import { openLegacySession, post } from './http-helpers.js';

const SUB = 'io.modelcontextprotocol/subscriptionId';

/** A runtime whose catalog is a mutable map read at call time, listed per principal. */
function dynamic() {
  const tools = new Map<string, string[]>([['echo', ['ada', 'bob']]]);
  const hub = createChangeHub();
  const runtime = deriveRuntime(createServer({ name: 'dyn', version: '1.0.0' }), {
    capabilities: { tools: { listChanged: true }, resources: { subscribe: true } },
    hub,
    operations: {
      'tools/list': (call) => ({
        tools: [...tools]
          .filter(([, who]) => who.includes(String(call.auth?.principal)))
          .map(([name]) => ({ name, inputSchema: { type: 'object' } })),
        ttlMs: 5,
      }),
      'tools/call': async (call) => {
        const answer = await call.context.elicit({
          message: 'ok?',
          requestedSchema: { type: 'object', properties: {} },
        });
        return { content: [{ type: 'text', text: `${String(call.params.name)} ${String(answer.action)}` }] };
      },
    },
    openListen: (listenCall) => {
      if (listenCall.auth?.principal !== 'ada') throw new Error('not ada');
      return openListen(listenCall.runtime, listenCall.id, { toolsListChanged: true }, listenCall.queueSize);
    },
  });
  return { runtime, tools, hub };
}

describe('deriveRuntime (the seam of runtimes whose catalog lives elsewhere)', () => {
  it('routes replaced methods to the runtime operations, per caller, read at call time', async () => {
    const { runtime, tools } = dynamic();
    const ada = await run(runtime, modern('tools/list'), { auth: { principal: 'ada' } });
    expect(ada.response.result.tools.map((t: { name: string }) => t.name)).toEqual(['echo']);
    expect(ada.response.result).toMatchObject({ ttlMs: 5, cacheScope: 'private', resultType: 'complete' });
    tools.set('add', ['bob']);
    const bob = await run(runtime, modern('tools/list'), { auth: { principal: 'bob' } });
    expect(bob.response.result.tools.map((t: { name: string }) => t.name)).toEqual(['echo', 'add']);
    const eve = await run(runtime, modern('tools/list'), { auth: { principal: 'eve' } });
    expect(eve.response.result.tools).toEqual([]);
  });

  it('keeps core around a replaced operation: MRTR rounds, capability checks, shaping', async () => {
    const { runtime } = dynamic();
    const caps = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
    const first = await run(runtime, modern('tools/call', { name: 'x', arguments: {} }, caps));
    expect(first.response.result.resultType).toBe('input_required');
    const retry = await run(
      runtime,
      modern(
        'tools/call',
        {
          name: 'x',
          arguments: {},
          inputResponses: { elicit: { action: 'accept', content: {} } },
          requestState: first.response.result.requestState,
        },
        caps,
      ),
    );
    expect(retry.response.result.content).toEqual([{ type: 'text', text: 'x accept' }]);
    const undeclared = await run(runtime, modern('tools/call', { name: 'x', arguments: {} }));
    expect(undeclared.response.error.code).toBe(-32021);
  });

  it('leaves other methods to core and their capability rule', async () => {
    const { runtime } = dynamic();
    const discover = await run(runtime, modern('server/discover'));
    expect(discover.response.result.capabilities).toEqual({
      tools: { listChanged: true },
      resources: { subscribe: true },
    });
    const prompts = await run(runtime, modern('prompts/list'));
    expect(prompts.response.error.code).toBe(-32601);
    const read = await run(runtime, modern('resources/read', { uri: 'x://nothing' }));
    expect(read.response.error.code).toBe(-32602);
  });

  it('opens subscriptions/listen through openListen; what it throws becomes an error response', async () => {
    const { runtime, hub } = dynamic();
    const outcome = await dispatch(
      runtime,
      { ...modern('subscriptions/listen', { notifications: {} }), id: 'L' },
      {
        auth: { principal: 'ada' },
      },
    );
    if (outcome.type !== 'subscription') throw new Error(`expected a subscription, got ${outcome.type}`);
    const iterator = (outcome.subscription as OpenedSubscription)[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { toolsListChanged: true }, _meta: { [SUB]: 'L' } },
    });
    hub.notifyToolsChanged();
    expect((await iterator.next()).value).toMatchObject({ method: 'notifications/tools/list_changed' });
    outcome.subscription.close();
    const refused = await run(runtime, modern('subscriptions/listen', { notifications: {} }), {
      auth: { principal: 'eve' },
    });
    expect(refused.response.error).toEqual({ code: -32603, message: 'Internal error' });
  });

  it('tells onClientNotification of the notifications core does not act on, with their sender and a way to ask it', async () => {
    const notes: ClientNotification[] = [];
    const runtime = deriveRuntime(createServer({ name: 'n', version: '1.0.0' }), {
      onClientNotification: (note) => {
        notes.push(note);
        throw new Error('a throwing hook changes nothing');
      },
    });
    const init = await dispatch(runtime, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: { roots: { listChanged: true } },
        clientInfo: { name: 'c', version: '1' },
      },
    });
    const session = init.type === 'response' ? init.session : undefined;
    const sent: JsonRpcMessage[] = [];
    const requests = createClientRequests((message) => sent.push(message));
    const context = { session, connectionId: 'c1', auth: { principal: 'ada' }, channel: requests.channel };
    for (const method of ['notifications/initialized', 'notifications/progress', 'notifications/cancelled']) {
      await dispatch(runtime, { jsonrpc: '2.0', method, params: { progressToken: 1, progress: 1 } }, context);
    }
    expect(notes).toEqual([]);
    const outcome = await dispatch(
      runtime,
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      context,
    );
    expect(outcome).toEqual({ type: 'none' });
    expect(notes).toMatchObject([
      {
        method: 'notifications/roots/list_changed',
        connectionId: 'c1',
        auth: { principal: 'ada' },
        clientCapabilities: { roots: { listChanged: true } },
      },
    ]);
    // A request to that client outside any of its own: no related request id.
    const asked = notes[0]?.request?.('roots/list', undefined, new AbortController().signal);
    expect(sent).toEqual([{ jsonrpc: '2.0', id: 's1', method: 'roots/list' }]);
    requests.resolve({ id: 's1', result: { roots: [] } });
    expect(await asked).toEqual({ roots: [] });
  });

  it('over HTTP, such a request to a session without its GET stream open is refused at once', async () => {
    const notes: ClientNotification[] = [];
    const runtime = deriveRuntime(createServer({ name: 'n', version: '1.0.0' }), {
      onClientNotification: (note) => notes.push(note),
    });
    const options = {};
    const headers = await openLegacySession(runtime, options);
    const answer = await post(
      runtime,
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      headers,
      options,
    );
    expect(answer.status).toBe(202);
    expect(notes).toHaveLength(1);
    await expect(
      notes[0]?.request?.('roots/list', undefined, new AbortController().signal),
    ).rejects.toMatchObject({
      code: -32603,
      message: 'roots/list: the client has no stream open here to receive a request outside its own',
    });
  });

  it('refuses to replace what core does not implement', () => {
    const base = createServer({ name: 'dyn', version: '1.0.0' });
    expect(() => deriveRuntime(base, { operations: { 'tools/frobnicate': () => ({}) } })).toThrow(SnodoError);
    expect(() => deriveRuntime(base, { operations: { 'tools/frobnicate': () => ({}) } })).toThrow(
      /"tools\/frobnicate" is not a core operation/,
    );
    expect(Object.isFrozen(deriveRuntime(base, {}))).toBe(true);
  });
});
