import {
  createHttpHandler,
  DEFAULT_DRAIN_TIMEOUT,
  DEFAULT_MAX_DRAIN_BYTES,
  type HttpConfig,
  type HttpHandler,
  type HttpOptions,
  type Runtime,
  SnodoError,
} from '@snodo/core';
import { HTTP_OPTION_NAMES, handlerConfig, knownOptions } from '@snodo/core/internal';
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
   * (after the application's `onRequest` and `preParsing` hooks): 408 after. 0 disables it.
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

// Timers above 2^31-1 ms fire at once.
const MAX_MS = 2_147_483_647;

/** Core options a Fastify application has its own way for. */
const APP_CONCERNS: Readonly<Record<string, string>> = {
  cors: 'register @fastify/cors',
  health: 'add a health route to the application',
};

/** Options Fastify's `register` takes for itself; they reach the plugin function too. */
const REGISTER_OPTIONS = ['prefix', 'logLevel', 'logSerializers'] as const;

/** What the plugin takes: its own options, Fastify's register options and core's HTTP options. */
const PLUGIN_OPTION_NAMES = [
  'runtime',
  'path',
  'bodyTimeout',
  'maxDrainBytes',
  'drainTimeout',
  'publicUrl',
  ...REGISTER_OPTIONS,
  ...HTTP_OPTION_NAMES.filter((name) => name !== 'path' && !(name in APP_CONCERNS)),
];

function optionError(message: string): SnodoError {
  return new SnodoError('SNODO_ERR_INVALID_OPTION', message);
}

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
  knownOptions('@snodo/fastify', options, PLUGIN_OPTION_NAMES);
  const {
    runtime,
    path = DEFAULT_PATH,
    bodyTimeout = DEFAULT_BODY_TIMEOUT,
    maxDrainBytes = DEFAULT_MAX_DRAIN_BYTES,
    drainTimeout = DEFAULT_DRAIN_TIMEOUT,
    publicUrl,
    ...rest
  } = options;
  if (publicUrl !== undefined && !/^https?:\/\/[^/?#]+/.test(String(publicUrl))) {
    throw optionError(`publicUrl must be an absolute http(s) URL, got ${JSON.stringify(publicUrl)}`);
  }
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
  if (typeof bodyTimeout !== 'number' || !Number.isInteger(bodyTimeout) || bodyTimeout < 0) {
    throw optionError(
      `bodyTimeout must be a non-negative integer of milliseconds, got ${String(bodyTimeout)}`,
    );
  }
  for (const [name, value] of [
    ['maxDrainBytes', maxDrainBytes],
    ['drainTimeout', drainTimeout],
  ] as const) {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > MAX_MS) {
      throw optionError(`${name} must be a positive integer (at most ${MAX_MS}), got ${String(value)}`);
    }
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
