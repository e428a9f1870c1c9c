import type { IncomingMessage } from 'node:http';
import type { AuthInfo, HttpOptions, Runtime, SnodoError } from '@snodo/core';
import {
  COMMON_RULES,
  checkOption,
  checkOptions,
  duration,
  fn,
  HTTP_OPTIONS,
  integer,
  isResourceServer,
  type OptionRule,
  type OptionSchema,
  optionError,
  other,
  positive,
} from '@snodo/core/internal';
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

/** The listener's own options, with their rules. */
const LISTENER_OPTIONS: OptionSchema = Object.freeze({
  runtime: other('a server runtime from createServer()'),
  port: integer(0, 65535),
  host: other('a non-empty string'),
  path: other('a string starting with "/"'),
  maxConnections: positive,
  headTimeout: duration(1),
  bodyTimeout: COMMON_RULES.bodyTimeout,
  readTimeout: duration(1),
  maxHeaderBytes: positive,
  keepAliveTimeout: duration(1),
  maxRequestsPerConnection: positive,
  closeGracePeriod: duration(0),
  maxDrainBytes: COMMON_RULES.maxDrainBytes,
  drainTimeout: COMMON_RULES.drainTimeout,
  authenticate: fn,
  auth: other('a resource server or its options'),
  publicUrl: COMMON_RULES.publicUrl,
});

const LISTENER_KEYS = new Set(Object.keys(LISTENER_OPTIONS));

/**
 * What listen() takes, with every rule: its own options and core's HTTP options (`shutdownSignal`
 * is the listener's own). `maxBodyBytes` is both, with one rule.
 */
export const LISTEN_OPTIONS: OptionSchema = Object.freeze({
  ...Object.fromEntries(Object.entries(HTTP_OPTIONS).filter(([name]) => name !== 'shutdownSignal')),
  ...LISTENER_OPTIONS,
});

/** Validates the listener's own options once; the rest go to core's `resolveHttpOptions`. */
export function splitOptions(options: ListenOptions): { listener: ResolvedListenOptions; http: HttpOptions } {
  checkOptions('listen()', options, LISTEN_OPTIONS);
  const { runtime, port } = options;
  if (typeof runtime !== 'object' || runtime === null || !('tools' in runtime)) {
    throw invalid('runtime must be a server runtime from createServer()');
  }
  checkOption('port', port ?? null, LISTENER_OPTIONS.port as OptionRule);
  const host = options.host ?? DEFAULT_HOST;
  if (typeof host !== 'string' || host === '') throw invalid('host must be a non-empty string');
  const path = options.path ?? DEFAULT_PATH;
  if (typeof path !== 'string' || !path.startsWith('/'))
    throw invalid(`path must start with "/", got ${JSON.stringify(path)}`);
  if (options.authenticate !== undefined && options.auth !== undefined) {
    throw invalid('authenticate and auth exclude each other: auth verifies bearer tokens itself');
  }
  if (options.auth !== undefined && (typeof options.auth !== 'object' || options.auth === null)) {
    throw invalid('auth must be a resource server or its options');
  }
  const { publicUrl } = options;
  const http: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) if (!LISTENER_KEYS.has(key)) http[key] = value;
  http.path = path;
  if (isResourceServer(options.auth)) http.auth = options.auth;
  return {
    listener: Object.freeze({
      host,
      port,
      path,
      maxConnections: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
      headTimeout: options.headTimeout ?? DEFAULT_HEAD_TIMEOUT,
      bodyTimeout: options.bodyTimeout ?? DEFAULT_BODY_TIMEOUT,
      readTimeout: options.readTimeout ?? DEFAULT_READ_TIMEOUT,
      maxHeaderBytes: options.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES,
      maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      keepAliveTimeout: options.keepAliveTimeout ?? DEFAULT_KEEP_ALIVE_TIMEOUT,
      maxRequestsPerConnection: options.maxRequestsPerConnection ?? DEFAULT_MAX_REQUESTS_PER_CONNECTION,
      closeGracePeriod: options.closeGracePeriod ?? DEFAULT_CLOSE_GRACE_PERIOD,
      maxDrainBytes: options.maxDrainBytes ?? DEFAULT_MAX_DRAIN_BYTES,
      drainTimeout: options.drainTimeout ?? DEFAULT_DRAIN_TIMEOUT,
      publicUrl,
    }),
    http: http as HttpOptions,
  };
}

function invalid(message: string): SnodoError {
  return optionError(message);
}
