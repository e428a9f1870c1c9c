import { connect, type Socket } from 'node:net';
import { type ChangeHub, createChangeHub, createServer, type Runtime, tool } from '@snodo/core';
import { z } from 'zod';
import { type ListenOptions, listen, type McpHttpServer } from '../src/index.js';

export const MODERN = '2026-07-28';

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

export interface Probe {
  sleeping: ReturnType<typeof gate<AbortSignal>>;
  sleepAborted: ReturnType<typeof gate<void>>;
  release: ReturnType<typeof gate<void>>;
  /** The `wait` handlers running. */
  waiting: Running;
}

export function newProbe(): Probe {
  return { sleeping: gate(), sleepAborted: gate(), release: gate(), waiting: new Running() };
}

/** The server the listener tests serve. */
export function testServer(probe: Probe = newProbe(), hub: ChangeHub = createChangeHub()): Runtime {
  return createServer({
    name: 'listener-test',
    version: '1.0.0',
    hub,
    tools: [
      tool({ name: 'echo', inputSchema: z.object({ text: z.string() }), handler: ({ text }) => text }),
      tool({
        name: 'sleep',
        handler: async (_args, context) => {
          probe.sleeping.open(context.signal);
          await new Promise<void>((resolve) =>
            context.signal.addEventListener('abort', () => resolve(), { once: true }),
          );
          probe.sleepAborted.open();
          return 'woke';
        },
      }),
      tool({
        name: 'steps',
        handler: async (_args, context) => {
          context.progress(1, 2, 'one');
          context.progress(2, 2, 'two');
          await probe.release.promise;
          return 'done';
        },
      }),
      tool({
        name: 'wait',
        handler: async () => {
          probe.waiting.enter();
          try {
            await probe.release.promise;
          } finally {
            probe.waiting.leave();
          }
          return 'released';
        },
      }),
      {
        name: 'regional',
        inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } },
        handler: () => 'ok',
      },
      tool({ name: 'needs_sampling', requiredClientCapabilities: { sampling: {} }, handler: () => 'x' }),
    ],
  });
}

const servers: McpHttpServer[] = [];

/** Starts a listener on a free port; `closeAll` (afterEach) stops it. */
export async function start(options: Partial<ListenOptions> = {}): Promise<McpHttpServer> {
  const server = await listen({ runtime: testServer(), port: 0, ...options });
  servers.push(server);
  return server;
}

export async function closeAll(): Promise<void> {
  await Promise.all(servers.splice(0).map((server) => server.close()));
}

let nextId = 1;

export function modern(
  method: string,
  params: Record<string, unknown> = {},
  meta: Record<string, unknown> = {},
) {
  return {
    jsonrpc: '2.0' as const,
    id: nextId++,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientCapabilities': {},
        ...meta,
      },
    },
  };
}

export function headersFor(message: {
  method: string;
  params?: Record<string, unknown>;
}): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': message.method,
  };
  const name = message.method === 'resources/read' ? message.params?.uri : message.params?.name;
  if (typeof name === 'string') headers['mcp-name'] = name;
  return headers;
}

/** POSTs `message` with the headers a correct client sends for it (overridable; undefined removes one). */
export async function post(
  url: string,
  message: unknown,
  headers: Record<string, string | undefined> = {},
  init: RequestInit = {},
): Promise<Response> {
  const meta = (message as { params?: { _meta?: Record<string, unknown> } })?.params?._meta;
  const base =
    meta?.['io.modelcontextprotocol/protocolVersion'] !== undefined
      ? headersFor(message as never)
      : { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const merged: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...base, ...headers }))
    if (value !== undefined) merged[name] = value;
  return fetch(url, {
    method: 'POST',
    headers: merged,
    body: typeof message === 'string' ? message : JSON.stringify(message),
    ...init,
  });
}

export function parseSse(text: string): any[] {
  return text
    .split('\n\n')
    .map((block) =>
      block
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n'),
    )
    .filter((data) => data !== '')
    .map((data) => JSON.parse(data));
}

/** A raw TCP client: what it received, and a promise of its close. */
export interface Raw {
  socket: Socket;
  received(): string;
  closed: Promise<void>;
  /** Resolves once the received text contains `text`. */
  waitFor(text: string): Promise<string>;
}

export function raw(port: number): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    const waiters: { text: string; resolve: (value: string) => void }[] = [];
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      data += chunk;
      for (const waiter of [...waiters]) {
        if (data.includes(waiter.text)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(data);
        }
      }
    });
    socket.on('error', () => {});
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('connect', () =>
      resolve({
        socket,
        received: () => data,
        closed,
        waitFor: (text) =>
          data.includes(text)
            ? Promise.resolve(data)
            : new Promise((done) => waiters.push({ text, resolve: done })),
      }),
    );
    socket.once('error', reject);
  });
}

/** A complete HTTP/1.1 request for the raw client. */
export function rawRequest(message: unknown, extra: Record<string, string> = {}, path = '/mcp'): string {
  const body = JSON.stringify(message);
  const headers = {
    host: '127.0.0.1',
    ...headersFor(message as never),
    'content-length': String(Buffer.byteLength(body)),
    ...extra,
  };
  return `POST ${path} HTTP/1.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\r\n')}\r\n\r\n${body}`;
}
