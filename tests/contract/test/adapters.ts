import { once } from 'node:events';
import {
  createServer as createNodeServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { fileURLToPath } from 'node:url';
import type { Target } from '@snodo/client';
import { createHttpHandler } from '@snodo/core';
import { snodo } from '@snodo/fastify';
import { listen } from '@snodo/transport-http';
import Fastify from 'fastify';
import { contractServer } from './fixtures/server.mjs';

/** Executor bounds a scenario asks of the server. */
export interface Bounds {
  maxConcurrency?: number;
  maxQueue?: number;
}

export interface Served {
  readonly target: Target;
  close(): Promise<void>;
}

/**
 * One way of serving the contract server. A new adapter joins the suite by adding one entry here.
 * `overload`: what a call over the executor's bounds gets: `refused` (-32000 at once), `paced`
 * (stdio stops reading until a slot frees: the call waits, then is answered), or `none` (the
 * in-process client transport runs no executor).
 */
export interface Adapter {
  readonly name: string;
  readonly overload: 'refused' | 'paced' | 'none';
  start(bounds?: Bounds): Promise<Served>;
}

async function onNode(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; server: Server }> {
  const server = createNodeServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/mcp`, server };
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

const CHILD = fileURLToPath(new URL('./fixtures/stdio-child.mjs', import.meta.url));

export const ADAPTERS: readonly Adapter[] = [
  {
    name: 'stdio child',
    overload: 'paced',
    async start(bounds = {}) {
      return {
        target: {
          stdio: {
            command: process.execPath,
            args: [CHILD],
            env: { ...process.env, SNODO_CONTRACT_OPTIONS: JSON.stringify(bounds) } as Record<string, string>,
          },
        },
        close: async () => {},
      };
    },
  },
  {
    name: 'listener',
    overload: 'refused',
    async start(bounds = {}) {
      const server = await listen({ runtime: contractServer().runtime, port: 0, ...bounds });
      return { target: { http: server.url() }, close: () => server.close() };
    },
  },
  {
    name: 'fastify',
    overload: 'refused',
    async start(bounds = {}) {
      const app = Fastify();
      await app.register(snodo, { runtime: contractServer().runtime, ...bounds });
      await app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = app.server.address() as { port: number };
      return {
        target: { http: `http://127.0.0.1:${port}/mcp` },
        close: async () => {
          app.server.closeAllConnections();
          await app.close();
        },
      };
    },
  },
  {
    name: 'fetch handler',
    overload: 'refused',
    async start(bounds = {}) {
      const handler = createHttpHandler(contractServer().runtime, bounds);
      // A minimal WHATWG host: node:http bytes in, a Request to `fetch`, its Response streamed out.
      const { url, server } = await onNode(async (req, res) => {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const controller = new AbortController();
        res.once('close', () => controller.abort());
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers))
          if (typeof value === 'string') headers.set(name, value);
        const method = req.method ?? 'GET';
        const response = await handler.fetch(
          new Request(`http://127.0.0.1${req.url}`, {
            method,
            headers,
            signal: controller.signal,
            ...(method === 'POST' ? { body: Buffer.concat(chunks) } : {}),
          }),
        );
        const out: Record<string, string> = {};
        response.headers.forEach((value, name) => {
          out[name] = value;
        });
        res.writeHead(response.status, out);
        res.flushHeaders();
        if (response.body === null) return void res.end();
        const reader = response.body.getReader();
        try {
          for (let next = await reader.read(); !next.done; next = await reader.read()) res.write(next.value);
        } catch {
          // The client left: the response body was cancelled.
        }
        res.end();
      });
      return {
        target: { http: url },
        close: async () => {
          await stop(server);
          await handler.close();
        },
      };
    },
  },
  {
    name: 'node handler',
    overload: 'refused',
    async start(bounds = {}) {
      const handler = createHttpHandler(contractServer().runtime, bounds);
      const { url, server } = await onNode((req, res) => void handler.node(req, res));
      return {
        target: { http: url },
        close: async () => {
          await stop(server);
          await handler.close();
        },
      };
    },
  },
  {
    name: 'in-process client transport',
    overload: 'none',
    async start() {
      return { target: { direct: contractServer().runtime }, close: async () => {} };
    },
  },
];

export const REVISIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'] as const;
