import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import {
  type AuthInfo,
  type CoreErrorCode,
  createHttpHandler,
  ErrorCode,
  encodeJson,
  type HttpConfig,
  readBody,
} from '@snodo/core';
import {
  authorizeHandler,
  flattenHeaders,
  handlerConfig,
  hostAuthRefusal,
  isEdgePath,
  LazySignal,
  log,
  statusFor,
  withCors,
  writeNodeResponse,
} from '@snodo/core/internal';
import { startAuth } from './auth.js';
import { lingeringClose } from './linger.js';
import { type ListenOptions, type ResolvedListenOptions, splitOptions } from './options.js';

/** A running listener. */
export interface McpHttpServer {
  /** The endpoint URL, e.g. `http://127.0.0.1:4000/mcp` (the real port when `port` was 0). */
  url(): string;
  /** The bound address. */
  address(): { host: string; port: number };
  /** Open connections and what they are doing, for tests and monitoring. */
  stats(): ListenerStats;
  /**
   * Graceful: stops accepting, closes idle connections, ends open subscriptions with their final
   * result, lets running requests finish for up to `closeGracePeriod`, then aborts the rest.
   * Resolves when every connection is gone. Idempotent.
   */
  close(): Promise<void>;
}

export interface ListenerStats {
  connections: number;
  /** Connections closed unread at `maxConnections`. */
  dropped: number;
  /** Connections cut by `headTimeout` or `bodyTimeout` (`readTimeout` cuts are node's socket timeouts). */
  timedOut: number;
  /** Connections cut while draining after their last answer, at `maxDrainBytes` or `drainTimeout`. */
  drainCut: number;
  requests: number;
}

/** Per-connection state; a request's head and body deadlines run from the socket's own events. */
interface Connection {
  headTimer: ReturnType<typeof setTimeout> | undefined;
  /** Requests of this connection whose response is not finished (more than one when pipelined). */
  active: number;
  served: number;
  /** A response said `Connection: close`: no later request on this connection is served. */
  ending: boolean;
}

/**
 * Serves `runtime` over Streamable HTTP on `node:http`, with every bound of the listener named and
 * defaulted (see the README's table). Resolves once the socket is bound.
 */
export async function listen(options: ListenOptions): Promise<McpHttpServer> {
  const { listener, http } = splitOptions(options);
  const { runtime, authenticate } = options;
  const shutdown = new AbortController();
  const ownsExecutor = http.executor === undefined;
  // The listener is this handler plus connection hardening; a broken x-mcp-header annotation fails here.
  const handler = createHttpHandler(runtime, {
    ...http,
    shutdownSignal: shutdown.signal,
    bodyTimeout: listener.bodyTimeout,
  });
  const config = (): HttpConfig => handlerConfig(handler);
  // `auth` given as options starts once the URL is known (after binding); until then requests get 503.
  let starting = options.auth !== undefined && config().auth === undefined;

  const bodyLimits = { maxBodyBytes: listener.maxBodyBytes, bodyTimeout: listener.bodyTimeout };
  const stats: ListenerStats = { connections: 0, dropped: 0, timedOut: 0, drainCut: 0, requests: 0 };
  const connections = new Map<Socket, Connection>();
  let closing: Promise<void> | undefined;

  const server = createHttpServer({
    maxHeaderSize: listener.maxHeaderBytes,
    // Node's own head/request timers run from the first byte; ours run from accept (below).
    requestTimeout: 0,
    headersTimeout: 0,
    keepAliveTimeout: listener.keepAliveTimeout,
  });
  // Checked by net.Server at accept, before the HTTP parser sees the socket: closed unread.
  server.maxConnections = listener.maxConnections;
  server.maxRequestsPerSocket = listener.maxRequestsPerConnection;
  server.on('drop', () => {
    stats.dropped++;
  });
  // A request node's parser refuses (malformed, a repeated Content-Length, a head over
  // maxHeaderBytes) is answered as node would, with a JSON-RPC body, and its connection closed
  // gracefully, so the client reads the answer even while it is still sending.
  server.on('clientError', (error: Error & { code?: string; reason?: string }, socket: Socket) => {
    const connection = connections.get(socket);
    const parseError = typeof error.code === 'string' && error.code.startsWith('HPE_');
    if (!parseError || !socket.writable || connection === undefined || connection.active > 0) {
      socket.destroy();
      return;
    }
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const body = errorBody(
      ErrorCode.InvalidRequest,
      tooLarge ? 'Request header fields too large' : `Bad Request: ${error.reason ?? 'malformed request'}`,
    );
    socket.write(
      `HTTP/1.1 ${tooLarge ? `${statusFor('SNODO_ERR_HEAD_TOO_LARGE')} Request Header Fields Too Large` : `${statusFor('SNODO_ERR_MALFORMED_HEAD')} Bad Request`}\r\n` +
        `connection: close\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    closeGracefully(socket);
  });

  const cut = (socket: Socket) => {
    stats.timedOut++;
    socket.destroy();
  };
  const armHead = (socket: Socket, connection: Connection) => {
    clearTimeout(connection.headTimer);
    connection.headTimer = setTimeout(cut, listener.headTimeout, socket);
  };
  const closeGracefully = (socket: Socket) => {
    const connection = connections.get(socket);
    if (connection !== undefined) {
      clearTimeout(connection.headTimer);
      connection.headTimer = undefined;
      connection.ending = true;
    }
    lingeringClose(socket, listener, () => stats.drainCut++);
  };
  /** Marks `res` as the connection's last answer. */
  const endConnection = (res: ServerResponse) => {
    res.setHeader('connection', 'close');
    const connection = connections.get(res.req.socket);
    if (connection !== undefined) connection.ending = true;
  };

  server.on('connection', (socket: Socket) => {
    const connection: Connection = { headTimer: undefined, active: 0, served: 0, ending: false };
    connections.set(socket, connection);
    // Node closes a connection after an answer that says "Connection: close" with destroySoon(),
    // which resets it if the client's next bytes are still unread: close it gracefully instead.
    socket.destroySoon = () => closeGracefully(socket);
    stats.connections = connections.size;
    armHead(socket, connection);
    // Idle while reading: node's http layer destroys the socket on 'timeout' when nobody else listens.
    socket.setTimeout(listener.readTimeout);
    socket.once('close', () => {
      clearTimeout(connection.headTimer);
      connections.delete(socket);
      stats.connections = connections.size;
    });
  });

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    const connection = connections.get(socket);
    if (connection === undefined) {
      res.destroy();
      return;
    }
    // Parsed behind an answer that ends the connection (RFC 9112 §9.6: not processed); the answer
    // it would get is never written, and the connection closes after the last one.
    if (connection.ending) return;
    clearTimeout(connection.headTimer);
    connection.headTimer = undefined;
    connection.active++;
    stats.requests++;
    socket.setTimeout(listener.readTimeout);
    connection.served++;
    if (connection.served >= listener.maxRequestsPerConnection) endConnection(res);
    // Made cheaply: an AbortSignal exists only if something needs one (core rarely does).
    const disconnect = new LazySignal();
    res.on('close', () => {
      if (!res.writableFinished) disconnect.abort();
      connection.active--;
      if (socket.destroyed) return;
      // After the answer that ends the connection, close it (gracefully: linger.ts).
      if ((connection.ending || closing !== undefined) && connection.active === 0) closeGracefully(socket);
      else if (connection.active === 0) armHead(socket, connection);
    });
    serve(req, res, disconnect).catch(() => {
      if (!res.headersSent) {
        endConnection(res);
        res.writeHead(statusFor('SNODO_ERR_INTERNAL'), { 'content-type': 'application/json' });
        res.end(errorBody(ErrorCode.InternalError, 'Internal error'));
      } else {
        res.destroy();
      }
    });
  });

  async function serve(req: IncomingMessage, res: ServerResponse, disconnect: LazySignal): Promise<void> {
    if (closing !== undefined) endConnection(res);
    const target = req.url ?? '/';
    const query = target.indexOf('?');
    const path = query < 0 ? target : target.slice(0, query);
    const hasBody =
      req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
    if (path !== listener.path && !isEdgePath(config(), path))
      return refuse(res, 'SNODO_ERR_NOT_FOUND', ErrorCode.InvalidRequest, `Not found: ${path}`, hasBody);
    if (starting)
      return refuse(res, 'SNODO_ERR_UNAVAILABLE', ErrorCode.ServerOverloaded, 'Starting: try again', hasBody);

    let body: Uint8Array = EMPTY;
    if (req.method === 'POST') {
      const read = await readBody(req, req.headers['content-length'], bodyLimits);
      if (!read.ok) {
        if (read.reason === 'too-large') {
          return refuse(
            res,
            'SNODO_ERR_BODY_TOO_LARGE',
            ErrorCode.InvalidRequest,
            `Body exceeds ${listener.maxBodyBytes} bytes`,
            true,
          );
        }
        if (read.reason === 'timeout') stats.timedOut++;
        if (read.reason === 'timeout' && !res.headersSent && !req.socket.destroyed) {
          return refuse(
            res,
            'SNODO_ERR_BODY_TIMEOUT',
            ErrorCode.InvalidRequest,
            'Request body timeout',
            true,
          );
        }
        res.destroy();
        return;
      }
      body = read.body;
    } else if (hasBody) {
      // A GET or DELETE with a body: answered without reading it, so the connection cannot be reused.
      endConnection(res);
    }
    // The request is read: the response phase may be silent (an SSE stream between keepalives).
    req.socket.setTimeout(0);

    let auth: AuthInfo | undefined;
    if (authenticate) {
      try {
        auth = await authenticate(req);
      } catch {
        const refusal = hostAuthRefusal(req.headers.authorization);
        return writeNodeResponse(
          res,
          withCors(
            config().cors,
            { method: req.method ?? 'GET', headers: flattenHeaders(req.headers) },
            refusal,
          ),
        );
      }
    }
    const headers = flattenHeaders(req.headers);
    const response = await handler.handle({
      method: req.method ?? 'GET',
      path: target,
      headers,
      rawHeaders: req.rawHeaders,
      body,
      signal: disconnect,
      url: listener.publicUrl ?? `http://${headers.host ?? hostForUrl()}${path}`,
      ...(req.socket.remoteAddress === undefined ? {} : { remoteAddress: req.socket.remoteAddress }),
      ...(auth === undefined ? {} : { auth }),
    });
    if (res.destroyed) {
      if ('events' in response) void response.events[Symbol.asyncIterator]().return?.();
      return;
    }
    await writeNodeResponse(res, response);
  }

  function refuse(
    res: ServerResponse,
    reason: CoreErrorCode,
    code: number,
    message: string,
    close: boolean,
  ): void {
    if (close) endConnection(res);
    const body = errorBody(code, message);
    res.writeHead(statusFor(reason), {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  }

  const hostForUrl = () => {
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : listener.port;
    const host = listener.host.includes(':') ? `[${listener.host}]` : listener.host;
    return `${host}:${port}`;
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listener.port, listener.host, () => {
      server.off('error', reject);
      resolve();
    });
  });

  const authStarting = startAuth(
    options.auth,
    listener.publicUrl ?? `http://${hostForUrl()}${listener.path}`,
  );
  if (authStarting) {
    try {
      authorizeHandler(handler, await authStarting);
      starting = false;
    } catch (error) {
      await closeServer();
      throw error;
    }
  }

  const url = () => `http://${hostForUrl()}${listener.path}`;
  log(runtime.logger, 'info', { url: url() }, 'listening');
  return {
    url,
    address: () => {
      const address = server.address();
      return {
        host: listener.host,
        port: typeof address === 'object' && address !== null ? address.port : listener.port,
      };
    },
    stats: () => ({ ...stats }),
    close() {
      closing ??= closeServer();
      return closing;
    },
  };

  async function closeServer(): Promise<void> {
    log(runtime.logger, 'info', { url: `http://${hostForUrl()}${listener.path}` }, 'closing');
    // net's close, not http's: since Node 19 http's also destroys every connection without a
    // request in progress, and so one still draining after its last answer (its answer would be lost).
    const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
    shutdown.abort();
    // Idle connections go now; one draining after its last answer finishes its drain (bounded).
    for (const [socket, connection] of connections)
      if (connection.active === 0 && !connection.ending) socket.destroy();
    const grace = setTimeout(() => {
      for (const socket of connections.keys()) socket.destroy();
      if (ownsExecutor) config().executor.destroy('listener closed');
    }, listener.closeGracePeriod);
    await closed;
    clearTimeout(grace);
    server.close(); // nothing left to close: stops the timer node's http server checks connections with
    await handler.close();
  }
}

const EMPTY = new Uint8Array(0);

function errorBody(code: number, message: string): string {
  return encodeJson({ jsonrpc: '2.0', id: null, error: { code, message } });
}

export type { HttpConfig, ListenOptions, ResolvedListenOptions };
