import type { IncomingMessage } from 'node:http';
import { type AuthInfo, type HttpOptions, type Runtime, SnodoError } from '@snodo/core';
import { HTTP_OPTION_NAMES, isHttpUrl, isResourceServer, knownOptions } from '@snodo/core/internal';
import type { ListenAuth } from './auth.js';
import {
  DEFAULT_BODY_TIMEOUT,
  DEFAULT_CLOSE_GRACE_PERIOD,
  DEFAULT_DRAIN_TIMEOUT,
  DEFAULT_HEAD_TIMEOUT,
  DEFAULT_HOST,
  DEFAULT_KEEP_ALIVE_TIMEOUT,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_DRAIN_BYTES,
  DEFAULT_MAX_HEADER_BYTES,
  DEFAULT_MAX_REQUESTS_PER_CONNECTION,
  DEFAULT_PATH,
  DEFAULT_READ_TIMEOUT,
} from './defaults.js';

export interface ListenOptions extends Omit<HttpOptions, 'path' | 'shutdownSignal' | 'auth'> {
  /** The server to serve (`createServer(...)`). */
  runtime: Runtime;
  /** TCP port; 0 picks a free one (read it back with `url()`). */
  port: number;
  /** Interface to bind. Default `127.0.0.1` (loopback only). */
  host?: string;
  /** The MCP endpoint; other paths get 404. Default `/mcp`. */
  path?: string;
  /** Open connections at once. Default 1,024; one accepted at the limit is closed unread. */
  maxConnections?: number;
  /** ms from accept (or from the previous response) to a complete request head. Default 10,000. */
  headTimeout?: number;
  /** ms from the end of the head to a complete body. Default 10,000. */
  bodyTimeout?: number;
  /** ms of silence allowed while a request is read. Default 5,000. */
  readTimeout?: number;
  /** Bytes of the request head. Default 16,384 (431 above). */
  maxHeaderBytes?: number;
  /** ms an idle kept-alive connection stays open. Default 5,000. */
  keepAliveTimeout?: number;
  /** Requests per connection before it closes; 1 disables keep-alive. Default 1,000. */
  maxRequestsPerConnection?: number;
  /** ms `close()` lets running requests finish before aborting them. Default 10,000. */
  closeGracePeriod?: number;
  /**
   * Bytes the client may still send after the answer that ends its connection (the rest of a
   * refused body, requests past `maxRequestsPerConnection`); they are read and discarded so the
   * answer reaches it, and the connection is cut past this. Default 8,388,608 (8 MiB).
   */
  maxDrainBytes?: number;
  /** ms from that answer until the connection is cut if the client has not closed it. Default 5,000. */
  drainTimeout?: number;
  /**
   * The verified identity of a request, from your own authentication (a bearer token check, mTLS).
   * Return undefined for anonymous requests; throw to refuse with 401. Never copy unverified headers.
   */
  authenticate?: (request: IncomingMessage) => AuthInfo | undefined | Promise<AuthInfo | undefined>;
  /**
   * OAuth 2.1 resource server (excludes `authenticate`): a `createResourceServer` result, or its
   * options, whose `resource` defaults to `publicUrl`, else this listener's URL. Every request then
   * needs a bearer token it verifies; the protected resource metadata is served. See the README.
   */
  auth?: ListenAuth;
  /**
   * The endpoint URL clients use when a reverse proxy sits in front (e.g. `https://mcp.example.com/mcp`).
   * Handlers see it as `context.url` (UI resources derive their sandbox domain from it) instead of
   * `http://<Host header><path>`.
   */
  publicUrl?: string;
}

export interface ResolvedListenOptions {
  readonly host: string;
  readonly port: number;
  readonly path: string;
  readonly maxConnections: number;
  readonly headTimeout: number;
  readonly bodyTimeout: number;
  readonly readTimeout: number;
  readonly maxHeaderBytes: number;
  readonly maxBodyBytes: number;
  readonly keepAliveTimeout: number;
  readonly maxRequestsPerConnection: number;
  readonly closeGracePeriod: number;
  readonly maxDrainBytes: number;
  readonly drainTimeout: number;
  readonly publicUrl: string | undefined;
}

const LISTENER_KEYS = new Set([
  'runtime',
  'port',
  'host',
  'path',
  'maxConnections',
  'headTimeout',
  'bodyTimeout',
  'readTimeout',
  'maxHeaderBytes',
  'keepAliveTimeout',
  'maxRequestsPerConnection',
  'closeGracePeriod',
  'maxDrainBytes',
  'drainTimeout',
  'authenticate',
  'auth',
  'publicUrl',
]);

/** What listen() takes: its own options and core's HTTP options (`shutdownSignal` is the listener's own). */
const LISTEN_OPTION_NAMES = [
  ...LISTENER_KEYS,
  ...HTTP_OPTION_NAMES.filter((name) => name !== 'shutdownSignal' && !LISTENER_KEYS.has(name)),
];

/** Validates the listener's own options once; the rest go to core's `resolveHttpOptions`. */
export function splitOptions(options: ListenOptions): { listener: ResolvedListenOptions; http: HttpOptions } {
  if (typeof options !== 'object' || options === null) throw invalid('listen() needs an options object');
  knownOptions('listen()', options, LISTEN_OPTION_NAMES);
  const { runtime, port } = options;
  if (typeof runtime !== 'object' || runtime === null || !('tools' in runtime)) {
    throw invalid('runtime must be a server runtime from createServer()');
  }
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw invalid(`port must be an integer from 0 to 65535, got ${String(port)}`);
  const host = options.host ?? DEFAULT_HOST;
  if (typeof host !== 'string' || host === '') throw invalid('host must be a non-empty string');
  const path = options.path ?? DEFAULT_PATH;
  if (typeof path !== 'string' || !path.startsWith('/'))
    throw invalid(`path must start with "/", got ${JSON.stringify(path)}`);
  if (options.authenticate !== undefined && typeof options.authenticate !== 'function') {
    throw invalid('authenticate must be a function');
  }
  if (options.authenticate !== undefined && options.auth !== undefined) {
    throw invalid('authenticate and auth exclude each other: auth verifies bearer tokens itself');
  }
  if (options.auth !== undefined && (typeof options.auth !== 'object' || options.auth === null)) {
    throw invalid('auth must be a resource server or its options');
  }
  const { publicUrl } = options;
  if (publicUrl !== undefined && !isHttpUrl(publicUrl)) {
    throw invalid(`publicUrl must be an absolute http(s) URL, got ${JSON.stringify(publicUrl)}`);
  }
  const http: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) if (!LISTENER_KEYS.has(key)) http[key] = value;
  http.path = path;
  if (isResourceServer(options.auth)) http.auth = options.auth;
  return {
    listener: Object.freeze({
      host,
      port,
      path,
      maxConnections: positive('maxConnections', options.maxConnections, DEFAULT_MAX_CONNECTIONS),
      headTimeout: positive('headTimeout', options.headTimeout, DEFAULT_HEAD_TIMEOUT),
      bodyTimeout: positive('bodyTimeout', options.bodyTimeout, DEFAULT_BODY_TIMEOUT),
      readTimeout: positive('readTimeout', options.readTimeout, DEFAULT_READ_TIMEOUT),
      maxHeaderBytes: positive('maxHeaderBytes', options.maxHeaderBytes, DEFAULT_MAX_HEADER_BYTES),
      maxBodyBytes: positive('maxBodyBytes', options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES),
      keepAliveTimeout: positive('keepAliveTimeout', options.keepAliveTimeout, DEFAULT_KEEP_ALIVE_TIMEOUT),
      maxRequestsPerConnection: positive(
        'maxRequestsPerConnection',
        options.maxRequestsPerConnection,
        DEFAULT_MAX_REQUESTS_PER_CONNECTION,
      ),
      closeGracePeriod: nonNegative('closeGracePeriod', options.closeGracePeriod, DEFAULT_CLOSE_GRACE_PERIOD),
      maxDrainBytes: positive('maxDrainBytes', options.maxDrainBytes, DEFAULT_MAX_DRAIN_BYTES),
      drainTimeout: positive('drainTimeout', options.drainTimeout, DEFAULT_DRAIN_TIMEOUT),
      publicUrl,
    }),
    http: http as HttpOptions,
  };
}

// Timers above 2^31-1 ms fire at once: every duration option stays below that.
const MAX_MS = 2_147_483_647;

function positive(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > MAX_MS) {
    throw invalid(`${name} must be a positive integer (at most ${MAX_MS}), got ${String(value)}`);
  }
  return value;
}

function nonNegative(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > MAX_MS) {
    throw invalid(`${name} must be a non-negative integer (at most ${MAX_MS}), got ${String(value)}`);
  }
  return value;
}

function invalid(message: string): SnodoError {
  return new SnodoError('SNODO_ERR_INVALID_OPTION', message);
}
