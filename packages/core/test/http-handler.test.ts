import { once } from 'node:events';
import { createServer as createNodeServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpHandler, type HttpHandler } from '../src/index.js';
import { httpRequest, httpServer, LEGACY_HEADERS, read } from './http-helpers.js';

const VERSION = '2025-11-25';
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'handler', version: '0' } },
};
const body = (message: unknown) => JSON.stringify(message);

const servers: Server[] = [];
const handlers: HttpHandler[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  for (const handler of handlers.splice(0)) await handler.close();
});

function handlerFor(options: Parameters<typeof createHttpHandler>[1] = {}): HttpHandler {
  const handler = createHttpHandler(httpServer(), options);
  handlers.push(handler);
  return handler;
}

async function serveNode(handler: HttpHandler): Promise<string> {
  const server = createNodeServer((req, res) => void handler.node(req, res));
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address() as { port: number };
  return `http://127.0.0.1:${address.port}/mcp`;
}

describe('createHttpHandler: one object owns its executor, session store and control channel', () => {
  it('a handler built from a fresh {} keeps its sessions (was: initialize 200, then tools/list 404)', async () => {
    const handler = handlerFor({});
    const opened = await read(
      await handler.handle(httpRequest({ headers: LEGACY_HEADERS, body: body(initialize) })),
    );
    expect(opened.status).toBe(200);
    const headers = {
      ...LEGACY_HEADERS,
      'mcp-session-id': opened.headers['mcp-session-id'],
      'mcp-protocol-version': VERSION,
    };
    const listed = await read(
      await handler.handle(
        httpRequest({ headers, body: body({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) }),
      ),
    );
    expect(listed.status).toBe(200);
    expect(listed.body.result.tools.length).toBeGreaterThan(0);
    // Another handler owns other sessions: no state is shared behind the caller's back.
    const other = handlerFor({});
    const elsewhere = await read(
      await other.handle(
        httpRequest({ headers, body: body({ jsonrpc: '2.0', id: 3, method: 'tools/list' }) }),
      ),
    );
    expect(elsewhere.status).toBe(404);
  });

  it('fetch and handle of one handler share its sessions', async () => {
    const handler = handlerFor();
    const opened = await handler.fetch(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: LEGACY_HEADERS,
        body: body(initialize),
      }),
    );
    expect(opened.status).toBe(200);
    const headers = {
      ...LEGACY_HEADERS,
      'mcp-session-id': opened.headers.get('mcp-session-id') as string,
      'mcp-protocol-version': VERSION,
    };
    const pinged = await read(
      await handler.handle(httpRequest({ headers, body: body({ jsonrpc: '2.0', id: 2, method: 'ping' }) })),
    );
    expect(pinged.body).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it('close() ends the executor it created: later requests get -32000, and close is idempotent', async () => {
    const handler = handlerFor();
    await Promise.all([handler.close(), handler.close()]);
    const refused = await read(
      await handler.handle(httpRequest({ headers: LEGACY_HEADERS, body: body(initialize) })),
    );
    expect(refused.body.error.code).toBe(-32000);
  });
});

describe('handler.node on plain node:http: one line mounts MCP, with the one body policy', () => {
  it('serves initialize and a chunked POST (no Content-Length) up to maxBodyBytes', async () => {
    const url = await serveNode(handlerFor());
    const chunked = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(body(initialize)));
        controller.close();
      },
    });
    const answer = await fetch(url, {
      method: 'POST',
      headers: LEGACY_HEADERS,
      body: chunked,
      duplex: 'half',
    } as RequestInit);
    expect(answer.status).toBe(200);
    expect((await answer.json()).result.protocolVersion).toBe(VERSION);
  });

  it('a chunked body one byte over maxBodyBytes is 413; at the limit it is read', async () => {
    const text = body(initialize);
    const atLimit = await serveNode(handlerFor({ maxBodyBytes: text.length }));
    const over = await serveNode(handlerFor({ maxBodyBytes: text.length - 1 }));
    const send = (url: string) =>
      fetch(url, {
        method: 'POST',
        headers: LEGACY_HEADERS,
        body: new Blob([text]).stream(),
        duplex: 'half',
      } as RequestInit);
    expect((await send(atLimit)).status).toBe(200);
    const refused = await send(over);
    expect(refused.status).toBe(413);
    expect((await refused.json()).error.code).toBe(-32600);
  });

  it('a body not complete within bodyTimeout is 408', async () => {
    const url = new URL(await serveNode(handlerFor({ bodyTimeout: 20 })));
    const socket = connect(Number(url.port), '127.0.0.1');
    await once(socket, 'connect');
    socket.write(
      'POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n' +
        'accept: application/json, text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n5\r\n{"jso\r\n',
    );
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString();
    });
    await once(socket, 'close');
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(received).toContain('"code":-32600');
  });
});
