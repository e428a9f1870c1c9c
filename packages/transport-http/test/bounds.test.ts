import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_CONNECTIONS } from '../src/index.js';
import { closeAll, modern, raw, rawRequest, start } from './helpers.js';

afterEach(closeAll);

const GET = 'GET /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n';

/** Opens `count` connections and proves each was accepted by getting a response on it (kept alive). */
async function hold(port: number, count: number) {
  const sockets = await Promise.all(Array.from({ length: count }, () => raw(port)));
  await Promise.all(
    sockets.map((client) => {
      client.socket.write(GET);
      return client.waitFor('\r\n\r\n');
    }),
  );
  return sockets;
}

describe('maxConnections', () => {
  it('closes a connection accepted at a small limit without reading it', async () => {
    const server = await start({ maxConnections: 4 });
    const { port } = server.address();
    const held = await hold(port, 4);
    expect(held.every((client) => client.received().startsWith('HTTP/1.1 405'))).toBe(true);
    const extra = await raw(port);
    extra.socket.write(rawRequest(modern('tools/list')));
    await extra.closed;
    expect(extra.received()).toBe('');
    expect(server.stats().dropped).toBe(1);
    expect(server.stats().requests).toBe(4);
    for (const client of held) client.socket.destroy();
  });

  it(`closes the ${DEFAULT_MAX_CONNECTIONS + 1}th connection unread at the default limit`, async () => {
    const server = await start({ keepAliveTimeout: 60_000 });
    const { port } = server.address();
    const held = await hold(port, DEFAULT_MAX_CONNECTIONS);
    const extra = await raw(port);
    extra.socket.write(GET);
    await extra.closed;
    expect(extra.received()).toBe('');
    expect(server.stats()).toMatchObject({ dropped: 1, requests: DEFAULT_MAX_CONNECTIONS });
    for (const client of held) client.socket.destroy();
  });
});

describe('head, body and read timeouts', () => {
  it('cuts a client that sends half a head and stops at headTimeout', async () => {
    const server = await start({ headTimeout: 300, readTimeout: 600_000 });
    const client = await raw(server.address().port);
    client.socket.write('POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-ty');
    await client.closed;
    expect(client.received()).toBe('');
    expect(server.stats().timedOut).toBe(1);
  });

  it('counts headTimeout from accept: a silent connection is cut too', async () => {
    const server = await start({ headTimeout: 300, readTimeout: 600_000 });
    const client = await raw(server.address().port);
    await client.closed;
    expect(server.stats().timedOut).toBe(1);
  });

  it('counts headTimeout again after each answer: a kept-alive connection that stays silent is cut', async () => {
    const server = await start({ headTimeout: 300, readTimeout: 600_000, keepAliveTimeout: 600_000 });
    const client = await raw(server.address().port);
    for (let i = 0; i < 2; i++) {
      const message = modern('tools/list');
      client.socket.write(rawRequest(message));
      await client.waitFor(`"id":${message.id},"result"`);
    }
    await client.closed;
    expect(client.received().match(/HTTP\/1\.1 200 /g)).toHaveLength(2);
    expect(server.stats()).toMatchObject({ timedOut: 1, requests: 2 });
  });

  it('cuts a head trickled faster than readTimeout at headTimeout', async () => {
    const server = await start({ headTimeout: 400, readTimeout: 200 });
    const client = await raw(server.address().port);
    const head = `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nx-long: ${'a'.repeat(10_000)}`;
    let i = 0;
    const trickle = setInterval(() => {
      if (!client.socket.destroyed) client.socket.write(head[i++ % head.length] as string);
    }, 20);
    await client.closed;
    clearInterval(trickle);
    expect(server.stats().timedOut).toBe(1);
  });

  it('cuts a body trickled one byte at a time at bodyTimeout, with 408', async () => {
    const server = await start({ bodyTimeout: 500, readTimeout: 200, headTimeout: 600_000 });
    const client = await raw(server.address().port);
    client.socket.write(
      'POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n',
    );
    const trickle = setInterval(() => {
      if (!client.socket.destroyed) client.socket.write(' ');
    }, 20);
    await client.closed;
    clearInterval(trickle);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(server.stats().timedOut).toBe(1);
  });

  it('cuts a head that goes silent at readTimeout', async () => {
    const server = await start({ headTimeout: 600_000, readTimeout: 300 });
    const client = await raw(server.address().port);
    client.socket.write('POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n');
    await client.closed;
    expect(client.received()).toBe('');
  });

  it('cuts a body that goes silent at readTimeout', async () => {
    const server = await start({ headTimeout: 600_000, bodyTimeout: 600_000, readTimeout: 300 });
    const client = await raw(server.address().port);
    client.socket.write(
      'POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 10\r\n\r\n{',
    );
    await client.closed;
    expect(client.received()).toBe('');
  });

  it('cuts a body that goes silent at readTimeout on a kept-alive connection too', async () => {
    const server = await start({ headTimeout: 600_000, bodyTimeout: 600_000, readTimeout: 300 });
    const client = await raw(server.address().port);
    const first = modern('tools/list');
    client.socket.write(rawRequest(first));
    await client.waitFor(`"id":${first.id},"result"`);
    client.socket.write(
      'POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 10\r\n\r\n{',
    );
    await client.closed;
    expect(client.received().match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(server.stats().timedOut).toBe(0);
  });

  it('closes a kept-alive connection idle for keepAliveTimeout (node adds 1 s), not as a timeout', async () => {
    const server = await start({ keepAliveTimeout: 100, headTimeout: 600_000, readTimeout: 600_000 });
    const client = await raw(server.address().port);
    const message = modern('tools/list');
    client.socket.write(rawRequest(message));
    await client.waitFor(`"id":${message.id},"result"`);
    await client.closed;
    expect(server.stats()).toMatchObject({ timedOut: 0, requests: 1 });
  });

  it('does not cut a silent SSE response: the read timeouts end with the request', async () => {
    const server = await start({
      readTimeout: 100,
      headTimeout: 100,
      bodyTimeout: 100,
      keepAliveInterval: 250,
    });
    const client = await raw(server.address().port);
    client.socket.write(
      rawRequest(modern('subscriptions/listen', { notifications: { toolsListChanged: true } })),
    );
    // A keepalive comes after 250 ms of silence, longer than every read timeout above.
    await client.waitFor(': keepalive');
    expect(client.socket.destroyed).toBe(false);
    client.socket.destroy();
  });
});

describe('maxBodyBytes', () => {
  const max = 2_000;
  const message = modern('tools/list');
  const exact = JSON.stringify(message).padEnd(max);

  it('passes a body of exactly maxBodyBytes', async () => {
    const server = await start({ maxBodyBytes: max });
    const client = await raw(server.address().port);
    client.socket.write(
      `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n` +
        `mcp-protocol-version: 2026-07-28\r\nmcp-method: tools/list\r\ncontent-length: ${max}\r\n\r\n${exact}`,
    );
    expect(await client.waitFor('\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 /);
    client.socket.destroy();
  });

  it('answers one byte over with 413 before the body is sent (Content-Length is checked first)', async () => {
    const server = await start({ maxBodyBytes: max });
    const client = await raw(server.address().port);
    client.socket.write(
      `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${max + 1}\r\n\r\n`,
    );
    expect(await client.waitFor('\r\n\r\n')).toMatch(/^HTTP\/1\.1 413 /);
    await client.closed;
  });

  it('answers a chunked body that grows over the limit with 413, without buffering the rest', async () => {
    const server = await start({ maxBodyBytes: max });
    const client = await raw(server.address().port);
    client.socket.write(
      'POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n',
    );
    const chunk = 'x'.repeat(1_500);
    client.socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    client.socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    expect(await client.waitFor('\r\n\r\n')).toMatch(/^HTTP\/1\.1 413 /);
    await client.closed;
  });
});

describe('maxHeaderBytes, keep-alive, maxRequestsPerConnection', () => {
  it('answers a head over maxHeaderBytes with 431', async () => {
    const server = await start({ maxHeaderBytes: 1_024 });
    const client = await raw(server.address().port);
    client.socket.write(`GET /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nx-big: ${'a'.repeat(2_000)}\r\n\r\n`);
    expect(await client.waitFor('\r\n')).toMatch(/^HTTP\/1\.1 431 /);
    await client.closed;
  });

  it('serves several requests on one kept-alive connection', async () => {
    const server = await start();
    const client = await raw(server.address().port);
    client.socket.write(rawRequest(modern('tools/list')));
    await client.waitFor('"tools"');
    client.socket.write(rawRequest(modern('server/discover')));
    await client.waitFor('"supportedVersions"');
    expect(server.stats().requests).toBe(2);
    expect(client.socket.destroyed).toBe(false);
    client.socket.destroy();
  });

  it('maxRequestsPerConnection 1 closes the connection after one response', async () => {
    const server = await start({ maxRequestsPerConnection: 1, keepAliveTimeout: 600_000 });
    const client = await raw(server.address().port);
    client.socket.write(rawRequest(modern('tools/list')));
    await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(client.received().toLowerCase()).toContain('connection: close');
  });
});
