import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { createChangeHub, createServer, Executor, resource } from '@snodo/core';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { snodo } from '../src/index.js';
import { listen, modern } from './helpers.js';

/** A long URI: each update is ~4 KB, so a few MB fill loopback's socket buffers. */
const PAGE = `demo://page/${'p'.repeat(4_000)}`;
/** Updates sent before the test gives up on the slot returning (~200 MB: far past any socket buffer). */
const MAX_FLOOD = 50_000;

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) {
    app.server.closeAllConnections();
    await app.close();
  }
});

/** One turn of the event loop (I/O callbacks run), not a timed wait. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Opens a `subscriptions/listen` on a raw socket, reads up to its acknowledgement, then stops reading. */
async function stalledListen(port: number): Promise<Socket> {
  const request = modern('subscriptions/listen', { notifications: { resourceSubscriptions: [PAGE] } });
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  const headers = Object.entries({ ...request.headers, host: `127.0.0.1:${port}` })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(
    `POST /mcp HTTP/1.1\r\n${headers}content-length: ${Buffer.byteLength(request.body)}\r\n\r\n${request.body}`,
  );
  socket.setEncoding('utf8');
  await new Promise<void>((resolve) => {
    let text = '';
    const onData = (chunk: string) => {
      text += chunk;
      if (!text.includes('notifications/subscriptions/acknowledged')) return;
      socket.off('data', onData);
      socket.pause();
      resolve();
    };
    socket.on('data', onData);
  });
  return socket;
}

describe('a subscriber that stops reading', () => {
  it('once core drops it, its slot returns and the server closes its connection while it still does not read', async () => {
    const hub = createChangeHub();
    const runtime = createServer({
      name: 'slow-reader',
      version: '1.0.0',
      hub,
      resources: [resource({ uri: PAGE, name: 'page', read: () => 'page' })],
    });
    const executor = new Executor({ maxSubscriptions: 1 });
    const app = Fastify();
    apps.push(app);
    await app.register(snodo, { runtime, path: '/mcp', executor });
    const { port } = await listen(app);
    const serverSide = new Promise<Socket>((resolve) => app.server.once('connection', resolve));
    const before = executor.stats().subscriptions;
    const socket = await stalledListen(port);
    const serverClosed = once(await serverSide, 'close');
    expect(executor.stats().subscriptions).toBe(before + 1);
    // The server resets the connection: reading again only shows what the kernel already held.
    socket.on('error', () => {});
    let sent = 0;
    while (executor.stats().subscriptions > before && sent < MAX_FLOOD) {
      hub.notifyResourceUpdated(PAGE);
      sent++;
      // Let the host write what it can: the socket fills, then core's queue overflows.
      await turn();
    }
    expect(executor.stats().subscriptions).toBe(before);
    // The client still reads nothing: the server closes its side of the connection.
    await serverClosed;
    expect(socket.readableFlowing).toBe(false);
    const closed = once(socket, 'close');
    socket.resume();
    await closed;
  });
});
