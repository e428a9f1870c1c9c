import { dirname, isAbsolute, resolve } from 'node:path';
import type { ConnectOptions } from '@snodo/client';
import { MAX_TIMER_DELAY, SUPPORTED_VERSIONS } from '@snodo/core';
import { z } from 'zod';
import type { BackendSpec } from '../backend.js';
import { BACKEND_ID } from '../defaults.js';
import type { ProxyOptions } from '../options.js';

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

const positive = z.number().int().positive();

const stdioTarget = z
  .object({
    command: z.string().min(1, 'must be a non-empty string'),
    args: z.array(z.string()).optional(),
    /** Added to PATH, HOME, USER, LOGNAME, SHELL, TERM, TMPDIR and LANG of the proxy. */
    env: z.record(z.string(), z.string()).optional(),
    /** Relative to the config file's directory (the default). */
    cwd: z.string().optional(),
  })
  .strict();

const target = z
  .object({
    stdio: stdioTarget.optional(),
    http: z.string().refine(isHttpUrl, 'must be an http: or https: URL').optional(),
  })
  .strict()
  .refine(
    (value) => (value.stdio === undefined) !== (value.http === undefined),
    'needs exactly one of stdio or http',
  );

const clientOptions = z
  .object({
    timeout: z.number().int().min(0).optional(),
    probeTimeout: z.number().int().min(0).optional(),
    protocolVersions: z
      .array(z.enum(SUPPORTED_VERSIONS as unknown as [string, ...string[]]))
      .min(1)
      .optional(),
    headers: z.record(z.string(), z.string()).optional(),
    /** HTTP backends: bytes of one answer (JSON body or SSE event), and the connection pool's size. */
    maxMessageBytes: positive.optional(),
    connections: positive.optional(),
    /** stdio backends: bytes of one line of the backend's stdout. */
    maxLineBytes: positive.optional(),
  })
  .strict();

/**
 * Options handed to `listen()` (`http`) or `serve()` (`stdio`) as they are, which check them with
 * their own rules: JSON values only, and none of the keys the command sets itself.
 */
function passedThrough(reserved: Readonly<Record<string, string>>) {
  return z
    .record(z.string(), z.union([z.number(), z.string(), z.boolean()]))
    .superRefine((options, context) => {
      for (const name of Object.keys(options)) {
        const instead = reserved[name];
        if (instead !== undefined)
          context.addIssue({ code: 'custom', path: [name], message: `is set by ${instead}` });
      }
    });
}

const LISTEN_SET_BY: Readonly<Record<string, string>> = {
  runtime: 'the command',
  host: 'listen.host',
  port: 'listen.port',
  path: 'listen.path',
  authenticate: 'frontendTokens',
  auth: 'auth',
  cors: 'corsOrigins',
  health: 'health',
};
const SERVE_SET_BY: Readonly<Record<string, string>> = {
  input: 'the command (stdin)',
  output: 'the command (stdout)',
  signal: 'the command (SIGINT, SIGTERM)',
  console: 'the command (stderr from the start)',
};

/** ms before a call becomes a task of the proxy's own, or false: never. */
const taskAfterMs = z.union([z.literal(false), z.number().int().min(0).max(MAX_TIMER_DELAY)]);

const backend = z
  .object({
    id: z.string().regex(BACKEND_ID, `must match ${BACKEND_ID.source}`).max(64),
    target,
    prefix: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{0,63}$/, 'must be at most 63 of the characters A-Z a-z 0-9 _ . -')
      .optional(),
    clientOptions: clientOptions.optional(),
    sessionMode: z.enum(['per-principal', 'shared']).optional(),
    maxSessions: positive.optional(),
    taskAfterMs: taskAfterMs.optional(),
  })
  .strict();

/** `snodo-proxy`'s config file: the library's options, plus where to listen and the frontend tokens. */
export const CONFIG_SCHEMA = z
  .object({
    listen: z
      .object({
        host: z.string().min(1).default('127.0.0.1'),
        port: z.number().int().min(0).max(65_535).default(4_000),
        path: z.string().startsWith('/', 'must start with /').default('/mcp'),
      })
      .strict()
      .default({ host: '127.0.0.1', port: 4_000, path: '/mcp' }),
    backends: z.array(backend).default([]),
    maxBackends: positive.optional(),
    maxCatalogItems: positive.optional(),
    healthIntervalMs: positive.optional(),
    reconnectDelayMs: positive.optional(),
    maxBackendSessions: positive.optional(),
    backendSessionIdleMs: positive.max(MAX_TIMER_DELAY).optional(),
    taskAfterMs: taskAfterMs.optional(),
    separator: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,8}$/, 'must be 1 to 8 of the characters A-Z a-z 0-9 _ . -')
      .optional(),
    /** Bearer tokens frontends must send over HTTP (`Authorization: Bearer <token>`); none: no check. */
    frontendTokens: z.array(z.string().min(16, 'must be at least 16 characters')).min(1).optional(),
    /** OAuth 2.1 resource server for the HTTP frontend (core's `createResourceServer` options). */
    auth: z
      .object({
        authorizationServers: z.array(z.string().refine(isHttpUrl, 'must be an http: or https: URL')).min(1),
        resource: z.string().refine(isHttpUrl, 'must be an http: or https: URL').optional(),
        requiredScopes: z.array(z.string().min(1)).optional(),
        scopesSupported: z.array(z.string().min(1)).optional(),
        resourceName: z.string().optional(),
        clockSkew: z.number().int().min(0).optional(),
        introspection: z
          .object({ clientId: z.string().min(1), clientSecret: z.string() })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
    /** Browser origins allowed to call the HTTP frontend (CORS); `["*"]` for any. */
    corsOrigins: z.array(z.string().min(1)).min(1).optional(),
    /** `GET /healthz` on the HTTP frontend: the executor's stats and every backend's health. */
    health: z.boolean().default(false),
    /** More options of the HTTP frontend's `listen()` (bounds, timeouts, executor shortcuts). */
    http: passedThrough(LISTEN_SET_BY).optional(),
    /** More options of the stdio frontend's `serve()` (`maxLineBytes`, `requestTimeout`, …). */
    stdio: passedThrough(SERVE_SET_BY).optional(),
  })
  .strict()
  .superRefine((config, context) => {
    if (config.auth && config.frontendTokens) {
      context.addIssue({
        code: 'custom',
        path: ['auth'],
        message: 'auth and frontendTokens exclude each other',
      });
    }
    const seen = new Set<string>();
    config.backends.forEach((item, index) => {
      if (seen.has(item.id))
        context.addIssue({
          code: 'custom',
          path: ['backends', index, 'id'],
          message: `duplicate id ${JSON.stringify(item.id)}`,
        });
      seen.add(item.id);
    });
  });

export type ProxyConfig = z.infer<typeof CONFIG_SCHEMA>;

/** Every problem of a config, one line each: `<path>: <message>`. */
export function configProblems(error: z.ZodError): string[] {
  return error.issues.map(
    (issue) => `${issue.path.length === 0 ? '(top level)' : issue.path.join('.')}: ${issue.message}`,
  );
}

/** Parses a config value: `{ config }`, or `{ problems }` naming every error with its path. */
export function parseConfig(value: unknown): { config: ProxyConfig } | { problems: string[] } {
  const parsed = CONFIG_SCHEMA.safeParse(value);
  return parsed.success ? { config: parsed.data } : { problems: configProblems(parsed.error) };
}

const INHERITED_ENV = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'TMPDIR', 'LANG', 'SYSTEMROOT'];

/** The library's options for a parsed config; stdio `cwd` is resolved against the config file's directory. */
export function proxyOptions(config: ProxyConfig, configPath: string): ProxyOptions {
  const base = dirname(resolve(configPath));
  const backends = config.backends.map((item): BackendSpec => {
    let spec: BackendSpec;
    if (item.target.stdio) {
      const { command, args, env, cwd } = item.target.stdio;
      const inherited: Record<string, string> = {};
      for (const name of INHERITED_ENV) {
        const value = process.env[name];
        if (value !== undefined) inherited[name] = value;
      }
      spec = {
        id: item.id,
        target: {
          stdio: {
            command,
            ...(args === undefined ? {} : { args }),
            env: { ...inherited, ...env },
            cwd: cwd === undefined ? base : isAbsolute(cwd) ? cwd : resolve(base, cwd),
          },
        },
      };
    } else {
      spec = { id: item.id, target: { http: item.target.http as string } };
    }
    if (item.prefix !== undefined) spec.prefix = item.prefix;
    if (item.clientOptions !== undefined) spec.clientOptions = item.clientOptions as ConnectOptions;
    if (item.sessionMode !== undefined) spec.sessionMode = item.sessionMode;
    if (item.maxSessions !== undefined) spec.maxSessions = item.maxSessions;
    if (item.taskAfterMs !== undefined) spec.taskAfterMs = item.taskAfterMs;
    return spec;
  });
  return {
    backends,
    ...(config.maxBackends === undefined ? {} : { maxBackends: config.maxBackends }),
    ...(config.maxCatalogItems === undefined ? {} : { maxCatalogItems: config.maxCatalogItems }),
    ...(config.healthIntervalMs === undefined ? {} : { healthIntervalMs: config.healthIntervalMs }),
    ...(config.reconnectDelayMs === undefined ? {} : { reconnectDelayMs: config.reconnectDelayMs }),
    ...(config.separator === undefined ? {} : { separator: config.separator }),
    ...(config.maxBackendSessions === undefined ? {} : { maxBackendSessions: config.maxBackendSessions }),
    ...(config.backendSessionIdleMs === undefined
      ? {}
      : { backendSessionIdleMs: config.backendSessionIdleMs }),
    ...(config.taskAfterMs === undefined ? {} : { taskAfterMs: config.taskAfterMs }),
  };
}
