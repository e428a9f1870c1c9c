import {
  createHttpHandler,
  DEFAULT_DRAIN_TIMEOUT,
  DEFAULT_MAX_DRAIN_BYTES,
  type HttpConfig,
  type HttpHandler,
  type HttpOptions,
  type Runtime,
} from '@snodo/core';
import {
  COMMON_RULES,
  checkOptions,
  HTTP_OPTIONS,
  handlerConfig,
  type OptionSchema,
  optionError,
  other,
} from '@snodo/core/internal';
import type { BodyLimits } from './body.js';
import { DEFAULT_BODY_TIMEOUT, DEFAULT_PATH } from './defaults.js';
import type { DrainBounds } from './drain.js';

/**
 * Options of `app.register(snodo, options)`. Besides the three below, every option of core's HTTP
 * handling (`HttpOptions`) except `path` (Fastify routes here) applies as documented there.
 */
export interface SnodoFastifyOptions extends Omit<HttpOptions, 'path' | 'cors' | 'health'> {
  /** The server to serve (`createServer(...)`). */
  runtime: Runtime;
  /** The route's path inside the scope the plugin is registered in (its prefix is added). Default `/mcp`. */
  path?: string;
  /**
   * Milliseconds the whole request body may take, counted from when the plugin starts reading it
   * (after the application's `onRequest` and `preParsing` hooks): 408 after. From 1 to 2,147,483,647.
   * Default 10,000.
   */
  bodyTimeout?: number;
  /**
   * Bytes of a refused body (413) read and discarded after the answer, so the client reads
   * the answer while it is still sending and the connection serves its next request. A declared
   * body larger than this is not read: the answer closes the connection. Default 8,388,608 (8 MiB).
   */
  maxDrainBytes?: number;
  /** Milliseconds that draining may take before the connection is cut. Default 5,000. */
  drainTimeout?: number;
  /**
   * The endpoint URL clients use, when a proxy in front rewrites it (e.g. `https://mcp.example.com/api/mcp`).
   * Handlers see it as `context.url` (UI resources derive their sandbox domain from it). Without it
   * the URL is `request.protocol://request.host` + the route's path, which honours Fastify's
   * `trustProxy` (X-Forwarded-Proto/Host).
   */
  publicUrl?: string;
}

/** The options validated once, at registration. */
export interface PluginConfig {
  readonly runtime: Runtime;
  readonly path: string;
  readonly limits: BodyLimits;
  readonly drain: DrainBounds;
  /** Core's handler: the plugin converts Fastify's request in, calls it, and writes what it returns. */
  readonly handler: HttpHandler;
  readonly http: HttpConfig;
  /** Whether the executor is the plugin's own (closed with the application) or the caller's. */
  readonly ownsExecutor: boolean;
  readonly publicUrl: string | undefined;
}

/** Core options a Fastify application has its own way for. */
const APP_CONCERNS: Readonly<Record<string, string>> = {
  cors: 'register @fastify/cors',
  health: 'add a health route to the application',
};

/** Options Fastify's `register` takes for itself; they reach the plugin function too. */
const REGISTER_OPTIONS = ['prefix', 'logLevel', 'logSerializers'] as const;

/** What the plugin takes, with every rule: its own options, Fastify's register options and core's HTTP options. */
export const PLUGIN_OPTIONS: OptionSchema = Object.freeze({
  runtime: other('a server runtime from createServer()'),
  ...Object.fromEntries(
    Object.entries(HTTP_OPTIONS).filter(([name]) => name !== 'path' && !(name in APP_CONCERNS)),
  ),
  path: other('a string starting with "/"'),
  bodyTimeout: COMMON_RULES.bodyTimeout,
  maxDrainBytes: COMMON_RULES.maxDrainBytes,
  drainTimeout: COMMON_RULES.drainTimeout,
  publicUrl: COMMON_RULES.publicUrl,
  ...Object.fromEntries(REGISTER_OPTIONS.map((name) => [name, other("Fastify's register option")])),
});

/**
 * Validates the plugin options; the message names the option and its rule. Core validates and
 * resolves its own options (unknown names included), so a typo fails at registration.
 */
export function resolveOptions(options: SnodoFastifyOptions, shutdownSignal: AbortSignal): PluginConfig {
  if (typeof options !== 'object' || options === null) throw optionError('options must be an object');
  for (const [name, instead] of Object.entries(APP_CONCERNS)) {
    if ((options as unknown as Record<string, unknown>)[name] !== undefined)
      throw optionError(`${name} is the application's in Fastify: ${instead}`);
  }
  checkOptions('@snodo/fastify', options, PLUGIN_OPTIONS);
  const {
    runtime,
    path = DEFAULT_PATH,
    bodyTimeout = DEFAULT_BODY_TIMEOUT,
    maxDrainBytes = DEFAULT_MAX_DRAIN_BYTES,
    drainTimeout = DEFAULT_DRAIN_TIMEOUT,
    publicUrl,
    ...rest
  } = options;
  const httpOptions: Record<string, unknown> = { ...rest };
  for (const name of REGISTER_OPTIONS) delete httpOptions[name];
  if (path === '' || typeof path !== 'string' || !path.startsWith('/')) {
    throw optionError(`path must be a string starting with "/", got ${JSON.stringify(path)}`);
  }
  if (
    typeof runtime !== 'object' ||
    runtime === null ||
    !Array.isArray((runtime as Partial<Runtime>).versions)
  ) {
    throw optionError('runtime is required: pass the value createServer() returned');
  }
  const given = httpOptions.shutdownSignal as AbortSignal | undefined;
  if (given !== undefined && typeof given?.addEventListener !== 'function') {
    throw optionError('shutdownSignal must be an AbortSignal');
  }
  const handler = createHttpHandler(runtime, {
    ...(httpOptions as HttpOptions),
    shutdownSignal,
    bodyTimeout,
  });
  const http = handlerConfig(handler);
  return {
    handler,
    runtime,
    path,
    limits: { maxBodyBytes: http.maxBodyBytes, bodyTimeout },
    drain: { maxDrainBytes, drainTimeout },
    http,
    ownsExecutor: options.executor === undefined,
    publicUrl,
  };
}
