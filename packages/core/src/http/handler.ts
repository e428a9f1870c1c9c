import { hostAuthRefusal } from '../auth/challenge.js';
import type { ResourceServer } from '../auth/resource-server.js';
import type { AuthInfo } from '../dispatch/context.js';
import { ErrorCode } from '../errors/codes.js';
import { optionError } from '../errors/table.js';
import { LazySignal } from '../executor/lazy-signal.js';
import { COMMON_RULES, checkOptions, fn, type OptionSchema } from '../limits/validate.js';
import type { Runtime } from '../router/runtime.js';
import { type BodyLimits, bodyRefusal, readBody } from './body.js';
import { HTTP_OPTIONS, type HttpConfig, type HttpOptions, resolveHttpOptions, withAuth } from './config.js';
import { withCors } from './cors.js';
import { DEFAULT_BODY_TIMEOUT } from './defaults.js';
import { execute } from './execute.js';
import { flattenHeaders, type NodeRequest, type NodeResponse, writeNodeResponse } from './node.js';
import { paramHeadersOf } from './param-headers.js';
import { type PrepareResult, prepareNow } from './prepare.js';
import { refusal } from './responses.js';
import { sseText } from './sse.js';
import { type HttpRequest, type HttpResponse, isStreamResponse } from './types.js';

export interface HttpHandlerOptions extends HttpOptions {
  /** ms from when the body starts being read until it is complete (408 after). Default 10,000. */
  bodyTimeout?: number;
  /**
   * The endpoint URL clients use when the host sits behind a reverse proxy (e.g.
   * `https://mcp.example.com/mcp`): handlers see it as `context.url`, and UI resources derive their
   * sandbox domain from it, instead of the URL of the request as received.
   */
  publicUrl?: string;
  /**
   * The verified identity of a request, from the host's own authentication. Receives the host's
   * request (`Request` for `fetch`, `IncomingMessage` for `node`); `handle` takes `auth` on the
   * `HttpRequest` instead. Return undefined for anonymous requests; throw to refuse with 401.
   */
  authenticate?: (request: never) => AuthInfo | undefined | Promise<AuthInfo | undefined>;
}

/**
 * One MCP endpoint over Streamable HTTP: it owns its executor, session store and control channel
 * (nothing is cached elsewhere), and serves three kinds of host.
 */
export interface HttpHandler {
  /** Core's neutral request in, core's response out (with the `cors` headers). */
  handle(request: HttpRequest): Promise<HttpResponse>;
  /** A WHATWG `Request` → `Response` handler (Hono, Bun, Deno, workers, Next.js route handlers). */
  fetch(request: Request): Promise<Response>;
  /** A `node:http` `(req, res)` handler: `http.createServer(handler.node)`, `app.use('/mcp', handler.node)`. */
  node(req: NodeRequest, res: NodeResponse): Promise<void>;
  /**
   * Ends open subscription streams with their final result, then waits for running requests and
   * closes the executor, the control channel and the session store the handler created. Idempotent.
   */
  close(): Promise<void>;
}

const encoder = new TextEncoder();

/** What `createHttpHandler` (and `createFetchHandler`) take, with every rule: core's HTTP options and three of its own. */
export const HTTP_HANDLER_OPTIONS: OptionSchema = Object.freeze({
  ...HTTP_OPTIONS,
  bodyTimeout: COMMON_RULES.bodyTimeout,
  publicUrl: COMMON_RULES.publicUrl,
  authenticate: fn,
});

/** What the listener and the Fastify plugin reach through `@snodo/core/internal`. */
interface HandlerState {
  config: HttpConfig;
  readonly limits: BodyLimits;
}
const STATES = new WeakMap<HttpHandler, HandlerState>();

/**
 * Builds an HTTP handler for `runtime`. Options are validated here, once; the runtime's
 * `x-mcp-header` annotations too.
 */
export function createHttpHandler(runtime: Runtime, options: HttpHandlerOptions = {}): HttpHandler {
  checkOptions('createHttpHandler', options, HTTP_HANDLER_OPTIONS);
  const { authenticate, publicUrl, bodyTimeout, ...httpOptions } = options;
  const shutdown = new AbortController();
  const given = httpOptions.shutdownSignal;
  const config0 = resolveHttpOptions({ ...httpOptions, shutdownSignal: shutdown.signal }, runtime.logger);
  if (given !== undefined) {
    if (given.aborted) shutdown.abort(given.reason);
    else given.addEventListener('abort', () => shutdown.abort(given.reason), { once: true });
  }
  if (authenticate !== undefined && config0.auth !== undefined) {
    throw optionError('authenticate and auth exclude each other: auth verifies bearer tokens itself');
  }
  paramHeadersOf(runtime);
  const state: HandlerState = {
    config: config0,
    limits: {
      maxBodyBytes: config0.maxBodyBytes,
      bodyTimeout: bodyTimeout ?? DEFAULT_BODY_TIMEOUT,
    },
  };
  const identify = authenticate as ((request: unknown) => Promise<AuthInfo | undefined>) | undefined;
  let closing: Promise<void> | undefined;

  const respond = async (config: HttpConfig, request: HttpRequest, result: PrepareResult) =>
    withCors(config.cors, request, 'response' in result ? result.response : await execute(result.prepared));
  const handle = (request: HttpRequest): Promise<HttpResponse> => {
    const { config } = state;
    try {
      const result = prepareNow(runtime, request, config);
      return result instanceof Promise
        ? result.then((prepared) => respond(config, request, prepared))
        : respond(config, request, result);
    } catch (error) {
      return Promise.reject(error);
    }
  };

  /** The host's identity for a request, or the 401 to answer. */
  const authOf = async (
    native: unknown,
    method: string,
    headers: Readonly<Record<string, string>>,
  ): Promise<{ auth: AuthInfo | undefined } | { refusal: HttpResponse }> => {
    if (identify === undefined) return { auth: undefined };
    try {
      return { auth: await identify(native) };
    } catch {
      return {
        refusal: withCors(state.config.cors, { method, headers }, hostAuthRefusal(headers.authorization)),
      };
    }
  };

  const handler: HttpHandler = {
    handle,

    async fetch(request) {
      const url = new URL(request.url);
      const headers: Record<string, string> = {};
      request.headers.forEach((value, name) => {
        headers[name] = value;
      });
      const read = await readBody(request.body, headers['content-length'], state.limits);
      if (!read.ok) {
        return toResponse(
          read.reason === 'aborted'
            ? refusal('SNODO_ERR_BODY_ABORTED', null, 'Request body aborted')
            : bodyRefusal(read.reason, state.limits),
        );
      }
      const identified = await authOf(request, request.method, headers);
      if ('refusal' in identified) return toResponse(identified.refusal);
      // A stream the client cancels must stop the request as a disconnect would.
      const controller = new LazySignal();
      const abort = () => controller.abort(request.signal.reason);
      if (request.signal.aborted) abort();
      else request.signal.addEventListener('abort', abort, { once: true });
      const response = await handle({
        method: request.method,
        path: url.pathname + url.search,
        headers,
        body: read.body,
        signal: controller,
        // The endpoint as the client used it: scheme, host, port and path, without the query.
        url: publicUrl ?? `${url.origin}${url.pathname}`,
        ...(identified.auth === undefined ? {} : { auth: identified.auth }),
      });
      if (!isStreamResponse(response)) request.signal.removeEventListener('abort', abort);
      return toResponse(response, controller);
    },

    async node(req, res) {
      const disconnect = new LazySignal();
      res.once('close', () => {
        if (res.writableFinished !== true) disconnect.abort();
      });
      try {
        const method = req.method ?? 'GET';
        const headers = flattenHeaders(req.headers);
        const read = await readBody(
          method === 'POST' ? req : undefined,
          headers['content-length'],
          state.limits,
        );
        if (!read.ok) {
          if (read.reason === 'aborted') return;
          // The unread rest of the body must not be taken for a next request on the connection.
          const refusal = bodyRefusal(read.reason, state.limits);
          return writeNodeResponse(res, { ...refusal, headers: { ...refusal.headers, connection: 'close' } });
        }
        const identified = await authOf(req, method, headers);
        if ('refusal' in identified) return writeNodeResponse(res, identified.refusal);
        const target = req.url ?? '/';
        const query = target.indexOf('?');
        const response = await handle({
          method,
          path: target,
          headers,
          ...(req.rawHeaders === undefined ? {} : { rawHeaders: req.rawHeaders }),
          body: read.body,
          signal: disconnect,
          url:
            publicUrl ??
            `http://${headers.host ?? 'localhost'}${query < 0 ? target : target.slice(0, query)}`,
          ...(req.socket?.remoteAddress === undefined ? {} : { remoteAddress: req.socket.remoteAddress }),
          ...(identified.auth === undefined ? {} : { auth: identified.auth }),
        });
        if (res.destroyed === true) {
          if (isStreamResponse(response)) void response.events[Symbol.asyncIterator]().return?.();
          return;
        }
        await writeNodeResponse(res, response);
      } catch {
        // The host itself failed (a session store that throws): 500, as the README's table says.
        if (res.headersSent !== true && res.destroyed !== true) {
          await writeNodeResponse(
            res,
            refusal('SNODO_ERR_INTERNAL', null, 'Internal error', { rpcCode: ErrorCode.InternalError }),
          );
        }
      }
    },

    close() {
      closing ??= (async () => {
        shutdown.abort(new Error('handler closed'));
        if (httpOptions.executor === undefined) await state.config.executor.close();
        if (httpOptions.control === undefined) await state.config.local.control.close?.();
      })();
      return closing;
    },
  };
  STATES.set(handler, state);
  return handler;
}

/** The configuration a handler runs with (for sibling hosts). */
export function handlerConfig(handler: HttpHandler): HttpConfig {
  return stateOf(handler).config;
}

/** The body bounds a handler reads with (for sibling hosts that read bodies themselves). */
export function handlerBodyLimits(handler: HttpHandler): BodyLimits {
  return stateOf(handler).limits;
}

/**
 * Sets the handler's resource server, for a host that can build it only once bound (its URL is the
 * default `resource`). The executor, session store and control channel stay.
 */
export function authorizeHandler(handler: HttpHandler, auth: ResourceServer): void {
  const state = stateOf(handler);
  state.config = withAuth(state.config, auth);
}

function stateOf(handler: HttpHandler): HandlerState {
  const state = STATES.get(handler);
  if (state === undefined) throw optionError('not a handler from createHttpHandler()');
  return state;
}

function toResponse(response: HttpResponse, controller?: LazySignal): Response {
  const init = { status: response.status, headers: response.headers };
  if (!isStreamResponse(response)) {
    return new Response(response.body === '' || response.status === 204 ? null : response.body, init);
  }
  const iterator = response.events[Symbol.asyncIterator]();
  const cut = response.cut;
  // Once core drops the reader (`cut`), the body errors at once, so that a host waiting on a full
  // socket closes the connection; a fetch host cannot tell a stalled client from a slow one.
  let done = false;
  const stream = new ReadableStream<Uint8Array>({
    start(sink) {
      const onCut = () => {
        if (done) return;
        done = true;
        sink.error(cut?.reason);
        void iterator.return?.()?.then(undefined, () => {});
      };
      if (cut?.aborted) onCut();
      else cut?.addEventListener('abort', onCut, { once: true });
    },
    async pull(sink) {
      const next = await iterator.next();
      if (done) return;
      if (next.done) {
        done = true;
        sink.close();
      } else {
        sink.enqueue(encoder.encode(sseText(next.value)));
      }
    },
    async cancel(reason) {
      done = true;
      controller?.abort(reason);
      await iterator.return?.();
    },
  });
  return new Response(stream, init);
}
