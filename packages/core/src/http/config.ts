import type { ResourceServer } from '../auth/resource-server.js';
import { type ControlChannel, isControlChannel } from '../engine/control.js';
import { optionError } from '../errors/table.js';
import { Executor } from '../executor/executor.js';
import type { DecodeLimits } from '../jsonrpc/decode.js';
import { DEFAULT_MAX_BATCH_ITEMS } from '../limits/defaults.js';
import {
  COMMON_RULES,
  checkOptions,
  describeValue,
  instance,
  type OptionSchema,
  other,
  positive,
} from '../limits/validate.js';
import type { Logger } from '../telemetry/log.js';
import { type CorsOptions, type CorsRules, parseCors } from './cors.js';
import {
  DEFAULT_ALLOWED_ORIGIN_HOSTS,
  DEFAULT_KEEP_ALIVE_INTERVAL,
  DEFAULT_MAX_BODY_BYTES,
} from './defaults.js';
import { type HealthConfig, type HealthOptions, parseAuth, parseHealth } from './edge.js';
import { type HostRule, type OriginPredicate, parseAllowedOrigins, parseHostRules } from './origin.js';
import { CancellationScopes } from './scopes.js';
import { LocalSessions, MemorySessionStore, type SessionStore } from './sessions.js';

/** Options of core's Streamable HTTP handling, shared by every host adapter. */
export interface HttpOptions {
  /** Only this path is served (other paths: 404). Default: every path (the host routes). */
  path?: string;
  /**
   * Hosts an `Origin` header may name: `name` accepts any port, `name:port` only that port.
   * Default: `localhost`, `127.0.0.1`, `[::1]`. Requests without `Origin` are not affected.
   */
  allowedOriginHosts?: readonly string[];
  /**
   * Origins allowed besides those: a list (`https://app.example.com`; scheme, host and port must
   * match) or a predicate over the `Origin` value as sent. Default: none. An Origin is allowed when
   * `allowedOriginHosts` matches its host, when it is the request's own origin over HTTPS, or when
   * this allows it.
   */
  allowedOrigins?: readonly string[] | ((origin: string) => boolean);
  /** When set, the `Host` header must name one of these (same syntax). Default: off. */
  allowedHosts?: readonly string[];
  /** `: keepalive` comment interval of an idle SSE response, in ms. Default 15,000. */
  keepAliveInterval?: number;
  /** Largest body accepted, in bytes (413 above). Default 2,000,000. */
  maxBodyBytes?: number;
  /** Deadline of each request, in ms; 0 disables it. Default: the executor's (60,000). */
  requestTimeout?: number;
  /** Runs the requests (bounded admission). Default: a new `Executor` built from the three options below. */
  executor?: Executor;
  /** For the default executor: requests running at once (default 64). */
  maxConcurrency?: number;
  /** For the default executor: requests waiting for a slot (default 256); more get -32000. */
  maxQueue?: number;
  /** For the default executor: open subscription streams (default 256); more get 503. */
  maxSubscriptions?: number;
  /**
   * Seconds of `Retry-After` on a 503 for a request the executor refuses (full or shutting down),
   * for load balancers that route on status. Default: off, and the refusal is a 200 carrying
   * -32000, the only form the official clients read the error from.
   */
  overloadRetryAfter?: number;
  /**
   * Where the control messages of a session go (`notifications/cancelled`, answers to
   * server-initiated requests, session updates, DELETE): a `ControlChannel` that can route them to
   * the instance holding their target, for several instances behind one endpoint. Default: a
   * `MemoryControlChannel` (this instance only).
   */
  control?: ControlChannel;
  /** Sessions of the initialize-based revisions. Default: a `MemorySessionStore` with the two options below. */
  sessionStore?: SessionStore;
  /** For the default store: sessions held, least recently used evicted first. Default 10,000. */
  maxSessions?: number;
  /** For the default store: idle expiry in ms (0: never). Default 1,800,000 (30 min). */
  sessionIdleTimeout?: number;
  /**
   * Items one JSON-RPC batch (2025-03-26) may hold, notifications included; a longer batch gets
   * 400 with -32600 (`data.maxBatchItems`) and nothing of it runs. Default 100.
   */
  maxBatchItems?: number;
  /** JSON decoding bounds (`decodeMessage`): digits of an integer, bytes of an id. */
  decodeLimits?: DecodeLimits;
  /**
   * Aborted when the host shuts down: open subscription streams then end gracefully with their
   * final response. Running requests are left to finish (the host decides how long). The health
   * route answers 503 once it is aborted.
   */
  shutdownSignal?: AbortSignal;
  /**
   * OAuth 2.1 resource server: every request needs a bearer token this verifies (401/403 with
   * `WWW-Authenticate` otherwise), and the protected resource metadata is served. Build it with
   * `await createResourceServer({ resource, authorizationServers })`. A request whose host already
   * set `auth` (its own authentication) is not checked again. Default: off.
   */
  auth?: ResourceServer;
  /** Cross-origin access for browser clients (preflight answered, headers exposed). Default: off. */
  cors?: CorsOptions;
  /** `GET /healthz` (or `health.path`): 200 with the executor's stats, 503 while closing. Default: off. */
  health?: boolean | HealthOptions;
}

/** Options validated once, with the state they imply (executor, session store, running requests). */
export interface HttpConfig {
  readonly path: string | undefined;
  readonly originRules: readonly HostRule[];
  readonly allowedOrigins: OriginPredicate | undefined;
  readonly hostRules: readonly HostRule[] | undefined;
  readonly keepAliveInterval: number;
  readonly maxBodyBytes: number;
  readonly requestTimeout: number | undefined;
  readonly executor: Executor;
  /** Seconds of `Retry-After` on the 503 of an executor refusal; undefined: a 200 with -32000. */
  readonly overloadRetryAfter: number | undefined;
  readonly sessions: SessionStore;
  readonly local: LocalSessions;
  /** The 2026-07-28 requests running per cancellation scope (`HttpRequest.cancellationScope`). */
  readonly scopes: CancellationScopes;
  readonly maxBatchItems: number;
  readonly decodeLimits: DecodeLimits | undefined;
  readonly shutdownSignal: AbortSignal | undefined;
  readonly auth: ResourceServer | undefined;
  readonly cors: CorsRules | undefined;
  readonly health: HealthConfig | undefined;
}

const kConfig = Symbol.for('snodo.HttpConfig');

/**
 * Validates options once (the message names the option and its rule) and builds the state they
 * imply: each call makes a new executor, session store and control channel unless given. `logger`
 * (the runtime's) goes to the executor it makes, which logs when it refuses work as overloaded.
 */
export function resolveHttpOptions(options: HttpOptions = {}, logger?: Logger): HttpConfig {
  if (isConfig(options)) return options;
  checkOptions('HTTP', options, HTTP_OPTIONS);
  if (options.path !== undefined && (typeof options.path !== 'string' || !options.path.startsWith('/'))) {
    throw optionError(`path must be a string starting with "/", got ${JSON.stringify(options.path)}`);
  }
  if (options.executor !== undefined) {
    for (const name of ['maxConcurrency', 'maxQueue', 'maxSubscriptions'] as const) {
      if (options[name] !== undefined) {
        throw optionError(
          `${name} configures the executor Snodo creates; set it on the executor you pass instead`,
        );
      }
    }
  }
  if (options.control !== undefined && !isControlChannel(options.control)) {
    throw optionError(
      `control must be a ControlChannel (attach and deliver methods), got ${describeValue(options.control)}`,
    );
  }
  if (options.sessionStore !== undefined) {
    const store = options.sessionStore as Partial<SessionStore>;
    if (
      typeof store?.get !== 'function' ||
      typeof store.set !== 'function' ||
      typeof store.delete !== 'function'
    ) {
      throw optionError('sessionStore must have get, set and delete methods');
    }
    for (const name of ['maxSessions', 'sessionIdleTimeout'] as const) {
      if (options[name] !== undefined) {
        throw optionError(
          `${name} configures the in-memory session store; set it on the sessionStore you pass instead`,
        );
      }
    }
  }
  const requestTimeout = options.requestTimeout;
  if (
    options.shutdownSignal !== undefined &&
    typeof options.shutdownSignal?.addEventListener !== 'function'
  ) {
    throw optionError('shutdownSignal must be an AbortSignal');
  }
  const executor =
    options.executor ??
    new Executor({
      maxConcurrency: options.maxConcurrency,
      maxQueue: options.maxQueue,
      maxSubscriptions: options.maxSubscriptions,
      logger,
    });
  const config: HttpConfig = {
    path: options.path,
    originRules: parseHostRules(
      'allowedOriginHosts',
      options.allowedOriginHosts ?? DEFAULT_ALLOWED_ORIGIN_HOSTS,
    ),
    allowedOrigins: parseAllowedOrigins(options.allowedOrigins),
    hostRules:
      options.allowedHosts === undefined ? undefined : parseHostRules('allowedHosts', options.allowedHosts),
    keepAliveInterval: options.keepAliveInterval ?? DEFAULT_KEEP_ALIVE_INTERVAL,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    // undefined: the executor's own deadline; 0 disables it (the executor's rule).
    requestTimeout,
    executor,
    overloadRetryAfter: options.overloadRetryAfter,
    sessions:
      options.sessionStore ??
      new MemorySessionStore({
        maxSessions: options.maxSessions,
        sessionIdleTimeout: options.sessionIdleTimeout,
      }),
    local: new LocalSessions(options.control),
    scopes: new CancellationScopes(),
    maxBatchItems: options.maxBatchItems ?? DEFAULT_MAX_BATCH_ITEMS,
    decodeLimits: options.decodeLimits,
    shutdownSignal: options.shutdownSignal,
    auth: parseAuth(options.auth),
    cors: parseCors(options.cors),
    health: parseHealth(options.health),
  };
  Object.defineProperty(config, kConfig, { value: true });
  return Object.freeze(config);
}

/** Every option `resolveHttpOptions` takes, with its rule; hosts add their own to it. */
export const HTTP_OPTIONS: OptionSchema = Object.freeze({
  path: other('a string starting with "/"'),
  allowedOriginHosts: other('a list of host or host:port'),
  allowedOrigins: other('a list of origins or a predicate'),
  allowedHosts: other('a list of host or host:port'),
  keepAliveInterval: COMMON_RULES.keepAliveInterval,
  maxBodyBytes: COMMON_RULES.maxBodyBytes,
  requestTimeout: COMMON_RULES.requestTimeout,
  executor: instance(Executor, 'an Executor'),
  maxConcurrency: COMMON_RULES.maxConcurrency,
  maxQueue: COMMON_RULES.maxQueue,
  maxSubscriptions: COMMON_RULES.maxSubscriptions,
  overloadRetryAfter: positive,
  control: other('a ControlChannel (attach and deliver methods)'),
  sessionStore: other('a session store (get, set, delete)'),
  maxSessions: COMMON_RULES.maxSessions,
  sessionIdleTimeout: COMMON_RULES.sessionIdleTimeout,
  maxBatchItems: COMMON_RULES.maxBatchItems,
  decodeLimits: other('decode limits'),
  shutdownSignal: other('an AbortSignal'),
  auth: other('a resource server or its options'),
  cors: other('CORS options'),
  health: other('health options'),
});

/** The names of `HTTP_OPTIONS`. */
export const HTTP_OPTION_NAMES = Object.keys(HTTP_OPTIONS) as readonly (keyof HttpOptions)[];

export function isConfig(value: unknown): value is HttpConfig {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[kConfig] === true;
}

/**
 * The same configuration (executor, session store, running requests) with `auth` set, for a host
 * that can build its resource server only once bound (its URL is the default `resource`).
 */
export function withAuth(config: HttpConfig, auth: ResourceServer): HttpConfig {
  const next: HttpConfig = { ...config, auth: parseAuth(auth) };
  Object.defineProperty(next, kConfig, { value: true });
  return Object.freeze(next);
}
