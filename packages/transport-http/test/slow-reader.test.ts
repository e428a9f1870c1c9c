import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { createChangeHub, createServer, Executor, resource } from '@snodo/core';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, headersFor, modern, start } from './helpers.js';

/** A long URI: each update is ~4 KB, so a few MB fill loopback's socket buffers. */
const PAGE = `demo://page/${'p'.repeat(4_000)}`;
/** Updates sent before the test gives up on the slot returning (~200 MB: far past any socket buffer). */
const MAX_FLOOD = 50_000;

afterEach(closeAll);

/** One turn of the event loop (I/O callbacks run), not a timed wait. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Opens a `subscriptions/listen` on a raw socket, reads up to its acknowledgement, then stops reading. */
async function stalledListen(url: string): Promise<Socket> {
  const { hostname, port, pathname } = new URL(url);
  const message = modern('subscriptions/listen', { notifications: { resourceSubscriptions: [PAGE] } });
  const body = JSON.stringify(message);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  const headers = Object.entries({ ...headersFor(message), host: `${hostname}:${port}` })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(
    `POST ${pathname} HTTP/1.1\r\n${headers}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
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
    const server = await start({ runtime, executor });
    const before = executor.stats().subscriptions;
    const socket = await stalledListen(server.url());
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
    while (server.stats().connections > 0) await turn();
    expect(socket.readableFlowing).toBe(false);
    const closed = once(socket, 'close');
    socket.resume();
    await closed;
  });
});
