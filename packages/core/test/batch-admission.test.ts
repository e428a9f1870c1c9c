// JSON-RPC batches (2025-03-26): every item is admitted by the executor like a single request, and
// a batch holds at most maxBatchItems items. Handlers count themselves; nothing here is timed.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createFetchHandler,
  DEFAULT_MAX_BATCH_ITEMS,
  type DecodedSingle,
  decodeMessage,
  dispatch,
  dispatchBatch,
  Executor,
  type HttpOptions,
  type Runtime,
  resolveHttpOptions,
  type Session,
} from '../src/index.js';
import { httpServer, LEGACY_HEADERS, newProbe, post } from './http-helpers.js';

/** The HTTP tests' server, whose `wait` tool holds until the probe opens, counting itself. */
function holdServer() {
  const probe = newProbe();
  return { runtime: httpServer(probe), running: probe.waiting, release: () => probe.release.open() };
}

let nextId = 1;
const hold = () => ({
  jsonrpc: '2.0',
  id: nextId++,
  method: 'tools/call',
  params: { name: 'wait', arguments: {} },
});
const ping = () => ({ jsonrpc: '2.0', id: nextId++, method: 'ping' });

async function openSession(runtime: Runtime, options: HttpOptions | ReturnType<typeof resolveHttpOptions>) {
  const answer = await post(
    runtime,
    {
      jsonrpc: '2.0',
      id: nextId++,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '0' } },
    },
    LEGACY_HEADERS,
    options,
  );
  return { ...LEGACY_HEADERS, 'mcp-session-id': answer.headers['mcp-session-id'] as string };
}

async function legacySession(runtime: Runtime): Promise<Session> {
  const decoded = decodeMessage(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '0' } },
    }),
  );
  const outcome = await dispatch(runtime, decoded as DecodedSingle);
  return (outcome as { session: Session }).session;
}

function items(messages: object[]): DecodedSingle[] {
  const decoded = decodeMessage(JSON.stringify(messages));
  if (decoded.kind !== 'batch') throw new Error('expected a batch');
  return decoded.items;
}

const overloaded = { code: -32000, message: 'Server overloaded' };

afterEach(() => {
  vi.useRealTimers();
});

describe('each batch item is admitted by the executor like a single request', () => {
  it('dispatchBatch with admit: at most maxConcurrency items run, the queue holds maxQueue, the rest are refused -32000 one by one', async () => {
    const { runtime, running, release } = holdServer();
    const executor = new Executor({ maxConcurrency: 2, maxQueue: 1 });
    const batch = [hold(), hold(), hold(), hold(), hold()];
    const outcome = dispatchBatch(
      runtime,
      items(batch),
      { session: await legacySession(runtime) },
      {
        admit: (task) => executor.submit(task),
      },
    );
    await running.reach(2);
    expect(executor.stats()).toMatchObject({ running: 2, queued: 1, rejected: 2 });
    release();
    const { responses } = await outcome;
    expect(responses.map((r) => r.id)).toEqual(batch.map((m) => m.id));
    expect(responses.slice(0, 3).map((r) => 'result' in r && r.result)).toEqual(
      Array(3).fill({ content: [{ type: 'text', text: 'released' }] }),
    );
    expect(responses.slice(3).map((r) => 'error' in r && r.error)).toEqual([overloaded, overloaded]);
    expect(running.peak).toBe(2);
    expect(running.started).toBe(3);
  });

  it('over HTTP (handle): a 2025-03-26 batch runs no more handlers at once than maxConcurrency; items over the queue get -32000, the others their results', async () => {
    const { runtime, running, release } = holdServer();
    const options = resolveHttpOptions({ maxConcurrency: 3, maxQueue: 2 });
    const headers = await openSession(runtime, options);
    const batch = Array.from({ length: 20 }, hold);
    const answer = post(runtime, batch, headers, options);
    await running.reach(3);
    expect(options.executor.stats()).toMatchObject({ running: 3, queued: 2, rejected: 15 });
    release();
    const { status, body } = await answer;
    expect(status).toBe(200);
    expect(body.map((r: { id: number }) => r.id)).toEqual(batch.map((m) => m.id));
    expect(body.filter((r: { result?: unknown }) => r.result !== undefined)).toHaveLength(5);
    expect(body.slice(5).map((r: { error?: unknown }) => r.error)).toEqual(Array(15).fill(overloaded));
    expect(running.peak).toBe(3);
  });

  it('a batch and single requests share the executor: a single request over the bound is still refused', async () => {
    const { runtime, running, release } = holdServer();
    const options = resolveHttpOptions({ maxConcurrency: 2, maxQueue: 0 });
    const headers = await openSession(runtime, options);
    const batch = post(runtime, [hold(), hold()], headers, options);
    await running.reach(2);
    const single = await post(runtime, hold(), headers, options);
    expect(single.status).toBe(200); // -32000 in a 200, the form the official clients read
    expect(single.body.error.code).toBe(-32000);
    release();
    expect((await batch).body.map((r: { result?: unknown }) => r.result !== undefined)).toEqual([true, true]);
    expect(running.peak).toBe(2);
  });

  it('an item past its deadline is answered -32001; the other items keep their results', async () => {
    const { runtime, running, release } = holdServer();
    // Faked before the session opens: the executor keeps one deadline timer per timeout, and the
    // one initialize armed must be fake too, or the item's deadline joins a real timer.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const options = resolveHttpOptions({ requestTimeout: 1_000 });
    const headers = await openSession(runtime, options);
    const first = ping();
    const slow = hold();
    const last = ping();
    const before = options.executor.stats().completed;
    const answer = post(runtime, [first, slow, last], headers, options);
    await running.reach(1);
    // The pings finish within microtasks; wait (a turn of the event loop at a time) until only the hold runs.
    while (options.executor.stats().completed < before + 2) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    // The shared timer was armed for initialize's deadline: it fires, then re-arms for this item's
    // (at most 1,000 ms later), which the same advance reaches.
    vi.advanceTimersByTime(2_000);
    const { status, body } = await answer;
    expect(status).toBe(200);
    expect(body).toEqual([
      { jsonrpc: '2.0', id: first.id, result: {} },
      { jsonrpc: '2.0', id: slow.id, error: { code: -32001, message: 'Request timed out' } },
      { jsonrpc: '2.0', id: last.id, result: {} },
    ]);
    release();
  });
});

describe('maxBatchItems', () => {
  it('defaults to DEFAULT_MAX_BATCH_ITEMS (100)', () => {
    expect(DEFAULT_MAX_BATCH_ITEMS).toBe(100);
    expect(resolveHttpOptions({}).maxBatchItems).toBe(100);
  });

  it('over HTTP: a batch of exactly the default limit is served; one item more is 400 -32600 with data.maxBatchItems, and nothing runs', async () => {
    const { runtime, running, release } = holdServer();
    const options = {};
    const headers = await openSession(runtime, options);
    const atLimit = await post(
      runtime,
      Array.from({ length: DEFAULT_MAX_BATCH_ITEMS }, ping),
      headers,
      options,
    );
    expect(atLimit.status).toBe(200);
    expect(atLimit.body).toHaveLength(DEFAULT_MAX_BATCH_ITEMS);
    release();
    const over = await post(
      runtime,
      [...Array.from({ length: DEFAULT_MAX_BATCH_ITEMS }, ping), hold()],
      headers,
      options,
    );
    expect(over.status).toBe(400);
    expect(over.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: 'Invalid request: batch of 101 items exceeds maxBatchItems (100)',
        data: { maxBatchItems: 100 },
      },
    });
    expect(running.started).toBe(0);
  });

  it('the option moves the limit; notifications count as items', async () => {
    const { runtime } = holdServer();
    const options = { maxBatchItems: 3 };
    const headers = await openSession(runtime, options);
    const notification = { jsonrpc: '2.0', method: 'notifications/initialized' };
    const atLimit = await post(runtime, [ping(), notification, ping()], headers, options);
    expect(atLimit.status).toBe(200);
    expect(atLimit.body).toHaveLength(2);
    const over = await post(runtime, [ping(), notification, ping(), notification], headers, options);
    expect(over.status).toBe(400);
    expect(over.body.error).toEqual({
      code: -32600,
      message: 'Invalid request: batch of 4 items exceeds maxBatchItems (3)',
      data: { maxBatchItems: 3 },
    });
  });

  it('the fetch handler takes the same option', async () => {
    const { runtime } = holdServer();
    const fetchHandler = createFetchHandler(runtime, { maxBatchItems: 2 });
    const send = (body: unknown, headers: Record<string, string>) =>
      fetchHandler(
        new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body: JSON.stringify(body) }),
      );
    const init = await send(
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '0' } },
      },
      LEGACY_HEADERS,
    );
    const headers = { ...LEGACY_HEADERS, 'mcp-session-id': init.headers.get('mcp-session-id') as string };
    const atLimit = await send([ping(), ping()], headers);
    expect(atLimit.status).toBe(200);
    expect(await atLimit.json()).toHaveLength(2);
    const over = await send([ping(), ping(), ping()], headers);
    expect(over.status).toBe(400);
    expect((await over.json()).error).toMatchObject({ code: -32600, data: { maxBatchItems: 2 } });
  });

  it('dispatchBatch bounds a batch by itself: at the limit served, over it one -32600 and nothing runs', async () => {
    const { runtime, running } = holdServer();
    const session = await legacySession(runtime);
    const atLimit = await dispatchBatch(runtime, items([ping(), ping()]), { session }, { maxBatchItems: 2 });
    expect(atLimit.responses).toHaveLength(2);
    const over = await dispatchBatch(
      runtime,
      items([ping(), ping(), hold()]),
      { session },
      { maxBatchItems: 2 },
    );
    expect(over.responses).toEqual([
      {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: 'Invalid request: batch of 3 items exceeds maxBatchItems (2)',
          data: { maxBatchItems: 2 },
        },
      },
    ]);
    expect(over.refused).toBe(true);
    expect(atLimit.refused).toBeUndefined();
    expect(running.started).toBe(0);
  });

  it.each([0, -1, 1.5, '10', Number.NaN, 2 ** 53])(
    'refuses maxBatchItems %s with SNODO_ERR_INVALID_OPTION naming the option',
    (value) => {
      expect(() => resolveHttpOptions({ maxBatchItems: value as number })).toThrow(
        expect.objectContaining({
          code: 'SNODO_ERR_INVALID_OPTION',
          message: expect.stringMatching(/^Invalid option: maxBatchItems must be a positive integer, got /),
        }),
      );
    },
  );

  it('accepts 1', () => {
    expect(resolveHttpOptions({ maxBatchItems: 1 }).maxBatchItems).toBe(1);
  });
});
