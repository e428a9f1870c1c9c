import { once } from 'node:events';
import { PassThrough, Writable } from 'node:stream';
import { DEFAULT_MAX_BATCH_ITEMS, Executor } from '@snodo/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_MAX_LINE_BYTES, DEFAULT_WRITE_TIMEOUT, serve } from '../src/index.js';
import {
  callTool,
  cancelled,
  Gates,
  hold,
  isResponseTo,
  type Message,
  modern,
  Served,
} from './helpers/in-process.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('serve: concurrency and admission', () => {
  it('runs at most maxConcurrency requests at once, queues maxQueue, then stops reading until there is room: none refused, every one answered', async () => {
    const gates = new Gates();
    const executor = new Executor({ maxConcurrency: 8, maxQueue: 20 });
    const served = new Served(gates.runtime, { executor });
    served.input.write(
      Array.from({ length: 500 }, (_, i) => `${JSON.stringify(hold(i, `k${i}`))}\n`).join(''),
    );

    await gates.whenRunning(8);
    // 8 running, 20 waiting; the 29th line waits for room, and the input is paused: what the
    // client writes now stays in the stream.
    expect(executor.stats()).toMatchObject({ running: 8, queued: 20, rejected: 0 });
    served.send(callTool(500, 'echo', { text: 'written while full' }));
    expect(served.input.readableLength).toBeGreaterThan(0);
    expect(served.messages).toEqual([]);

    gates.autoRelease = true;
    gates.releaseAll();
    const answered = await served.count((m) => m.result !== undefined, 501);
    expect(answered.map((m) => m.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 501 }, (_, i) => i));
    expect(gates.maxRunning).toBe(8);
    // FIFO: the lines ran in the order they were read.
    expect(gates.started).toEqual(Array.from({ length: 500 }, (_, i) => `k${i}`));
    await served.end();
    expect(served.messages).toHaveLength(501);
    expect(executor.stats()).toMatchObject({ running: 0, queued: 0, completed: 501, rejected: 0 });
  });

  it('shares one executor between connections: its bounds hold across both, and a full executor makes each wait, not fail', async () => {
    const gates = new Gates();
    const executor = new Executor({ maxConcurrency: 2, maxQueue: 0 });
    const a = new Served(gates.runtime, { executor });
    const b = new Served(gates.runtime, { executor });
    a.send(hold(1, 'a1'));
    b.send(hold(1, 'b1'));
    await gates.whenRunning(2);
    a.send(hold(2, 'a2'));
    a.send(callTool(3, 'echo', { text: 'after a2' }));
    expect(executor.full).toBe(true);
    gates.release('b1');
    await gates.whenStarted('a2');
    expect(gates.maxRunning).toBe(2);
    gates.autoRelease = true;
    gates.releaseAll();
    await Promise.all([a.end(), b.end()]);
    expect(
      a.messages
        .filter((m) => m.result)
        .map((m) => m.id)
        .sort(),
    ).toEqual([1, 2, 3]);
    expect(b.messages.filter((m) => m.result)).toHaveLength(1);
    expect(executor.stats()).toMatchObject({ rejected: 0, completed: 4 });
  });

  it('a request waiting for room is still served when the input ends', async () => {
    const gates = new Gates();
    const served = new Served(gates.runtime, { maxConcurrency: 1, maxQueue: 0 });
    served.send(hold(1, 'first'));
    served.send(callTool(2, 'echo', { text: 'waited' }));
    await gates.whenStarted('first');
    served.input.end();
    gates.release('first');
    await served.done;
    expect(served.messages.map((m) => m.id)).toEqual([1, 2]);
  });

  it('a request waiting for room is answered -32000 "executor is closed" when the executor closes', async () => {
    const gates = new Gates();
    const executor = new Executor({ maxConcurrency: 1, maxQueue: 0 });
    const served = new Served(gates.runtime, { executor });
    served.send(hold(1, 'first'));
    served.send(callTool(2, 'echo', { text: 'never runs' }));
    await gates.whenStarted('first');
    const closed = executor.close();
    expect(await served.next(isResponseTo(2))).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32000, message: 'Server overloaded: the executor is closed' },
    });
    gates.release('first');
    await closed;
    await served.end();
    expect(served.messages.find(isResponseTo(1))).toMatchObject({ result: {} });
  });
});

describe('serve: JSON-RPC batches (2025-03-26)', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 'init',
    method: 'initialize',
    params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'test', version: '0' } },
  };
  const legacyHold = (id: number, key: string) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'hold', arguments: { key } },
  });
  const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });

  it('admits each item through the executor like a single request: at most maxConcurrency run, the rest wait for room (never refused); one line answers the batch', async () => {
    const gates = new Gates();
    const executor = new Executor({ maxConcurrency: 2, maxQueue: 1 });
    const served = new Served(gates.runtime, { executor });
    served.send(initialize);
    served.send(Array.from({ length: 6 }, (_, i) => legacyHold(i + 1, `b${i + 1}`)));
    served.send(callTool(7, 'echo', { text: 'after the batch' }));
    await gates.whenRunning(2);
    expect(executor.stats()).toMatchObject({ running: 2, queued: 1, rejected: 0 });
    gates.autoRelease = true;
    gates.releaseAll();
    await served.next(isResponseTo(7));
    await served.end();
    expect(gates.maxRunning).toBe(2);
    const batch = served.messages.find(Array.isArray) as unknown as Message[];
    expect(batch.map((m) => m.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(batch.map((m) => m.result?.content[0].text)).toEqual(
      Array.from({ length: 6 }, (_, i) => `released b${i + 1}`),
    );
    expect(executor.stats()).toMatchObject({ rejected: 0, completed: 7 });
  });

  it(`a batch of maxBatchItems (default ${DEFAULT_MAX_BATCH_ITEMS}) items is served; one more item is refused with one -32600 line (id null) and nothing runs`, async () => {
    const gates = new Gates();
    const served = new Served(gates.runtime);
    served.send(initialize);
    served.send(Array.from({ length: DEFAULT_MAX_BATCH_ITEMS }, (_, i) => ping(i + 1)));
    served.send([
      legacyHold(0, 'never'),
      ...Array.from({ length: DEFAULT_MAX_BATCH_ITEMS }, (_, i) => ping(i + 1)),
    ]);
    await served.end();
    expect(served.messages).toHaveLength(3);
    expect(served.messages.find(Array.isArray)).toHaveLength(DEFAULT_MAX_BATCH_ITEMS);
    expect(served.messages.find((m) => m.id === null)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: `Invalid request: batch of ${DEFAULT_MAX_BATCH_ITEMS + 1} items exceeds maxBatchItems (${DEFAULT_MAX_BATCH_ITEMS})`,
        data: { maxBatchItems: DEFAULT_MAX_BATCH_ITEMS },
      },
    });
    expect(gates.started).toEqual([]);
  });

  it('the maxBatchItems option moves the limit', async () => {
    const gates = new Gates();
    const served = new Served(gates.runtime, { maxBatchItems: 2 });
    served.send(initialize);
    served.send([ping(1), ping(2)]);
    served.send([ping(3), ping(4), ping(5)]);
    await served.end();
    expect(served.messages.find(Array.isArray)).toHaveLength(2);
    expect(served.messages.find((m) => m.id === null)).toMatchObject({
      error: { code: -32600, data: { maxBatchItems: 2 } },
    });
  });
});

describe('serve: cancellation and deadlines', () => {
  it('a cancelled request is aborted and never answered, even when its handler finishes anyway', async () => {
    const gates = new Gates();
    const served = new Served(gates.runtime);
    served.send(hold(1, 'stubborn', true));
    served.send(hold(2, 'other'));
    await gates.whenStarted('stubborn');
    await gates.whenStarted('other');
    served.send(cancelled(1));
    await gates.whenAborted('stubborn');
    gates.release('stubborn'); // the handler ignores its signal and returns a result
    gates.release('other');
    expect(await served.next(isResponseTo(2))).toMatchObject({
      result: { content: [{ text: 'released other' }] },
    });
    await served.end();
    expect(served.messages.filter((m) => m.id === 1)).toEqual([]);
  });

  it('a cancelled request still waiting in the queue never runs and is never answered', async () => {
    const gates = new Gates();
    const served = new Served(gates.runtime, { maxConcurrency: 1 });
    served.send(hold(1, 'first'));
    served.send(hold(2, 'queued'));
    await gates.whenStarted('first');
    served.send(cancelled(2));
    served.send(callTool(3, 'echo', { text: 'after the cancel' }));
    gates.release('first');
    await served.next(isResponseTo(3));
    await served.end();
    expect(gates.started).toEqual(['first']);
    expect(served.messages.map((m) => m.id).sort()).toEqual([1, 3]);
  });

  it('cancelling an unknown or finished id changes nothing', async () => {
    const gates = new Gates();
    const served = new Served(gates.runtime);
    served.send(callTool(1, 'echo', { text: 'a' }));
    await served.next(isResponseTo(1));
    served.send(cancelled(1));
    served.send(cancelled('nobody'));
    served.send(callTool(2, 'echo', { text: 'b' }));
    await served.next(isResponseTo(2));
    await served.end();
    expect(served.messages).toHaveLength(2);
  });

  it('past requestTimeout a request is aborted and answered -32001 with its id, and nothing else for it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const gates = new Gates();
    const served = new Served(gates.runtime, { requestTimeout: 1_000 });
    served.send(hold(7, 'slow', true));
    await gates.whenStarted('slow');
    vi.advanceTimersByTime(999);
    expect(served.messages).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(await served.next(isResponseTo(7))).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32001, message: 'Request timed out' },
    });
    await gates.whenAborted('slow');
    gates.release('slow');
    await served.end();
    expect(served.messages).toHaveLength(1);
  });
});

describe('serve: output backpressure and the write timeout', () => {
  it('stops reading while the output is blocked; after writeTimeout it aborts all work and rejects with SNODO_ERR_WRITE_TIMEOUT', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const gates = new Gates();
    const writes: string[] = [];
    // A reader that stopped reading: the first write fills the buffer and its callback never comes.
    const stuck: Writable = new Writable({
      highWaterMark: 16,
      write(chunk: Buffer, _encoding, _callback) {
        writes.push(chunk.toString());
        stuck.emit('wrote');
      },
    });
    const executor = new Executor();
    const served = new Served(gates.runtime, { executor }, stuck);
    served.send(hold(1, 'in-flight'));
    await gates.whenStarted('in-flight');
    const wrote = once(stuck, 'wrote');
    served.send(callTool(2, 'echo', { text: 'this response blocks the output' }));
    await wrote;
    expect(served.settled).toBeUndefined();

    // Blocked: later lines are not read, so they produce nothing and cost nothing.
    for (let i = 0; i < 50; i++) served.send(callTool(100 + i, 'echo', { text: 'x' }));
    await new Promise(setImmediate);
    expect(writes).toHaveLength(1);

    vi.advanceTimersByTime(DEFAULT_WRITE_TIMEOUT - 1);
    expect(served.settled).toBeUndefined();
    vi.advanceTimersByTime(1);
    const error = await served.done.catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'SnodoError', code: 'SNODO_ERR_WRITE_TIMEOUT' });
    expect((error as Error).message).toMatch(/writeTimeout.*5000 ms/);
    await gates.whenAborted('in-flight');
    expect(served.input.listenerCount('data')).toBe(0);
    expect(writes).toHaveLength(1);
    await executor.close(); // resolves once every task settled
    // Both the running hold and the echo waiting for the output to drain were aborted.
    expect(executor.stats()).toMatchObject({ running: 0, completed: 0, cancelled: 2 });
  });

  it('a slow output that drains is not an error: every response arrives, whole and in one write each', async () => {
    const gates = new Gates();
    const chunks: string[] = [];
    const slow = new Writable({
      highWaterMark: 64,
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk.toString());
        setImmediate(callback);
      },
    });
    const served = new Served(gates.runtime, { writeTimeout: 60_000 }, slow);
    const big = 'é'.repeat(700_000); // 1.4 MB of UTF-8 in, 4.2 MB of \u escapes out
    served.send(callTool(0, 'echo', { text: big }));
    for (let i = 1; i <= 200; i++) served.send(callTool(i, 'echo', { text: `n${i}` }));
    await served.end();
    expect(chunks).toHaveLength(201);
    for (const chunk of chunks) {
      expect(chunk.indexOf('\n')).toBe(chunk.length - 1);
    }
    const messages = chunks.map((chunk) => JSON.parse(chunk));
    expect(new Set(messages.map((m) => m.id)).size).toBe(201);
    expect(messages.find((m) => m.id === 0).result.content[0].text).toBe(big);
  });

  it('an output error is terminal: SNODO_ERR_WRITE_FAILED, work aborted', async () => {
    const gates = new Gates();
    const output = new PassThrough();
    const served = new Served(gates.runtime, {}, output);
    served.send(hold(1, 'victim'));
    await gates.whenStarted('victim');
    output.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    await expect(served.done).rejects.toMatchObject({ code: 'SNODO_ERR_WRITE_FAILED' });
    await gates.whenAborted('victim');
  });
});

describe('serve: end of input', () => {
  it('EOF with requests still running: they finish and are written before serve resolves', async () => {
    const gates = new Gates();
    const served = new Served(gates.runtime);
    served.send(hold(1, 'a'));
    served.send(hold(2, 'b'));
    served.input.end();
    await gates.whenRunning(2);
    await new Promise(setImmediate);
    expect(served.settled).toBeUndefined();
    const order: string[] = [];
    served.done.then(() => order.push('resolved'));
    served.output.on('data', () => order.push('output'));
    gates.release('a');
    await served.next(isResponseTo(1));
    expect(served.settled).toBeUndefined();
    gates.release('b');
    await served.done;
    expect(order).toEqual(['output', 'output', 'resolved']);
    expect(served.messages.map((m) => m.id).sort()).toEqual([1, 2]);
  });

  it('a final line without a newline is served at EOF', async () => {
    const gates = new Gates();
    const served = new Served(gates.runtime);
    served.input.end(JSON.stringify(callTool(1, 'echo', { text: 'last' })));
    await served.done;
    expect(served.messages).toMatchObject([{ id: 1, result: { content: [{ text: 'last' }] } }]);
  });

  it('the signal option stops reading and ends like EOF: admitted requests still finish', async () => {
    const gates = new Gates();
    const controller = new AbortController();
    const served = new Served(gates.runtime, { signal: controller.signal });
    served.send(hold(1, 'running'));
    await gates.whenStarted('running');
    controller.abort();
    served.send(callTool(2, 'echo', { text: 'not read' }));
    gates.release('running');
    await served.done;
    expect(served.messages.map((m) => m.id)).toEqual([1]);
  });
});

describe('serve: framing and messages', () => {
  it('refuses a line over maxLineBytes with -32600 and id null before decoding; the next line works', async () => {
    const gates = new Gates();
    const served = new Served(gates.runtime, { maxLineBytes: 64 });
    served.send(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(64)}"}}`);
    served.send('{"jsonrpc":"2.0","id":2,"method":"ping"}');
    await served.next(isResponseTo(2));
    await served.end();
    expect(served.messages).toEqual([
      {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: expect.stringContaining('exceeds maxLineBytes (64)'),
          data: { maxLineBytes: 64 },
        },
      },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
  });

  it('answers garbage with -32700 and keeps serving; ignores blank lines and a BOM on the first line', async () => {
    const gates = new Gates();
    const served = new Served(gates.runtime);
    served.input.write(Buffer.from([0xef, 0xbb, 0xbf]));
    served.input.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n\n   \n');
    served.send('this is not json');
    served.send('{"jsonrpc":"2.0","id":3,"method":"ping"}');
    await served.end();
    expect(served.messages).toHaveLength(3);
    expect(served.messages).toContainEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(served.messages).toContainEqual({
      jsonrpc: '2.0',
      id: null,
      error: expect.objectContaining({ code: -32700 }),
    });
    expect(served.messages).toContainEqual({ jsonrpc: '2.0', id: 3, result: {} });
  });

  it('refuses a line of invalid UTF-8 with -32700 and serves a real U+FFFD and other non-ASCII input as text', async () => {
    const gates = new Gates();
    const served = new Served(gates.runtime);
    const line = (id: number, text: string) => JSON.stringify(callTool(id, 'echo', { text }));
    const [head, tail] = line(1, '@').split('@') as [string, string];
    // A lone continuation byte and a truncated sequence where the text should be.
    served.input.write(
      Buffer.concat([Buffer.from(head), Buffer.from([0x80, 0xe4, 0xb8]), Buffer.from(`${tail}\n`)]),
    );
    served.send(line(2, 'replacement \uFFFD kept'));
    served.send(line(3, 'Grüße 世界'));
    await served.end();
    expect(served.messages).toHaveLength(3);
    expect(served.messages).toContainEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error: Message is not valid UTF-8' },
    });
    const text = (id: number) => served.messages.find((m) => m.id === id)?.result?.content[0].text;
    expect(text(2)).toBe('replacement \uFFFD kept');
    expect(text(3)).toBe('Grüße 世界');
  });

  it('escapes non-ASCII output as \\u escapes that decode back to the same text', async () => {
    const gates = new Gates();
    const served = new Served(gates.runtime);
    const text = 'Grüße 世界 🦄 \u2028';
    served.send(callTool(1, 'echo', { text }));
    await served.end();
    const line = served.lines[0] as string;
    expect(/^[\x00-\x7f]*$/.test(line)).toBe(true);
    expect(line).toContain('Gr\\u00fc\\u00dfe \\u4e16\\u754c \\ud83e\\udd84 \\u2028');
    expect(JSON.parse(line).result.content[0].text).toBe(text);
  });

  it('writes a stream outcome message by message: progress notifications, then the response', async () => {
    const gates = new Gates();
    const served = new Served(gates.runtime);
    served.send(callTool(1, 'progress', {}, { progressToken: 'p' }));
    await served.end();
    expect(served.messages.map((m) => m.method ?? `response ${m.id}`)).toEqual([
      'notifications/progress',
      'notifications/progress',
      'notifications/progress',
      'response 1',
    ]);
    expect(served.messages.slice(0, 3).map((m) => m.params.progress)).toEqual([1, 2, 3]);
  });

  it('writes nothing more of a stream once its request is cancelled', async () => {
    const gates = new Gates();
    const served = new Served(gates.runtime);
    served.send(callTool(1, 'progress', { key: 'mid' }, { progressToken: 'p' }));
    await gates.whenStarted('mid');
    await served.count((m) => m.method === 'notifications/progress', 2);
    served.send(cancelled(1));
    served.send(callTool(2, 'echo', { text: 'after' }));
    await served.next(isResponseTo(2));
    gates.release('mid');
    await served.end();
    expect(served.messages.map((m) => m.method ?? `response ${m.id}`)).toEqual([
      'notifications/progress',
      'notifications/progress',
      'response 2',
    ]);
  });
});

describe('serve: the session', () => {
  const initialize = (id: number, protocolVersion: string) => ({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'test', version: '0' } },
  });

  it('one connection is one initialize-based session; 2026-07-28 requests are served statelessly beside it', async () => {
    const gates = new Gates();
    const served = new Served(gates.runtime);
    served.send({ jsonrpc: '2.0', id: 0, method: 'tools/list' });
    served.send(modern('d', 'server/discover'));
    served.send(initialize(1, '2025-06-18'));
    served.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    served.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'logs', arguments: {} } });
    served.send({ jsonrpc: '2.0', id: 3, method: 'logging/setLevel', params: { level: 'info' } });
    served.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'logs', arguments: {} } });
    served.send(callTool(5, 'echo', { text: 'stateless' }));
    await served.end();
    const byId = (id: unknown) => served.messages.find(isResponseTo(id));
    expect(byId(0)).toMatchObject({ error: { code: -32600 } }); // no session yet, no version
    expect(byId('d')).toMatchObject({
      result: { supportedVersions: expect.arrayContaining(['2026-07-28']) },
    });
    expect(byId(1)).toMatchObject({ result: { protocolVersion: '2025-06-18' } });
    expect(byId(2)).toMatchObject({ result: { content: [{ text: 'logged' }] } });
    expect(byId(3)).toMatchObject({ result: {} });
    expect(byId(5)).toMatchObject({ result: { content: [{ text: 'stateless' }], resultType: 'complete' } });
    // Only the call after logging/setLevel streamed its log message: the session was stored.
    const logs = served.messages.filter((m) => m.method === 'notifications/message');
    expect(logs).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hello from logs' } },
    ]);
    expect(served.messages.indexOf(logs[0] as Message)).toBeLessThan(
      served.messages.indexOf(byId(4) as Message),
    );
  });

  it('serves a JSON-RPC batch on a 2025-03-26 session as one line', async () => {
    const gates = new Gates();
    const served = new Served(gates.runtime);
    served.send(initialize(1, '2025-03-26'));
    served.send([
      { jsonrpc: '2.0', id: 2, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'in a batch' } },
      },
    ]);
    await served.end();
    expect(served.lines).toHaveLength(2);
    expect(JSON.parse(served.lines[1] as string)).toEqual([
      { jsonrpc: '2.0', id: 2, result: {} },
      { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'in a batch' }] } },
    ]);
  });
});

describe('serve: options', () => {
  const runtime = new Gates().runtime;
  const streams = () => ({ input: new PassThrough(), output: new PassThrough() });

  it.each([
    [{ writeTimeout: 0 }, /writeTimeout must be an integer number of milliseconds from 1/],
    [{ writeTimeout: 1.5 }, /writeTimeout/],
    [{ maxLineBytes: 0 }, /maxLineBytes must be a positive integer, got 0/],
    [{ maxLineBytes: '10' }, /maxLineBytes must be a positive integer, got "10"/],
    [
      { requestTimeout: -1 },
      /requestTimeout must be an integer number of milliseconds from 0 to 2147483647, or Infinity for none, got -1/,
    ],
    [{ maxConcurrency: 0 }, /maxConcurrency must be a positive integer/],
    [{ maxQueue: -1 }, /maxQueue must be a non-negative integer/],
    [{ maxBatchItems: 0 }, /maxBatchItems must be a positive integer, got 0/],
    [{ maxBatchItems: -1 }, /maxBatchItems must be a positive integer, got -1/],
    [{ maxBatchItems: 1.5 }, /maxBatchItems must be a positive integer, got 1.5/],
    [{ maxBatchItems: '10' }, /maxBatchItems must be a positive integer, got "10"/],
    [{ maxBatchItems: 2 ** 53 }, /maxBatchItems must be a positive integer, got 9007199254740992/],
    [{ executor: new Executor(), maxQueue: 1 }, /maxQueue cannot be combined with executor/],
    [{ executor: {} }, /executor must be an Executor/],
    [{ input: {} }, /input must be a readable stream/],
    [{ output: {} }, /output must be a writable stream/],
    [{ signal: 'stop' }, /signal must be an AbortSignal/],
    [{ console: 'stdout' }, /console must be one of "stderr", "keep", got "stdout"/],
  ])('refuses %o with SNODO_ERR_INVALID_OPTION naming the option', async (options, message) => {
    await expect(serve(runtime, { ...streams(), ...(options as object) })).rejects.toMatchObject({
      name: 'SnodoError',
      code: 'SNODO_ERR_INVALID_OPTION',
      message: expect.stringMatching(message),
    });
  });

  it('has the documented defaults', () => {
    expect(DEFAULT_WRITE_TIMEOUT).toBe(5_000);
    expect(DEFAULT_MAX_LINE_BYTES).toBe(2_000_000);
  });
});
