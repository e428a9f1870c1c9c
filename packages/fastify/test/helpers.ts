import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import {
  type ChangeHub,
  createChangeHub,
  createServer,
  type Executor,
  type Runtime,
  type SubscriptionSlot,
  tool,
} from '@snodo/core';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { z } from 'zod';
import { type SnodoFastifyOptions, snodo } from '../src/index.js';

export const MODERN = '2026-07-28';
/** Bearer tokens the test application accepts: the user, and the client instance the token was issued to. */
export const TOKENS: Readonly<Record<string, { principal: string; instance: string }>> = {
  'alice-token': { principal: 'alice', instance: 'alice-laptop' },
  'alice-phone-token': { principal: 'alice', instance: 'alice-phone' },
  'bob-token': { principal: 'bob', instance: 'bob-laptop' },
};

/** A promise with its resolve function outside. */
export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** Counts the handlers of a blocking tool running at once: a fact tests assert, not a timing. */
export class Running {
  now = 0;
  peak = 0;
  started = 0;
  readonly #waiters: { count: number; open: () => void }[] = [];

  enter(): void {
    this.now++;
    this.started++;
    this.peak = Math.max(this.peak, this.now);
    for (const waiter of this.#waiters.filter((w) => this.now >= w.count)) waiter.open();
  }

  leave(): void {
    this.now--;
  }

  /** Resolves once `count` handlers run at once. */
  reach(count: number): Promise<void> {
    if (this.now >= count) return Promise.resolve();
    return new Promise((open) => {
      this.#waiters.push({ count, open });
    });
  }
}

/** What the tests see from inside handlers. */
export class Probe {
  calls = 0;
  /** The `block` handlers running. */
  readonly blocking = new Running();
  /** The change hub the test server's subscriptions are fed from. */
  readonly hub: ChangeHub = createChangeHub();
  /** Resolved with the handler's signal when `block` starts. */
  blocked = gate<AbortSignal>();
  /** Resolved with the abort reason when `block` sees its signal abort. */
  blockAborted = gate<unknown>();
  /** `block` returns once this opens (unless aborted first). */
  release = gate();
}

/** A server with the tools the plugin tests need. */
export function testServer(probe: Probe = new Probe()): Runtime {
  return createServer({
    name: 'fastify-test',
    version: '1.0.0',
    hub: probe.hub,
    tools: [
      tool({
        name: 'whoami',
        description: 'Returns the verified principal',
        handler: (_args, ctx) => {
          probe.calls++;
          return ctx.auth?.principal ?? 'anonymous';
        },
      }),
      tool({
        name: 'echo',
        inputSchema: z.object({ text: z.string() }),
        handler: ({ text }) => {
          probe.calls++;
          return text;
        },
      }),
      tool({
        name: 'steps',
        description: 'Reports three progress steps, then returns',
        handler: (_args, ctx) => {
          probe.calls++;
          for (let step = 1; step <= 3; step++) ctx.progress(step, 3, `step ${step}`);
          return 'stepped';
        },
      }),
      tool({
        name: 'block',
        description: 'Waits until released or aborted',
        handler: async (_args, ctx) => {
          probe.calls++;
          probe.blocked.open(ctx.signal);
          probe.blocking.enter();
          try {
            return await new Promise<string>((resolve) => {
              ctx.signal.addEventListener('abort', () => {
                probe.blockAborted.open(ctx.signal.reason);
                resolve('aborted');
              });
              void probe.release.promise.then(() => resolve('released'));
            });
          } finally {
            probe.blocking.leave();
          }
        },
      }),
      tool({
        name: 'ask',
        description: 'Asks for a name (MRTR on 2026-07-28)',
        handler: async (_args, ctx) => {
          probe.calls++;
          const answer = await ctx.elicit({
            message: 'Your name?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          });
          return `Hello, ${(answer.content as { name: string }).name}`;
        },
      }),
    ],
  });
}

/**
 * An application as it existed before MCP: a health route, a JSON API, and a bearer-token hook
 * that guards `/api` and sets `request.mcpAuth` from the verified token.
 */
export async function testApp(
  options: Omit<SnodoFastifyOptions, 'runtime'> & { runtime?: Runtime } = {},
  fastifyOptions: FastifyServerOptions = {},
  probe: Probe = new Probe(),
): Promise<FastifyInstance> {
  const app = Fastify(fastifyOptions);
  app.get('/health', async () => ({ ok: true }));
  await app.register(
    async (api) => {
      api.addHook('onRequest', async (request, reply) => {
        const header = request.headers.authorization;
        if (header === undefined || !header.startsWith('Bearer ')) {
          return reply.code(401).header('www-authenticate', 'Bearer').send({ error: 'unauthorized' });
        }
        const grant = TOKENS[header.slice('Bearer '.length)];
        if (grant === undefined) return reply.code(403).send({ error: 'forbidden' });
        request.mcpAuth = { principal: grant.principal };
        request.mcpCancellationScope = grant.instance;
      });
      api.post('/echo', async (request) => ({ parsed: request.body }));
      await api.register(snodo, { runtime: testServer(probe), path: '/mcp', ...options });
    },
    { prefix: '/api' },
  );
  return app;
}

let nextId = 1;

/** A 2026-07-28 request: its body and the headers it must carry. */
export function modern(
  method: string,
  params: Record<string, unknown> = {},
  meta: Record<string, unknown> = {},
  id: number | string = nextId++,
): { body: string; headers: Record<string, string>; id: number | string } {
  const fullParams = {
    ...params,
    _meta: {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientCapabilities': {},
      ...meta,
    },
  };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
  };
  const name = method === 'resources/read' ? params.uri : params.name;
  if (typeof name === 'string' && ['tools/call', 'prompts/get', 'resources/read'].includes(method)) {
    headers['mcp-name'] = name;
  }
  return { body: JSON.stringify({ jsonrpc: '2.0', id, method, params: fullParams }), headers, id };
}

export function toolCall(
  name: string,
  args: Record<string, unknown> = {},
  meta: Record<string, unknown> = {},
) {
  return modern('tools/call', { name, arguments: args }, meta);
}

export function bearer(token = 'alice-token'): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** Listens on 127.0.0.1 with an ephemeral port; returns the origin (`http://127.0.0.1:N`). */
export async function listen(app: FastifyInstance): Promise<{ origin: string; port: number }> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, port };
}

/** The SSE events of a text/event-stream body, data parsed as JSON. */
export function sseMessages(text: string): unknown[] {
  const messages: unknown[] = [];
  for (const block of text.split('\n\n')) {
    const data = block
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice('data: '.length));
    if (data.length > 0) messages.push(JSON.parse(data.join('\n')));
  }
  return messages;
}

/** Reads SSE events from a fetch response one at a time. */
export function sseReader(response: Response): { next(): Promise<unknown>; cancel(): Promise<void> } {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  return {
    async next() {
      while (true) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const [message] = sseMessages(`${block}\n\n`);
          if (message !== undefined) return message;
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error(`SSE stream ended; unread: ${JSON.stringify(buffer)}`);
        buffer += value;
      }
    },
    cancel: () => reader.cancel(),
  };
}

/**
 * A raw HTTP/1.1 exchange: writes `head` (and `body`, if any), then resolves with everything the
 * server sent once it closes the connection.
 */
export function rawExchange(
  port: number,
  head: string,
  body?: string,
): { socket: Socket; response: Promise<string> } {
  const socket = connect(port, '127.0.0.1');
  const response = new Promise<string>((resolve, reject) => {
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
  });
  socket.write(head);
  if (body !== undefined) socket.write(body);
  return { socket, response };
}

/**
 * Observes the subscription slots an executor hands out: each entry resolves when that slot is
 * released (the event the tests wait for instead of sleeping).
 */
export function watchSlots(executor: Executor): Promise<void>[] {
  const released: Promise<void>[] = [];
  const acquire = executor.acquireSubscription.bind(executor);
  executor.acquireSubscription = (owner) => {
    const slot = acquire(owner);
    if (slot === null) return null;
    const done = gate();
    released.push(done.promise);
    const watched: SubscriptionSlot = {
      release() {
        slot.release();
        done.open();
      },
    };
    return watched;
  };
  return released;
}
