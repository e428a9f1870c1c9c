// 2025-03-26 batches through the plugin on a real socket: every item is admitted by the executor
// like a single request, and maxBatchItems bounds a batch. The `hold` tool counts the handlers
// running at once.
import { DEFAULT_MAX_BATCH_ITEMS, type Runtime, SnodoError } from '@snodo/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { type SnodoFastifyOptions, snodo } from '../src/index.js';
import { bearer, listen, Probe, testApp, testServer } from './helpers.js';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** The test server, whose `block` tool holds until the probe opens, counting itself. */
function holdServer() {
  const probe = new Probe();
  return { runtime: testServer(probe), running: probe.blocking, release: () => probe.release.open() };
}

let nextId = 1;
const hold = () => ({
  jsonrpc: '2.0',
  id: nextId++,
  method: 'tools/call',
  params: { name: 'block', arguments: {} },
});
const ping = () => ({ jsonrpc: '2.0', id: nextId++, method: 'ping' });
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** Serves `runtime` under the test app (bearer auth), opens a 2025-03-26 session, and returns a poster. */
async function session(options: Omit<SnodoFastifyOptions, 'runtime'> & { runtime: Runtime }) {
  const app = await testApp(options);
  apps.push(app);
  const { origin } = await listen(app);
  const url = `${origin}/api/mcp`;
  const send = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { ...JSON_HEADERS, ...bearer(), ...headers },
      body: JSON.stringify(body),
    });
  const init = await send({
    jsonrpc: '2.0',
    id: nextId++,
    method: 'initialize',
    params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '0' } },
  });
  const sessionId = init.headers.get('mcp-session-id') as string;
  return (body: unknown) => send(body, { 'mcp-session-id': sessionId });
}

describe('2025-03-26 batches through the plugin', () => {
  it('no more handlers run at once than maxConcurrency; items over the queue get -32000, the others their results', async () => {
    const { runtime, running, release } = holdServer();
    const send = await session({ runtime, maxConcurrency: 3, maxQueue: 2 });
    const batch = Array.from({ length: 20 }, hold);
    const response = send(batch);
    await running.reach(3);
    release();
    const answer = await response;
    expect(answer.status).toBe(200);
    const body = await answer.json();
    expect(body.map((r: { id: number }) => r.id)).toEqual(batch.map((m) => m.id));
    expect(body.filter((r: { result?: unknown }) => r.result !== undefined)).toHaveLength(5);
    expect(body.slice(5).map((r: { error?: unknown }) => r.error)).toEqual(
      Array(15).fill({ code: -32000, message: 'Server overloaded' }),
    );
    expect(running.peak).toBe(3);
    expect(running.started).toBe(5);
  });

  it(`a batch of maxBatchItems (default ${DEFAULT_MAX_BATCH_ITEMS}) items is served; one more item is 400 -32600 and nothing runs`, async () => {
    const { runtime, running } = holdServer();
    const send = await session({ runtime });
    const atLimit = await send(Array.from({ length: DEFAULT_MAX_BATCH_ITEMS }, ping));
    expect(atLimit.status).toBe(200);
    expect(await atLimit.json()).toHaveLength(DEFAULT_MAX_BATCH_ITEMS);
    const over = await send([hold(), ...Array.from({ length: DEFAULT_MAX_BATCH_ITEMS }, ping)]);
    expect(over.status).toBe(400);
    expect(await over.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: `Invalid request: batch of ${DEFAULT_MAX_BATCH_ITEMS + 1} items exceeds maxBatchItems (${DEFAULT_MAX_BATCH_ITEMS})`,
        data: { maxBatchItems: DEFAULT_MAX_BATCH_ITEMS },
      },
    });
    expect(running.started).toBe(0);
  });

  it('the maxBatchItems option moves the limit', async () => {
    const send = await session({ runtime: holdServer().runtime, maxBatchItems: 2 });
    expect((await send([ping(), ping()])).status).toBe(200);
    const over = await send([ping(), ping(), ping()]);
    expect(over.status).toBe(400);
    expect((await over.json()).error).toMatchObject({ code: -32600, data: { maxBatchItems: 2 } });
  });

  it.each([0, -1, 1.5, '10', 2 ** 53])(
    'registration refuses maxBatchItems %s naming the option',
    async (value) => {
      const app = Fastify();
      app.register(snodo, { runtime: holdServer().runtime, maxBatchItems: value as number });
      const error = await app.ready().then(
        () => undefined,
        (failure: unknown) => failure,
      );
      await app.close();
      expect(SnodoError.is(error)).toBe(true);
      expect(error).toMatchObject({
        code: 'SNODO_ERR_INVALID_OPTION',
        message: expect.stringMatching(/^Invalid option: maxBatchItems must be a positive integer, got /),
      });
    },
  );
});
