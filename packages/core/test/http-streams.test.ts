import { describe, expect, it } from 'vitest';
import {
  createChangeHub,
  createFetchHandler,
  Executor,
  isStreamResponse,
  resolveHttpOptions,
} from '../src/index.js';
import { featureServer } from './helpers/features.js';
import {
  handle,
  httpRequest,
  httpServer,
  modernHeaders,
  modernMessage,
  newProbe,
  openLegacySession,
  parseSse,
  postModern,
  read,
  textStream,
} from './http-helpers.js';

const listen = (filter: Record<string, unknown> = { toolsListChanged: true }) =>
  modernMessage('subscriptions/listen', { notifications: filter });

describe('response shaping', () => {
  it('progress arrives as SSE events before the final response', async () => {
    const probe = newProbe();
    const runtime = httpServer(probe);
    const message = modernMessage('tools/call', { name: 'steps' }, { progressToken: 'p1' });
    const response = await handle(
      runtime,
      httpRequest({ headers: modernHeaders(message), body: JSON.stringify(message) }),
    );
    expect(isStreamResponse(response)).toBe(true);
    expect(response.headers).toMatchObject({
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    });
    probe.release.open();
    const answer = await read(response);
    expect(answer.events.map((e) => e.method ?? 'response')).toEqual([
      'notifications/progress',
      'notifications/progress',
      'response',
    ]);
    expect(answer.events[0].params).toMatchObject({ progressToken: 'p1', progress: 1, total: 2 });
    expect(answer.body).toMatchObject({
      id: message.id,
      result: { content: [{ text: 'done' }], resultType: 'complete' },
    });
    expect(answer.text).toMatch(/^event: message\ndata: /);
    expect(answer.text).not.toMatch(/^id:/m);
  });

  it('a stream whose first message is the response is sent as JSON', async () => {
    const runtime = httpServer();
    const message = modernMessage(
      'tools/call',
      { name: 'echo', arguments: { text: 'hi' } },
      { progressToken: 1 },
    );
    const answer = await postModern(runtime, message);
    expect(answer.stream).toBe(false);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.body.result.content[0].text).toBe('hi');
  });

  it('an idle stream carries keepalive comment lines', async () => {
    const probe = newProbe();
    const runtime = httpServer(probe);
    const message = modernMessage('tools/call', { name: 'steps' }, { progressToken: 'k' });
    const options = { keepAliveInterval: 5 };
    const response = await handle(
      runtime,
      httpRequest({ headers: modernHeaders(message), body: JSON.stringify(message) }),
      options,
    );
    if (!isStreamResponse(response)) throw new Error('expected a stream');
    let text = '';
    for await (const chunk of textStream(response)) {
      text += chunk;
      if (chunk === ': keepalive\n\n') probe.release.open();
    }
    expect(text).toContain(': keepalive\n\n');
    expect(parseSse(text).at(-1).result.content[0].text).toBe('done');
  });
});

describe('cancellation, overload and deadlines (2026-07-28)', () => {
  it('a disconnect during a running sleep aborts its handler', async () => {
    const probe = newProbe();
    const runtime = httpServer(probe);
    const client = new AbortController();
    const message = modernMessage('tools/call', { name: 'sleep' });
    const pending = handle(
      runtime,
      httpRequest({ headers: modernHeaders(message), body: JSON.stringify(message), signal: client.signal }),
    );
    const signal = await probe.sleeping.promise;
    expect(signal.aborted).toBe(false);
    client.abort();
    await probe.sleepAborted.promise;
    expect(signal.aborted).toBe(true);
    expect((await read(await pending)).events).toEqual([]);
  });

  it('overload is a 200 with -32000 and the request id (the status the official clients read)', async () => {
    const probe = newProbe();
    const runtime = httpServer(probe);
    const options = { maxConcurrency: 1, maxQueue: 0 };
    const busy = postModern(runtime, modernMessage('tools/call', { name: 'wait' }), options);
    const message = modernMessage('tools/list');
    const answer = await postModern(runtime, message, options);
    expect(answer.status).toBe(200);
    expect(answer.headers['retry-after']).toBeUndefined();
    expect(answer.body).toMatchObject({ id: message.id, error: { code: -32000 } });
    probe.release.open();
    expect((await busy).status).toBe(200);
  });

  it("the handler's executor logs the overload to the runtime's logger (warn, once per interval)", async () => {
    const probe = newProbe();
    const warned: Record<string, unknown>[] = [];
    const logger = { info() {}, error() {}, warn: (fields: Record<string, unknown>) => warned.push(fields) };
    const runtime = httpServer(probe, { logger });
    const options = { maxConcurrency: 1, maxQueue: 0 };
    const busy = postModern(runtime, modernMessage('tools/call', { name: 'wait' }), options);
    await probe.waiting.reach(1);
    for (let i = 0; i < 2; i++)
      expect((await postModern(runtime, modernMessage('tools/list'), options)).body).toMatchObject({
        error: { code: -32000 },
      });
    expect(warned).toEqual([{ refused: 1, running: 1, queued: 0, maxConcurrency: 1, maxQueue: 0 }]);
    probe.release.open();
    expect((await busy).status).toBe(200);
  });

  it('with overloadRetryAfter, overload is 503 with that Retry-After, for load balancers', async () => {
    const probe = newProbe();
    const runtime = httpServer(probe);
    const options = { maxConcurrency: 1, maxQueue: 0, overloadRetryAfter: 7 };
    const busy = postModern(runtime, modernMessage('tools/call', { name: 'wait' }), options);
    const message = modernMessage('tools/list');
    const answer = await postModern(runtime, message, options);
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('7');
    expect(answer.body).toMatchObject({ id: message.id, error: { code: -32000 } });
    probe.release.open();
    expect((await busy).status).toBe(200);
  });

  it('overloadRetryAfter must be a positive integer (1 is the smallest)', () => {
    expect(resolveHttpOptions({ overloadRetryAfter: 1 }).overloadRetryAfter).toBe(1);
    expect(resolveHttpOptions({}).overloadRetryAfter).toBeUndefined();
    for (const bad of [0, -1, 1.5, '1'])
      expect(() => resolveHttpOptions({ overloadRetryAfter: bad as number })).toThrow(
        /overloadRetryAfter must be a positive integer/,
      );
  });

  it('a stream the executor gives up on after its first notification ends with the error it maps to, never silently', async () => {
    const probe = newProbe();
    const runtime = httpServer(probe);
    const executor = new Executor();
    const message = modernMessage('tools/call', { name: 'steps' }, { progressToken: 'p1' });
    const response = await handle(
      runtime,
      httpRequest({ headers: modernHeaders(message), body: JSON.stringify(message) }),
      { executor },
    );
    expect(isStreamResponse(response)).toBe(true);
    executor.destroy();
    const answer = await read(response);
    probe.release.open();
    expect(answer.events.map((e) => e.method ?? 'response')).toEqual([
      'notifications/progress',
      'notifications/progress',
      'response',
    ]);
    expect(answer.body).toEqual({
      jsonrpc: '2.0',
      id: message.id,
      error: { code: -32000, message: 'Server overloaded: the executor is closed' },
    });
  });

  it('a request past its deadline gets -32001', async () => {
    const runtime = httpServer();
    const message = modernMessage('tools/call', { name: 'sleep' });
    const answer = await postModern(runtime, message, { requestTimeout: 1 });
    expect(answer.body).toMatchObject({ id: message.id, error: { code: -32001 } });
  });
});

describe('subscriptions', () => {
  it('a listen stream acknowledges first, then carries changes, and a disconnect frees its slot', async () => {
    const hub = createChangeHub();
    const runtime = httpServer(undefined, { hub });
    const executor = new Executor({ maxSubscriptions: 2 });
    const options = { executor };
    const client = new AbortController();
    const message = listen();
    const response = await handle(
      runtime,
      httpRequest({ headers: modernHeaders(message), body: JSON.stringify(message), signal: client.signal }),
      options,
    );
    if (!isStreamResponse(response)) throw new Error('expected a stream');
    expect(response.headers['content-type']).toBe('text/event-stream');
    expect(executor.stats().subscriptions).toBe(1);
    const iterator = textStream(response)[Symbol.asyncIterator]();
    const ack = parseSse((await iterator.next()).value as string)[0];
    expect(ack.method).toBe('notifications/subscriptions/acknowledged');
    expect(ack.params._meta['io.modelcontextprotocol/subscriptionId']).toBe(message.id);
    hub.notifyToolsChanged();
    const change = parseSse((await iterator.next()).value as string)[0];
    expect(change.method).toBe('notifications/tools/list_changed');
    client.abort();
    expect(executor.stats().subscriptions).toBe(0);
    expect((await iterator.next()).done).toBe(true);
  });

  it('over maxSubscriptions a listen gets 503; a freed slot serves the next one', async () => {
    const hub = createChangeHub();
    const runtime = httpServer(undefined, { hub });
    const executor = new Executor({ maxSubscriptions: 2 });
    const held = [executor.acquireSubscription(), executor.acquireSubscription()];
    const options = { executor };
    const refused = await postModern(runtime, listen(), options);
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe(-32000);
    held[0]?.release();
    const client = new AbortController();
    const message = listen();
    const response = await handle(
      runtime,
      httpRequest({ headers: modernHeaders(message), body: JSON.stringify(message), signal: client.signal }),
      options,
    );
    expect(response.status).toBe(200);
    expect(executor.stats().subscriptions).toBe(2);
    client.abort();
    expect(executor.stats().subscriptions).toBe(1);
  });

  it('a listen whose reader stops reading returns its slot when its queue overflows, before the host reads again, and cuts the response', async () => {
    const { runtime, hub } = featureServer();
    const executor = new Executor({ maxSubscriptions: 1 });
    const message = listen({ resourceSubscriptions: ['demo://greeting'] });
    const response = await handle(
      runtime,
      httpRequest({ headers: modernHeaders(message), body: JSON.stringify(message) }),
      { executor },
    );
    if (!isStreamResponse(response)) throw new Error('expected a stream');
    expect(executor.stats().subscriptions).toBe(1);
    // The host never pulls `events` (its socket is full): 64 unread updates is the bound.
    for (let i = 0; i < 100; i++) hub.notifyResourceUpdated('demo://greeting');
    expect(executor.stats().subscriptions).toBe(0);
    expect(response.cut?.aborted).toBe(true);
    const next = listen();
    const leave = new AbortController();
    const served = await handle(
      runtime,
      httpRequest({ headers: modernHeaders(next), body: JSON.stringify(next), signal: leave.signal }),
      { executor },
    );
    expect(served.status).toBe(200);
    leave.abort();
    // A host that does read again gets the graceful end: the acknowledgement, then the listen result.
    const events = (await read(response)).events;
    expect(events.at(-1)).toMatchObject({ id: message.id, result: { resultType: 'complete' } });
  });

  it("a session's GET stream whose reader stops reading returns its slot when it overflows, before the host reads again", async () => {
    const { runtime, hub } = featureServer();
    const options = resolveHttpOptions({ executor: new Executor({ maxSubscriptions: 1 }) });
    const headers = await openLegacySession(runtime, options);
    const response = await handle(runtime, httpRequest({ method: 'GET', headers }), options);
    if (!isStreamResponse(response)) throw new Error('expected a stream');
    expect(options.executor.stats().subscriptions).toBe(1);
    // The host never pulls `events`: 64 unread notifications is the bound.
    for (let i = 0; i < 100; i++) hub.notifyToolsChanged();
    expect(options.executor.stats().subscriptions).toBe(0);
    expect(response.cut?.aborted).toBe(true);
    const again = await handle(runtime, httpRequest({ method: 'GET', headers }), options);
    expect(again.status).toBe(200);
  });

  it('a listen that fails returns its slot at once', async () => {
    const runtime = httpServer(undefined, { hub: createChangeHub() });
    const executor = new Executor({ maxSubscriptions: 1 });
    const bad = modernMessage('subscriptions/listen', {});
    const answer = await postModern(runtime, bad, { executor });
    expect(answer.body.error.code).toBe(-32602);
    expect(executor.stats().subscriptions).toBe(0);
  });

  it('on shutdown a subscription ends with its graceful result', async () => {
    const hub = createChangeHub();
    const runtime = httpServer(undefined, { hub });
    const shutdown = new AbortController();
    const options = resolveHttpOptions({ shutdownSignal: shutdown.signal });
    const message = listen();
    const response = await handle(
      runtime,
      httpRequest({ headers: modernHeaders(message), body: JSON.stringify(message) }),
      options,
    );
    if (!isStreamResponse(response)) throw new Error('expected a stream');
    const iterator = textStream(response)[Symbol.asyncIterator]();
    await iterator.next();
    const rest = (async () => {
      let text = '';
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) text += next.value;
      return parseSse(text);
    })();
    shutdown.abort();
    const events = await rest;
    expect(events.at(-1)).toMatchObject({
      id: message.id,
      result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': message.id } },
    });
    expect(options.executor.stats().subscriptions).toBe(0);
  });
});

describe('fetch adapter', () => {
  const url = 'http://127.0.0.1/mcp';

  it('serves JSON and maps statuses', async () => {
    const fetchHandler = createFetchHandler(httpServer());
    const message = modernMessage('tools/list');
    const response = await fetchHandler(
      new Request(url, { method: 'POST', headers: modernHeaders(message), body: JSON.stringify(message) }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect((await response.json()).result.tools.length).toBeGreaterThan(0);
    const unknown = modernMessage('foo/bar');
    const notFound = await fetchHandler(
      new Request(url, { method: 'POST', headers: modernHeaders(unknown), body: JSON.stringify(unknown) }),
    );
    expect(notFound.status).toBe(404);
    expect((await notFound.json()).error.code).toBe(-32601);
  });

  it('streams SSE, and cancelling the body aborts the handler', async () => {
    const probe = newProbe();
    const fetchHandler = createFetchHandler(httpServer(probe));
    const message = modernMessage('tools/call', { name: 'steps' }, { progressToken: 'f' });
    const response = await fetchHandler(
      new Request(url, { method: 'POST', headers: modernHeaders(message), body: JSON.stringify(message) }),
    );
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(parseSse(first)[0].method).toBe('notifications/progress');
    await reader.cancel();
    probe.release.open();
  });

  it('a listen body nobody reads returns its slot when its queue overflows, and the body errors', async () => {
    const { runtime, hub } = featureServer();
    const executor = new Executor({ maxSubscriptions: 1 });
    const fetchHandler = createFetchHandler(runtime, { executor });
    const message = listen({ resourceSubscriptions: ['demo://greeting'] });
    const response = await fetchHandler(
      new Request(url, { method: 'POST', headers: modernHeaders(message), body: JSON.stringify(message) }),
    );
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(executor.stats().subscriptions).toBe(1);
    for (let i = 0; i < 100; i++) hub.notifyResourceUpdated('demo://greeting');
    expect(executor.stats().subscriptions).toBe(0);
    await expect(response.text()).rejects.toThrow('the reader fell too far behind');
  });

  it('a body over maxBodyBytes gets 413, by Content-Length and while streaming', async () => {
    const fetchHandler = createFetchHandler(httpServer(), { maxBodyBytes: 10 });
    const declared = await fetchHandler(
      new Request(url, { method: 'POST', headers: { 'content-length': '11' }, body: 'x'.repeat(11) }),
    );
    expect(declared.status).toBe(413);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(6));
        controller.enqueue(new Uint8Array(6));
        controller.close();
      },
    });
    const streamed = await fetchHandler(
      new Request(url, { method: 'POST', body, duplex: 'half' } as RequestInit),
    );
    expect(streamed.status).toBe(413);
  });

  it('passes the authenticated identity to handlers; a throwing authenticate gets 401', async () => {
    let seen: unknown;
    const runtime = httpServer(undefined, {
      tools: [
        {
          name: 'whoami',
          handler: (_args: unknown, context: { auth?: unknown }) => {
            seen = context.auth;
            return 'ok';
          },
        },
      ],
    });
    const fetchHandler = createFetchHandler(runtime, {
      authenticate: (request) => {
        if (request.headers.get('authorization') !== 'Bearer good') throw new Error('no');
        return { principal: 'alice' };
      },
    });
    const message = modernMessage('tools/call', { name: 'whoami' });
    const headers = modernHeaders(message);
    const ok = await fetchHandler(
      new Request(url, {
        method: 'POST',
        headers: { ...headers, authorization: 'Bearer good' },
        body: JSON.stringify(message),
      }),
    );
    expect(ok.status).toBe(200);
    expect(seen).toEqual({ principal: 'alice' });
    const refused = await fetchHandler(
      new Request(url, { method: 'POST', headers, body: JSON.stringify(message) }),
    );
    expect(refused.status).toBe(401);
  });
});
