import { describe, expect, it } from 'vitest';
import {
  createChangeHub,
  createServer,
  dispatch,
  type OpenedSubscription,
  SnodoError,
} from '../src/index.js';
import { deriveRuntime, openListen } from '../src/internal.js';
import { modern } from './helpers/demo.js';
import { run } from './helpers/run.js';

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

  it('refuses to replace what core does not implement', () => {
    const base = createServer({ name: 'dyn', version: '1.0.0' });
    expect(() => deriveRuntime(base, { operations: { 'tools/frobnicate': () => ({}) } })).toThrow(SnodoError);
    expect(() => deriveRuntime(base, { operations: { 'tools/frobnicate': () => ({}) } })).toThrow(
      /"tools\/frobnicate" is not a core operation/,
    );
    expect(Object.isFrozen(deriveRuntime(base, {}))).toBe(true);
  });
});
