import { createChangeHub } from '@snodo/core';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_SUBSCRIPTIONS, listen } from '../src/index.js';
import { closeAll, modern, newProbe, parseSse, post, raw, rawRequest, start, testServer } from './helpers.js';

afterEach(closeAll);

const LEGACY_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
let nextId = 1;
const legacy = (method: string, params?: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: nextId++,
  method,
  ...(params ? { params } : {}),
});

describe('2026-07-28 over the listener: one test per status and code', () => {
  it('200 application/json for a result', async () => {
    const server = await start();
    const response = await post(server.url(), modern('tools/list'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect((await response.json()).result.resultType).toBe('complete');
  });

  it('202 with an empty body for a notification', async () => {
    const server = await start();
    const message = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } };
    const response = await post(server.url(), message, { 'mcp-protocol-version': '2026-07-28' });
    expect(response.status).toBe(202);
    expect(await response.text()).toBe('');
  });

  it.each([
    ['missing MCP-Protocol-Version', { 'mcp-protocol-version': undefined }],
    ['MCP-Protocol-Version unlike _meta', { 'mcp-protocol-version': '2025-06-18' }],
    ['missing Mcp-Method', { 'mcp-method': undefined }],
    ['Mcp-Method unlike the body', { 'mcp-method': 'prompts/list' }],
  ])('400 -32020 for %s', async (_what, headers) => {
    const server = await start();
    const message = modern('tools/list');
    const response = await post(server.url(), message, headers);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ id: message.id, error: { code: -32020 } });
  });

  it('400 -32020 for Mcp-Name and Mcp-Param-* unlike the body', async () => {
    const server = await start();
    const call = modern('tools/call', { name: 'regional', arguments: { region: 'eu' } });
    const noParam = await post(server.url(), call);
    expect(noParam.status).toBe(400);
    expect((await noParam.json()).error.code).toBe(-32020);
    const wrongName = await post(server.url(), call, { 'mcp-name': 'echo', 'mcp-param-region': 'eu' });
    expect((await wrongName.json()).error.code).toBe(-32020);
    const ok = await post(server.url(), call, { 'mcp-param-region': '=?base64?ZXU=?=' });
    expect(ok.status).toBe(200);
  });

  it('400 -32602 for a request without _meta', async () => {
    const server = await start();
    const message = { jsonrpc: '2.0', id: 5, method: 'tools/list', params: {} };
    const response = await post(server.url(), message, {
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ id: 5, error: { code: -32602 } });
  });

  it('400 -32022 for an unsupported version', async () => {
    const server = await start();
    const message = modern('tools/list', {}, { 'io.modelcontextprotocol/protocolVersion': '1900-01-01' });
    const response = await post(server.url(), message, { 'mcp-protocol-version': '1900-01-01' });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toMatchObject({ code: -32022, data: { requested: '1900-01-01' } });
  });

  it('400 -32021 for a missing client capability', async () => {
    const server = await start();
    const response = await post(server.url(), modern('tools/call', { name: 'needs_sampling' }));
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe(-32021);
  });

  it('400 -32700 for a body that is not JSON, -32600 for a batch', async () => {
    const server = await start();
    const parse = await post(server.url(), '{', { 'content-type': 'application/json', accept: '*/*' });
    expect(parse.status).toBe(400);
    expect((await parse.json()).error.code).toBe(-32700);
    const batch = await post(server.url(), JSON.stringify([modern('tools/list')]), {
      ...LEGACY_HEADERS,
      'mcp-protocol-version': '2026-07-28',
    });
    expect(batch.status).toBe(400);
    expect((await batch.json()).error.code).toBe(-32600);
  });

  it('404 -32601 for an unknown method; 404 for another path', async () => {
    const server = await start();
    const message = modern('foo/bar');
    const response = await post(server.url(), message);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ id: message.id, error: { code: -32601 } });
    const other = await post(server.url().replace('/mcp', '/other'), modern('tools/list'));
    expect(other.status).toBe(404);
  });

  it('403 for a foreign Origin, 200 for a loopback one', async () => {
    const server = await start();
    expect(
      (await post(server.url(), modern('tools/list'), { origin: 'http://evil.example.com' })).status,
    ).toBe(403);
    expect((await post(server.url(), modern('tools/list'), { origin: 'http://localhost:5173' })).status).toBe(
      200,
    );
  });

  it('403 for a Host outside allowedHosts when it is set', async () => {
    const server = await start({ allowedHosts: ['localhost'] });
    const client = await raw(server.address().port);
    client.socket.write(rawRequest(modern('tools/list'), { host: 'evil.example.com' }));
    expect(await client.waitFor('\r\n')).toMatch(/^HTTP\/1\.1 403 /);
    client.socket.destroy();
  });

  it('405 for GET and DELETE', async () => {
    const server = await start();
    expect((await fetch(server.url())).status).toBe(405);
    expect((await fetch(server.url(), { method: 'DELETE' })).status).toBe(405);
  });

  it('406 without both Accept types, 415 for another Content-Type', async () => {
    const server = await start();
    expect((await post(server.url(), modern('tools/list'), { accept: 'application/json' })).status).toBe(406);
    expect((await post(server.url(), modern('tools/list'), { 'content-type': 'text/plain' })).status).toBe(
      415,
    );
  });

  it.each([
    [200, undefined],
    [503, 2],
  ])('%i -32000 when the executor is full (overloadRetryAfter: %s)', async (status, overloadRetryAfter) => {
    const probe = newProbe();
    const server = await listen({
      runtime: testServer(probe),
      port: 0,
      maxConcurrency: 1,
      maxQueue: 0,
      ...(overloadRetryAfter === undefined ? {} : { overloadRetryAfter }),
    });
    try {
      const busy = post(server.url(), modern('tools/call', { name: 'wait' }));
      await new Promise<void>((resolve) => {
        const check = async () => {
          const response = await post(server.url(), modern('tools/list'));
          const body = await response.json();
          if (body.error) {
            expect(body.error.code).toBe(-32000);
            expect(response.status).toBe(status);
            expect(response.headers.get('retry-after')).toBe(
              overloadRetryAfter === undefined ? null : String(overloadRetryAfter),
            );
            resolve();
          } else setImmediate(check);
        };
        void check();
      });
      probe.release.open();
      expect((await busy).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('streams over the listener', () => {
  it('progress arrives as SSE events before the final response', async () => {
    const probe = newProbe();
    const server = await listen({ runtime: testServer(probe), port: 0 });
    try {
      const message = modern('tools/call', { name: 'steps' }, { progressToken: 'p' });
      const response = await post(server.url(), message);
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      expect(response.headers.get('x-accel-buffering')).toBe('no');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let text = '';
      while (parseSse(text).length < 2) text += decoder.decode((await reader.read()).value, { stream: true });
      expect(parseSse(text).map((event) => event.method)).toEqual([
        'notifications/progress',
        'notifications/progress',
      ]);
      probe.release.open();
      for (let next = await reader.read(); !next.done; next = await reader.read())
        text += decoder.decode(next.value, { stream: true });
      const events = parseSse(text);
      expect(events).toHaveLength(3);
      expect(events[2]).toMatchObject({ id: message.id, result: { content: [{ text: 'done' }] } });
    } finally {
      await server.close();
    }
  });

  it('a disconnect during a running sleep aborts its handler', async () => {
    const probe = newProbe();
    const server = await listen({ runtime: testServer(probe), port: 0 });
    try {
      const client = await raw(server.address().port);
      client.socket.write(rawRequest(modern('tools/call', { name: 'sleep' })));
      const signal = await probe.sleeping.promise;
      expect(signal.aborted).toBe(false);
      client.socket.destroy();
      await probe.sleepAborted.promise;
      expect(signal.aborted).toBe(true);
    } finally {
      await server.close();
    }
  });

  it(`the ${DEFAULT_MAX_SUBSCRIPTIONS + 1}th subscription gets 503; closing one frees its slot`, async () => {
    const hub = createChangeHub();
    const server = await listen({ runtime: testServer(newProbe(), hub), port: 0 });
    try {
      const { port } = server.address();
      const listenRequest = () =>
        rawRequest(modern('subscriptions/listen', { notifications: { toolsListChanged: true } }));
      const streams = await Promise.all(
        Array.from({ length: DEFAULT_MAX_SUBSCRIPTIONS }, async () => {
          const client = await raw(port);
          client.socket.write(listenRequest());
          await client.waitFor('notifications/subscriptions/acknowledged');
          return client;
        }),
      );
      const over = await raw(port);
      over.socket.write(listenRequest());
      expect(await over.waitFor('\r\n\r\n')).toMatch(/^HTTP\/1\.1 503 /);
      over.socket.destroy();
      hub.notifyToolsChanged();
      await Promise.all(streams.map((client) => client.waitFor('notifications/tools/list_changed')));
      const first = streams.shift();
      first?.socket.destroy();
      await first?.closed;
      // The slot returns when the server sees the close; retry until it has.
      let served = '';
      while (!served.startsWith('HTTP/1.1 200')) {
        const next = await raw(port);
        next.socket.write(listenRequest());
        served = await next.waitFor('\r\n\r\n');
        if (served.startsWith('HTTP/1.1 200')) streams.push(next);
        else next.socket.destroy();
      }
      expect(served).toMatch(/^HTTP\/1\.1 200 /);
      for (const client of streams) client.socket.destroy();
    } finally {
      await server.close();
    }
  });

  it('close() ends open subscriptions with their graceful result and resolves', async () => {
    const server = await listen({ runtime: testServer(), port: 0 });
    const client = await raw(server.address().port);
    const message = modern('subscriptions/listen', { notifications: { toolsListChanged: true } });
    client.socket.write(rawRequest(message));
    await client.waitFor('acknowledged');
    await server.close();
    await client.closed;
    const events = parseSse(
      client
        .received()
        .slice(client.received().indexOf('\r\n\r\n') + 4)
        .replace(/\r\n[0-9a-f]+\r\n/g, ''),
    );
    expect(events.at(-1)).toMatchObject({ id: message.id, result: { resultType: 'complete' } });
  });

  it('close() lets a running request finish within closeGracePeriod', async () => {
    const probe = newProbe();
    const server = await listen({ runtime: testServer(probe), port: 0 });
    const pending = post(server.url(), modern('tools/call', { name: 'wait' }));
    await new Promise<void>((resolve) => {
      const check = () => (server.stats().requests > 0 ? resolve() : setImmediate(check));
      check();
    });
    const closed = server.close();
    probe.release.open();
    const response = await pending;
    expect(response.status).toBe(200);
    await closed;
  });

  it('close() aborts what is still running after closeGracePeriod', async () => {
    const probe = newProbe();
    const server = await listen({ runtime: testServer(probe), port: 0, closeGracePeriod: 50 });
    const client = await raw(server.address().port);
    client.socket.write(rawRequest(modern('tools/call', { name: 'sleep' })));
    const signal = await probe.sleeping.promise;
    await server.close();
    await client.closed;
    await probe.sleepAborted.promise;
    expect(signal.aborted).toBe(true);
  });
});

describe('initialize-based revisions over the listener', () => {
  it.each(['2025-11-25', '2025-06-18', '2025-03-26'])(
    '%s: session minted, required (400), unknown (404), DELETE (204)',
    async (version) => {
      const server = await start();
      const init = await post(
        server.url(),
        legacy('initialize', {
          protocolVersion: version,
          capabilities: {},
          clientInfo: { name: 't', version: '0' },
        }),
        LEGACY_HEADERS,
      );
      expect(init.status).toBe(200);
      const sessionId = init.headers.get('mcp-session-id') as string;
      expect(sessionId).toMatch(/^[\x21-\x7e]{22,}$/);
      const headers = { ...LEGACY_HEADERS, 'mcp-session-id': sessionId, 'mcp-protocol-version': version };
      expect(
        (await post(server.url(), { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status,
      ).toBe(202);
      const list = await post(server.url(), legacy('tools/list'), headers);
      expect(list.status).toBe(200);
      expect((await list.json()).result.tools.length).toBeGreaterThan(0);
      expect((await post(server.url(), legacy('tools/list'), LEGACY_HEADERS)).status).toBe(400);
      expect(
        (await post(server.url(), legacy('tools/list'), { ...headers, 'mcp-session-id': 'unknown' })).status,
      ).toBe(404);
      expect((await fetch(server.url(), { method: 'DELETE', headers })).status).toBe(204);
      expect((await post(server.url(), legacy('tools/list'), headers)).status).toBe(404);
    },
  );

  it('2025-03-26 serves a batch as a JSON array', async () => {
    const server = await start();
    const init = await post(
      server.url(),
      legacy('initialize', {
        protocolVersion: '2025-03-26',
        capabilities: {},
        clientInfo: { name: 't', version: '0' },
      }),
      LEGACY_HEADERS,
    );
    const headers = { ...LEGACY_HEADERS, 'mcp-session-id': init.headers.get('mcp-session-id') as string };
    const batch = [legacy('tools/call', { name: 'echo', arguments: { text: 'a' } }), legacy('tools/list')];
    const response = await post(server.url(), JSON.stringify(batch), headers);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toHaveLength(2);
    expect(body[0].result.content[0].text).toBe('a');
  });

  it('a disconnect does not cancel a legacy request', async () => {
    const probe = newProbe();
    const server = await listen({ runtime: testServer(probe), port: 0 });
    try {
      const init = await post(
        server.url(),
        legacy('initialize', {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 't', version: '0' },
        }),
        LEGACY_HEADERS,
      );
      const sessionId = init.headers.get('mcp-session-id') as string;
      const client = await raw(server.address().port);
      const call = legacy('tools/call', { name: 'sleep', arguments: {} });
      const body = JSON.stringify(call);
      client.socket.write(
        `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n` +
          `mcp-session-id: ${sessionId}\r\nmcp-protocol-version: 2025-06-18\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
      );
      const signal = await probe.sleeping.promise;
      client.socket.destroy();
      await client.closed;
      // The server saw the close when a later request on a new connection is answered after it.
      expect((await post(server.url(), modern('tools/list'))).status).toBe(200);
      expect(signal.aborted).toBe(false);
      const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: call.id } };
      const headers = {
        ...LEGACY_HEADERS,
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-06-18',
      };
      expect((await post(server.url(), cancel, headers)).status).toBe(202);
      await probe.sleepAborted.promise;
      expect(signal.aborted).toBe(true);
    } finally {
      await server.close();
    }
  });
});
