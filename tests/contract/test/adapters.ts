import { once } from 'node:events';
import {
  createServer as createNodeServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { fileURLToPath } from 'node:url';
import type { ConnectOptions, Target } from '@snodo/client';
import { createHttpHandler, type Executor, type Runtime } from '@snodo/core';
import { snodo } from '@snodo/fastify';
import { listen } from '@snodo/transport-http';
import Fastify from 'fastify';
import { contractServer } from './fixtures/server.mjs';
import { Watch, WatchedExecutor } from './watch.js';

/** Executor settings a scenario asks of the server. */
export interface Bounds {
  maxConcurrency?: number;
  maxQueue?: number;
  requestTimeout?: number;
  /** stdio only: serve's `writeTimeout`. */
  writeTimeout?: number;
}

/**
 * What the server did, read where it runs: the `sleep` handlers' counts (`running`: started and
 * not yet returned) and, when the adapter has one, its executor's running tasks and held
 * subscription slots.
 */
export interface Probe {
  readonly started: number;
  readonly aborted: number;
  readonly running: number;
  /** `chatty` handlers that returned. */
  readonly chatted: number;
  readonly executor?: { readonly running: number; readonly subscriptions: number };
  /** stdio: the child's exit code and the code of the error `serve` rejected with, if it did. */
  readonly code?: number;
  readonly failure?: string;
}

export interface Served {
  readonly target: Target;
  /** Connect options the adapter needs besides the scenario's (stdio: its stderr, its exit wait). */
  readonly connectOptions?: ConnectOptions;
  /**
   * The server's state once `done` holds, re-checked on every change; for a server in another
   * process (stdio), its state as it exited, checked once.
   */
  settled(done: (probe: Probe) => boolean): Promise<Probe>;
  /**
   * The server's state once `done` holds, while it runs: the same as `settled` in this process; for
   * stdio, the state lines the child writes on stderr after each change (no executor counts).
   */
  observed(done: (probe: Probe) => boolean): Promise<Probe>;
  close(): Promise<void>;
}

/**
 * How the adapter's bytes travel, which picks the raw peer the suite speaks to it with when the
 * client cannot express a scenario (a batch, a reader that stops reading): `http` (any Streamable
 * HTTP endpoint), `stdio` (a child process), `direct` (in process: no bytes).
 */
export type Wire = 'http' | 'stdio' | 'direct';

/**
 * One way of serving the contract server. A new adapter joins the suite by adding one entry here.
 * `overload`: what a call over the executor's bounds gets: `refused` (-32000 at once), `paced`
 * (stdio stops reading until a slot frees: the call waits, then is answered), or `none` (the
 * in-process client transport runs no executor).
 * `disconnect`: what a client that goes away mid-call does to the call: `aborts` (its handler's
 * signal), or why the adapter lets it run to its deadline instead.
 */
export interface Adapter {
  readonly name: string;
  readonly wire: Wire;
  readonly overload: 'refused' | 'paced' | 'none';
  readonly disconnect: 'aborts' | { readonly runsToDeadline: string };
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

/** The contract server in this process, run by an executor the suite watches. */
function inProcess({ writeTimeout: _stdioOnly, ...bounds }: Bounds): {
  runtime: Runtime;
  executor: Executor;
  settled: Served['settled'];
} {
  const executor = new WatchedExecutor(bounds);
  const { runtime, state } = contractServer(() => executor.watch.changed());
  const probe = (): Probe => {
    const { running, subscriptions } = executor.stats();
    return { ...state, executor: { running, subscriptions } };
  };
  return { runtime, executor, settled: (done) => executor.watch.until(() => probe(), done) };
}

const CHILD = fileURLToPath(new URL('./fixtures/stdio-child.mjs', import.meta.url));
const EXIT_LINE = /^contract-exit (.*)$/m;
const STATE_LINE = /^contract-state (.*)$/gm;

export const ADAPTERS: readonly Adapter[] = [
  {
    name: 'stdio child',
    wire: 'stdio',
    overload: 'paced',
    disconnect: {
      runsToDeadline: 'stdin EOF lets admitted requests finish (README "EOF"), so the deadline aborts it',
    },
    async start(bounds = {}) {
      let stderr = '';
      const watch = new Watch();
      let live: Probe | undefined;
      let exited: (text: string) => void = () => {};
      const exit = new Promise<string>((resolve) => {
        exited = resolve;
      });
      return {
        target: {
          stdio: {
            command: process.execPath,
            args: [CHILD],
            env: { ...process.env, SNODO_CONTRACT_OPTIONS: JSON.stringify(bounds) } as Record<string, string>,
          },
        },
        connectOptions: {
          onStderr: (text) => {
            stderr += text;
            // Whole lines only: a chunk may end inside one.
            const whole = stderr.slice(0, stderr.lastIndexOf('\n') + 1);
            for (const state of whole.matchAll(STATE_LINE)) live = JSON.parse(state[1] as string) as Probe;
            watch.changed();
            const line = EXIT_LINE.exec(stderr);
            if (line) exited(line[1] as string);
          },
          // close() waits for the child to exit by itself (it writes its state then), never kills it.
          exitTimeout: 25_000,
        },
        settled: async (done) => {
          const state = JSON.parse(await exit) as Probe;
          if (!done(state)) throw new Error(`the stdio child exited in state ${JSON.stringify(state)}`);
          return state;
        },
        observed: async (done) =>
          (await watch.until(
            () => live,
            (state) => state !== undefined && done(state),
          )) as Probe,
        close: async () => {},
      };
    },
  },
  {
    name: 'listener',
    wire: 'http',
    overload: 'refused',
    disconnect: 'aborts',
    async start(bounds = {}) {
      const { runtime, executor, settled } = inProcess(bounds);
      const server = await listen({ runtime, port: 0, executor });
      return { target: { http: server.url() }, settled, observed: settled, close: () => server.close() };
    },
  },
  {
    name: 'fastify',
    wire: 'http',
    overload: 'refused',
    disconnect: 'aborts',
    async start(bounds = {}) {
      const { runtime, executor, settled } = inProcess(bounds);
      const app = Fastify();
      await app.register(snodo, { runtime, executor });
      await app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = app.server.address() as { port: number };
      return {
        target: { http: `http://127.0.0.1:${port}/mcp` },
        settled,
        observed: settled,
        close: async () => {
          app.server.closeAllConnections();
          await app.close();
        },
      };
    },
  },
  {
    name: 'fetch handler',
    wire: 'http',
    overload: 'refused',
    disconnect: 'aborts',
    async start(bounds = {}) {
      const { runtime, executor, settled } = inProcess(bounds);
      const handler = createHttpHandler(runtime, { executor });
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
          for (let next = await reader.read(); !next.done; next = await reader.read()) {
            if (res.write(next.value)) continue;
            // A reader that stops reading holds the body here (its stream pulls no more), as a WHATWG host would.
            const drained = await Promise.race([
              once(res, 'drain').then(() => true),
              once(res, 'close').then(() => false),
            ]);
            if (!drained) {
              await reader.cancel();
              break;
            }
          }
        } catch {
          // The client left: the response body was cancelled.
        }
        res.end();
      });
      return {
        target: { http: url },
        settled,
        observed: settled,
        close: async () => {
          await stop(server);
          await handler.close();
        },
      };
    },
  },
  {
    name: 'node handler',
    wire: 'http',
    overload: 'refused',
    disconnect: 'aborts',
    async start(bounds = {}) {
      const { runtime, executor, settled } = inProcess(bounds);
      const handler = createHttpHandler(runtime, { executor });
      const { url, server } = await onNode((req, res) => void handler.node(req, res));
      return {
        target: { http: url },
        settled,
        observed: settled,
        close: async () => {
          await stop(server);
          await handler.close();
        },
      };
    },
  },
  {
    name: 'in-process client transport',
    wire: 'direct',
    overload: 'none',
    disconnect: 'aborts',
    async start() {
      const watch = new Watch();
      const { runtime, state } = contractServer(() => watch.changed());
      const settled: Served['settled'] = (done) => watch.until(() => ({ ...state }), done);
      return { target: { direct: runtime }, settled, observed: settled, close: async () => {} };
    },
  },
];

export const REVISIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'] as const;
