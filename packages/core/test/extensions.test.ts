import { describe, expect, it } from 'vitest';
import { createServer, dispatch } from '../src/index.js';
import { initialize, legacy, modern } from './helpers/demo.js';
import { featureServer } from './helpers/features.js';
import { run } from './helpers/run.js';
import { expectResponse } from './helpers/wire-schema.js';

const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const { runtime } = featureServer();

describe('extensions', () => {
  it('are advertised in capabilities.extensions with their settings', async () => {
    const { response } = await run(runtime, modern('server/discover'));
    expectResponse('2026-07-28', 'server/discover', response);
    expect(response.result.capabilities.extensions).toEqual({ 'dev.snodo/health': { detail: 'aggregate' } });
  });

  it('route their methods only when the request declares the extension too', async () => {
    const declared = await run(
      runtime,
      modern('health/check', {}, { [CAPS]: { extensions: { 'dev.snodo/health': {} } } }),
    );
    expect(declared.response.result).toMatchObject({ status: 'up', resultType: 'complete' });
    const undeclared = await run(runtime, modern('health/check'));
    expect(undeclared.response.error).toMatchObject({
      code: -32601,
      data: { requiresExtension: 'dev.snodo/health' },
    });
    const other = await run(
      runtime,
      modern('health/check', {}, { [CAPS]: { extensions: { 'dev.snodo/other': {} } } }),
    );
    expect(other.response.error.code).toBe(-32601);
  });

  it('on the initialize-based revisions, through the negotiated capabilities', async () => {
    const init = await run(runtime, initialize('2025-06-18', { extensions: { 'dev.snodo/health': {} } }));
    const result = await run(runtime, legacy('health/check', {}), { session: (init.outcome as any).session });
    expect(result.response.result).toEqual({ status: 'up' });
    const plain = await run(runtime, initialize('2025-06-18'));
    const refused = await run(runtime, legacy('health/check', {}), {
      session: (plain.outcome as any).session,
    });
    expect(refused.response.error.code).toBe(-32601);
  });

  it('are checked at definition: the prefix is required and core methods cannot be taken', () => {
    expect(() => createServer({ name: 's', version: '1', extensions: { health: {} } })).toThrow(
      /prefix is required/,
    );
    expect(() =>
      createServer({
        name: 's',
        version: '1',
        extensions: { 'dev.x/y': { methods: { 'tools/list': () => ({}) } } },
      }),
    ).toThrow(/core MCP method/);
  });

  it('an extension may answer undeclared clients with -32021 and serve 2026-07-28 only', async () => {
    const server = createServer({
      name: 's',
      version: '1',
      extensions: {
        'dev.snodo/strict': {
          undeclared: 'missing-capability',
          modernOnly: true,
          methods: { 'strict/ping': () => ({ pong: true }) },
        },
      },
    });
    const undeclared = await run(server, modern('strict/ping'));
    expect(undeclared.response.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { 'dev.snodo/strict': {} } } },
    });
    const declared = await run(
      server,
      modern('strict/ping', {}, { [CAPS]: { extensions: { 'dev.snodo/strict': {} } } }),
    );
    expect(declared.response.result.pong).toBe(true);
    const init = await run(server, initialize('2025-06-18', { extensions: { 'dev.snodo/strict': {} } }));
    const legacyCall = await run(server, legacy('strict/ping', {}), {
      session: (init.outcome as any).session,
    });
    expect(legacyCall.response.error.code).toBe(-32601);
  });

  it('checks undeclared, nameParams and listen at definition', () => {
    const define = (definition: object) =>
      createServer({ name: 's', version: '1', extensions: { 'dev.x/y': definition as never } });
    expect(() => define({ undeclared: 'ignore' })).toThrow(/undeclared must be/);
    expect(() => define({ methods: { 'y/a': () => ({}) }, nameParams: { 'y/b': 'id' } })).toThrow(
      /nameParams/,
    );
    expect(() => define({ listen: 'yes' })).toThrow(/listen must be a function/);
  });

  it('an extension’s listen hook adds its keys to the acknowledgement and its notifications to the stream', async () => {
    const events: string[] = [];
    const server = createServer({
      name: 's',
      version: '1',
      extensions: {
        'dev.snodo/ticks': {
          listen: async ({ filter, declared }) => {
            if (filter.ticks === undefined) return undefined;
            events.push(`asked declared=${declared}`);
            return {
              honoured: { ticks: true },
              start(send) {
                send('notifications/ticks', { n: 1 });
                return () => events.push('stopped');
              },
              cancel: () => events.push('cancelled'),
            };
          },
        },
      },
    });
    const request = {
      ...modern(
        'subscriptions/listen',
        { notifications: { ticks: true } },
        {
          [CAPS]: { extensions: { 'dev.snodo/ticks': {} } },
        },
      ),
      id: 'S',
    };
    const outcome = await dispatch(server, request);
    if (outcome.type !== 'subscription') throw new Error('expected a subscription');
    const iterator = outcome.subscription[Symbol.asyncIterator]();
    const ack = (await iterator.next()).value as any;
    expect(ack.params.notifications).toEqual({ ticks: true });
    const tick = (await iterator.next()).value as any;
    expect(tick).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/ticks',
      params: { n: 1, _meta: { 'io.modelcontextprotocol/subscriptionId': 'S' } },
    });
    outcome.subscription.close();
    expect(events).toEqual(['asked declared=true', 'stopped']);
  });
});
