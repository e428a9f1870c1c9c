import { connect as connectHttp2 } from 'node:http2';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { Executor } from '@snodo/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { snodo } from '../src/index.js';
import {
  bearer,
  listen,
  modern,
  Probe,
  rawExchange,
  sseReader,
  testApp,
  testServer,
  toolCall,
  watchSlots,
} from './helpers.js';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) {
    // After an aborted fetch, undici opens a spare connection that never sends a request; Node's
    // server.close() would wait for the client to drop it.
    app.server.closeAllConnections();
    await app.close();
  }
});

async function serve(
  options: Parameters<typeof testApp>[0] = {},
  probe = new Probe(),
): Promise<{ app: FastifyInstance; origin: string; port: number; probe: Probe }> {
  const app = await testApp(options, {}, probe);
  apps.push(app);
  return { app, probe, ...(await listen(app)) };
}

const listenRequest = () => modern('subscriptions/listen', { notifications: { toolsListChanged: true } });

function post(url: string, request: { body: string; headers: Record<string, string> }, signal?: AbortSignal) {
  return fetch(url, {
    method: 'POST',
    headers: { ...request.headers, ...bearer() },
    body: request.body,
    ...(signal ? { signal } : {}),
  });
}

/** Resolves when the server side of the next accepted connection closes. */
function nextServerSocketClosed(app: FastifyInstance): Promise<void> {
  return new Promise((resolve) => {
    app.server.once('connection', (socket: Socket) => socket.once('close', () => resolve()));
  });
}

describe('bounds on a real socket', () => {
  it("reads a chunked body like any other (core's one body policy), and the connection serves the next request", async () => {
    const { port, probe } = await serve();
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    const received = (count: number) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (text.split('HTTP/1.1 ').length - 1 >= count && text.endsWith('}')) {
            socket.off('data', check);
            resolve();
          }
        };
        socket.on('data', check);
      });
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    const call = toolCall('whoami');
    const head =
      'POST /api/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer alice-token\r\n' +
      'Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n' +
      'MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: whoami\r\n';
    const first = received(1);
    socket.write(
      `${head}Transfer-Encoding: chunked\r\n\r\n${call.body.length.toString(16)}\r\n${call.body}\r\n0\r\n\r\n`,
    );
    await first;
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    const second = received(2);
    socket.write(`${head}Content-Length: ${call.body.length}\r\n\r\n${call.body}`);
    await second;
    expect(text.slice(text.lastIndexOf('HTTP/1.1 '))).toMatch(/^HTTP\/1\.1 200 /);
    expect(probe.calls).toBe(2);
    socket.destroy();
  });

  it('answers 408 when the body is not complete within bodyTimeout, and closes', async () => {
    const { port, probe } = await serve({ bodyTimeout: 100 });
    const call = toolCall('whoami');
    const { response } = rawExchange(
      port,
      `POST /api/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer alice-token\r\n` +
        `Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
        `MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: whoami\r\n` +
        `Content-Length: ${call.body.length}\r\n\r\n`,
      call.body.slice(0, 10), // and the rest never comes
    );
    const text = await response;
    expect(text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(text.toLowerCase()).toContain('connection: close');
    expect(text).toContain('"code":"SNODO_ERR_BODY_TIMEOUT"');
    expect(text).toContain('within bodyTimeout: 100 ms');
    expect(probe.calls).toBe(0);
  });

  it('a complete body is served on the same settings (the deadline bounds only a slow body)', async () => {
    const { origin } = await serve({ bodyTimeout: 100 });
    const served = await post(`${origin}/api/mcp`, toolCall('whoami'));
    expect(served.status).toBe(200);
    expect(await served.json()).toMatchObject({ result: { content: [{ text: 'alice' }] } });
  });
});

describe('SSE over a real socket', () => {
  it('streams progress notifications, then the result, as text/event-stream', async () => {
    const { origin } = await serve();
    const call = toolCall('steps', {}, { progressToken: 7 });
    const response = await post(`${origin}/api/mcp`, call);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const events = sseReader(response);
    for (const progress of [1, 2, 3]) {
      expect(await events.next()).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 7, progress, total: 3, message: `step ${progress}` },
      });
    }
    expect(await events.next()).toMatchObject({ id: call.id, result: { content: [{ text: 'stepped' }] } });
    await expect(events.next()).rejects.toThrow(/SSE stream ended/);
  });

  it('a subscription over maxSubscriptions gets 503; its slot returns when the client disconnects', async () => {
    const executor = new Executor({ maxSubscriptions: 1 });
    const released = watchSlots(executor);
    const { origin, probe } = await serve({ executor });
    const client = new AbortController();
    const first = listenRequest();
    const open = await post(`${origin}/api/mcp`, first, client.signal);
    expect(open.status).toBe(200);
    const events = sseReader(open);
    expect(await events.next()).toMatchObject({ method: 'notifications/subscriptions/acknowledged' });
    probe.hub.notifyToolsChanged();
    expect(await events.next()).toMatchObject({
      method: 'notifications/tools/list_changed',
      params: { _meta: { 'io.modelcontextprotocol/subscriptionId': first.id } },
    });
    expect(executor.stats().subscriptions).toBe(1);

    const second = listenRequest();
    const refused = await post(`${origin}/api/mcp`, second);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ id: second.id, error: { code: -32000 } });

    client.abort();
    await released[0];
    expect(executor.stats().subscriptions).toBe(0);
    const third = await post(`${origin}/api/mcp`, listenRequest());
    expect(third.status).toBe(200);
    await third.body?.cancel();
  });

  it('plugins sharing an executor share its subscription count', async () => {
    const executor = new Executor({ maxSubscriptions: 1 });
    const probe = new Probe();
    const app = Fastify();
    apps.push(app);
    await app.register(snodo, { runtime: testServer(probe), path: '/a', executor });
    await app.register(snodo, { runtime: testServer(probe), path: '/b', executor });
    const { origin } = await listen(app);
    const held = await fetch(`${origin}/a`, { method: 'POST', ...listenRequest() });
    expect(held.status).toBe(200);
    const refused = await fetch(`${origin}/b`, { method: 'POST', ...listenRequest() });
    expect(refused.status).toBe(503);
    await held.body?.cancel();
  });

  it("a session's GET stream answers its headers at once, before any event (a quiet stream is no silent request)", async () => {
    // keepAliveInterval far beyond the test's timeout: only the headers themselves can answer the GET.
    const { origin } = await serve({ keepAliveInterval: 600_000 });
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...bearer(),
    };
    const init = await fetch(`${origin}/api/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    const session = init.headers.get('mcp-session-id') as string;
    await init.text();
    const stream = new AbortController();
    const response = await fetch(`${origin}/api/mcp`, {
      method: 'GET',
      headers: {
        ...bearer(),
        accept: 'text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-11-25',
      },
      signal: stream.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    stream.abort();
  });

  it('closing the application ends an open subscription with its final result', async () => {
    const { app, origin } = await serve();
    const request = listenRequest();
    const open = await post(`${origin}/api/mcp`, request);
    const events = sseReader(open);
    expect(await events.next()).toMatchObject({ method: 'notifications/subscriptions/acknowledged' });
    const closed = app.close();
    expect(await events.next()).toMatchObject({
      id: request.id,
      result: { _meta: { 'io.modelcontextprotocol/subscriptionId': request.id } },
    });
    await expect(events.next()).rejects.toThrow(/SSE stream ended/);
    await closed;
    apps.splice(apps.indexOf(app), 1);
  });
});

describe('client disconnects', () => {
  it('a disconnect aborts the running handler at once (2026-07-28)', async () => {
    const { origin, probe } = await serve();
    const client = new AbortController();
    const pending = post(`${origin}/api/mcp`, toolCall('block'), client.signal);
    const signal = await probe.blocked.promise;
    expect(signal.aborted).toBe(false);
    client.abort();
    await expect(pending).rejects.toThrow();
    await probe.blockAborted.promise;
    expect(signal.aborted).toBe(true);
  });

  it('a disconnect does not cancel on the initialize-based revisions (their rule, kept by core)', async () => {
    const { app, origin, probe } = await serve();
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...bearer(),
    };
    const init = await fetch(`${origin}/api/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    const closed = nextServerSocketClosed(app);
    const client = new AbortController();
    const pending = fetch(`${origin}/api/mcp`, {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'block' } }),
      signal: client.signal,
      // A fresh connection, so `closed` watches the one this request uses.
      keepalive: false,
    });
    const signal = await probe.blocked.promise;
    client.abort();
    await expect(pending).rejects.toThrow();
    await closed;
    expect(signal.aborted).toBe(false);
    probe.release.open();
  });
});

describe('HTTP/2 (h2c)', () => {
  it('serves JSON and SSE, and a reset stream aborts its running handler while the session lives on', async () => {
    const probe = new Probe();
    const app = Fastify({ http2: true });
    await app.register(snodo, { runtime: testServer(probe) });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const session = connectHttp2(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`);
    const exchange = (call: { body: string; headers: Record<string, string> }) => {
      const stream = session.request({ ':method': 'POST', ':path': '/mcp', ...call.headers });
      stream.end(call.body);
      return stream;
    };
    const read = (stream: ReturnType<typeof exchange>) =>
      new Promise<{ status: unknown; type: unknown; text: string }>((resolve) => {
        let text = '';
        let head: Record<string, unknown> = {};
        stream.on('response', (headers) => {
          head = headers;
        });
        stream.setEncoding('utf8');
        stream.on('data', (chunk: string) => {
          text += chunk;
        });
        stream.on('end', () => resolve({ status: head[':status'], type: head['content-type'], text }));
      });
    try {
      const json = await read(exchange(toolCall('whoami')));
      expect(json).toMatchObject({ status: 200, type: 'application/json' });
      expect(JSON.parse(json.text).result.content[0].text).toBe('anonymous');
      const sse = await read(exchange(toolCall('steps', {}, { progressToken: 'h2' })));
      expect(sse).toMatchObject({ status: 200, type: 'text/event-stream' });
      expect(sse.text.match(/notifications\/progress/g)).toHaveLength(3);

      const blocked = exchange(toolCall('block'));
      blocked.on('error', () => {});
      const signal = await probe.blocked.promise;
      blocked.close(); // RST_STREAM: the connection stays up
      await probe.blockAborted.promise;
      expect(signal.aborted).toBe(true);
      expect(session.closed).toBe(false);
    } finally {
      session.destroy();
      await app.close();
    }
  });
});
