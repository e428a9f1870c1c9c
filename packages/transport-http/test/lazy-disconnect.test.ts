import { createServer as createNodeServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer, tool } from '@snodo/core';
import { afterEach, describe, expect, it } from 'vitest';
import { listen } from '../src/index.js';
import { gate, modern, raw, rawRequest } from './helpers.js';

// The listener makes a request's disconnect signal cheaply (an AbortSignal only when something
// needs one); these pin that a handler still gets a real AbortSignal that a disconnect aborts.

let upstream: Server | undefined;
afterEach(async () => {
  upstream?.closeAllConnections();
  await new Promise((resolve) => upstream?.close(resolve));
  upstream = undefined;
});

describe('a disconnect and the handler’s ctx.signal (2026-07-28)', () => {
  it('aborts the fetch a handler started with ctx.signal', async () => {
    const arrived = gate();
    upstream = createNodeServer(() => arrived.open()); // never answers
    await new Promise<void>((resolve) => upstream?.listen(0, '127.0.0.1', resolve));
    const { port: upstreamPort } = upstream.address() as AddressInfo;
    const outcome = gate<unknown>();
    const runtime = createServer({
      name: 'lazy-disconnect',
      version: '1.0.0',
      tools: [
        tool({
          name: 'fetcher',
          handler: async (_args, context) => {
            try {
              await fetch(`http://127.0.0.1:${upstreamPort}/`, { signal: context.signal });
              outcome.open('answered');
            } catch (error) {
              outcome.open(error);
            }
            return 'done';
          },
        }),
      ],
    });
    const server = await listen({ runtime, port: 0 });
    try {
      const client = await raw(server.address().port);
      client.socket.write(rawRequest(modern('tools/call', { name: 'fetcher' })));
      await arrived.promise;
      client.socket.destroy();
      expect(await outcome.promise).toMatchObject({ code: 'SNODO_ERR_CANCELLED' });
    } finally {
      await server.close();
    }
  });
});
