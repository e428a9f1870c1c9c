// 2025-03-26 batches on a real socket: every item is admitted by the executor like a single
// request, and maxBatchItems bounds a batch. The `hold` tool counts the handlers running at once.
import { DEFAULT_MAX_BATCH_ITEMS } from '@snodo/core';
import { afterEach, describe, expect, it } from 'vitest';
import { listen } from '../src/index.js';
import { closeAll, newProbe, post, start, testServer } from './helpers.js';

afterEach(closeAll);

/** The test server, whose `wait` tool holds until the probe opens, counting itself. */
function holdServer() {
  const probe = newProbe();
  return { runtime: testServer(probe), running: probe.waiting, release: () => probe.release.open() };
}

let nextId = 1;
const hold = () => ({
  jsonrpc: '2.0',
  id: nextId++,
  method: 'tools/call',
  params: { name: 'wait', arguments: {} },
});
const ping = () => ({ jsonrpc: '2.0', id: nextId++, method: 'ping' });

async function openSession(url: string): Promise<Record<string, string>> {
  const init = await post(url, {
    jsonrpc: '2.0',
    id: nextId++,
    method: 'initialize',
    params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '0' } },
  });
  return { 'mcp-session-id': init.headers.get('mcp-session-id') as string };
}

describe('2025-03-26 batches on the listener', () => {
  it('no more handlers run at once than maxConcurrency; items over the queue get -32000, the others their results', async () => {
    const { runtime, running, release } = holdServer();
    const server = await start({ runtime, maxConcurrency: 3, maxQueue: 2 });
    const headers = await openSession(server.url());
    const batch = Array.from({ length: 20 }, hold);
    const response = post(server.url(), batch, headers);
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
    const server = await start({ runtime });
    const headers = await openSession(server.url());
    const atLimit = await post(server.url(), Array.from({ length: DEFAULT_MAX_BATCH_ITEMS }, ping), headers);
    expect(atLimit.status).toBe(200);
    expect(await atLimit.json()).toHaveLength(DEFAULT_MAX_BATCH_ITEMS);
    const over = await post(
      server.url(),
      [hold(), ...Array.from({ length: DEFAULT_MAX_BATCH_ITEMS }, ping)],
      headers,
    );
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
    const server = await start({ maxBatchItems: 2 });
    const headers = await openSession(server.url());
    expect((await post(server.url(), [ping(), ping()], headers)).status).toBe(200);
    const over = await post(server.url(), [ping(), ping(), ping()], headers);
    expect(over.status).toBe(400);
    expect((await over.json()).error).toMatchObject({ code: -32600, data: { maxBatchItems: 2 } });
  });

  it.each([0, -1, 1.5, '10', 2 ** 53])(
    'listen() refuses maxBatchItems %s naming the option',
    async (value) => {
      const { runtime } = holdServer();
      await expect(listen({ runtime, port: 0, maxBatchItems: value as number })).rejects.toMatchObject({
        code: 'SNODO_ERR_INVALID_OPTION',
        message: expect.stringMatching(/^Invalid option: maxBatchItems must be a positive integer, got /),
      });
    },
  );
});
