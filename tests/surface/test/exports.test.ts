import { describe, expect, it } from 'vitest';

// The runtime exports of every package, pinned: adding, removing or renaming one is a decision
// this file records (update with `vitest run -u`, and say why in the changeset).
const PACKAGES = [
  'core',
  'client',
  'proxy',
  'redis',
  'transport-http',
  'transport-stdio',
  'fastify',
] as const;

async function exportsOf(specifier: string): Promise<string[]> {
  return Object.keys(await import(specifier)).sort();
}

describe('the runtime exports of each package', () => {
  it('@snodo/core', async () => {
    expect(await exportsOf('@snodo/core')).toMatchInlineSnapshot(`
      [
        "AUTH_REFUSALS",
        "CORE_ERRORS",
        "ClientRequestError",
        "DEFAULT_ALLOWED_ORIGIN_HOSTS",
        "DEFAULT_AUTH_FETCH_TIMEOUT",
        "DEFAULT_BODY_TIMEOUT",
        "DEFAULT_CACHE_SCOPE",
        "DEFAULT_CLIENT_REQUEST_TIMEOUT",
        "DEFAULT_CLOCK_SKEW",
        "DEFAULT_CORS_MAX_AGE",
        "DEFAULT_DRAIN_TIMEOUT",
        "DEFAULT_HEALTH_PATH",
        "DEFAULT_JWKS_COOLDOWN",
        "DEFAULT_KEEP_ALIVE_INTERVAL",
        "DEFAULT_MAX_BATCH_ITEMS",
        "DEFAULT_MAX_BODY_BYTES",
        "DEFAULT_MAX_CONCURRENCY",
        "DEFAULT_MAX_DRAIN_BYTES",
        "DEFAULT_MAX_ID_BYTES",
        "DEFAULT_MAX_INPUT_ROUNDS",
        "DEFAULT_MAX_INTEGER_DIGITS",
        "DEFAULT_MAX_LISTEN_TASK_IDS",
        "DEFAULT_MAX_QUEUE",
        "DEFAULT_MAX_RESERVED_EXPRESSIONS",
        "DEFAULT_MAX_RUNNING_TASKS",
        "DEFAULT_MAX_SESSIONS",
        "DEFAULT_MAX_STREAM_BUFFER",
        "DEFAULT_MAX_SUBSCRIPTIONS",
        "DEFAULT_MAX_TASKS",
        "DEFAULT_MAX_TOKEN_LENGTH",
        "DEFAULT_MAX_URI_LENGTH",
        "DEFAULT_PAGE_SIZE",
        "DEFAULT_REQUEST_STATE_TTL_MS",
        "DEFAULT_REQUEST_TIMEOUT",
        "DEFAULT_SESSION_IDLE_TIMEOUT",
        "DEFAULT_SUBSCRIPTION_QUEUE",
        "DEFAULT_TASK_AFTER_MS",
        "DEFAULT_TASK_LEASE_MS",
        "DEFAULT_TASK_POLL_INTERVAL_MS",
        "DEFAULT_TASK_RESULT_TTL_MS",
        "DEFAULT_TASK_TIMEOUT",
        "DEFAULT_TTL_MS",
        "DIALECTS",
        "ERROR_TABLE",
        "ErrorCode",
        "Executor",
        "ExecutorError",
        "JsonInt",
        "LEGACY_VERSIONS",
        "LOG_LEVELS",
        "MAX_CLOCK_SKEW",
        "MAX_COMPLETION_VALUES",
        "MAX_MRTR_KEYS",
        "MAX_TIMER_DELAY",
        "META",
        "MIN_MRTR_SECRET_BYTES",
        "MODERN_VERSIONS",
        "MemoryControlChannel",
        "MemorySessionStore",
        "ProtocolError",
        "SUPPORTED_VERSIONS",
        "SnodoError",
        "TASKS_EXTENSION",
        "TaskManager",
        "UI_EXTENSION",
        "UI_MIME_TYPE",
        "UI_RESOURCE_URI_META_KEY",
        "UriTemplateError",
        "bearerChallenge",
        "bodyRefusal",
        "compareTemplatePrecedence",
        "createChangeHub",
        "createClientRequests",
        "createFetchHandler",
        "createHttpHandler",
        "createMemoryTaskStore",
        "createResourceServer",
        "createServer",
        "createTaskManager",
        "decodeJson",
        "decodeMessage",
        "defineErrors",
        "dialectFor",
        "dispatch",
        "dispatchBatch",
        "encodeJson",
        "execute",
        "httpStatusForCode",
        "isKnownVersion",
        "isStreamResponse",
        "openSessionNotifications",
        "paramHeadersOf",
        "parseUriTemplate",
        "prepare",
        "prompt",
        "readBody",
        "resolveHttpOptions",
        "resource",
        "resourceMetadata",
        "resourceTemplate",
        "sandboxDomain",
        "sseText",
        "tool",
        "uiResource",
      ]
    `);
  });

  it('@snodo/core/internal, the seam for sibling packages', async () => {
    expect(await exportsOf('@snodo/core/internal')).toMatchInlineSnapshot(`
      [
        "ATTR",
        "COMMON_RULES",
        "Connection",
        "DeadlineList",
        "HTTP_OPTIONS",
        "HTTP_OPTION_NAMES",
        "LazySignal",
        "MessageStream",
        "authRefusal",
        "authorizeHandler",
        "branded",
        "callToolAsTask",
        "canUseTasks",
        "checkBearer",
        "checkOption",
        "checkOptions",
        "classifyMessage",
        "compileSchema",
        "coreError",
        "createSession",
        "createTaskResult",
        "declaresExtension",
        "deriveRuntime",
        "describeRule",
        "detailedTask",
        "duration",
        "encodeCursor",
        "enumOf",
        "errorFromRow",
        "errorMessage",
        "escapeNonAscii",
        "flattenHeaders",
        "fn",
        "handlerBodyLimits",
        "handlerConfig",
        "hostAuthRefusal",
        "idText",
        "instance",
        "instruments",
        "integer",
        "isBranded",
        "isEdgePath",
        "isHttpUrl",
        "isObserved",
        "isResourceServer",
        "isResponse",
        "isTerminal",
        "knownOptions",
        "loadOtel",
        "loadedOtel",
        "log",
        "loggerProblem",
        "metadataPaths",
        "nonNegative",
        "nonNegativeInteger",
        "openExtensionFeeds",
        "openListen",
        "option",
        "optionError",
        "other",
        "paginate",
        "pipeSession",
        "positive",
        "positiveInteger",
        "requestKey",
        "rowMessage",
        "selectRevision",
        "statusFor",
        "targetOf",
        "traceFields",
        "trackSession",
        "url",
        "withAuth",
        "withCors",
        "withSession",
        "writeNodeResponse",
      ]
    `);
  });

  it('@snodo/client', async () => {
    expect(await exportsOf('@snodo/client')).toMatchInlineSnapshot(`
      [
        "CLIENT_ERRORS",
        "CLIENT_VERSION",
        "Client",
        "DEFAULT_CALL_TIMEOUT",
        "DEFAULT_CLIENT_SUBSCRIPTION_QUEUE",
        "DEFAULT_EXIT_TIMEOUT",
        "DEFAULT_HTTP_CONNECTIONS",
        "DEFAULT_MAX_CACHE_ENTRIES",
        "DEFAULT_MAX_INPUT_ROUNDS",
        "DEFAULT_MAX_LINE_BYTES",
        "DEFAULT_MAX_MESSAGE_BYTES",
        "DEFAULT_MAX_PAGES",
        "DEFAULT_MAX_TASK_POLL_INTERVAL",
        "DEFAULT_PROBE_TIMEOUT",
        "DEFAULT_TASK_POLL_INTERVAL",
        "DEFAULT_TERM_TIMEOUT",
        "DirectTransport",
        "HttpTransport",
        "OAuthClient",
        "ProtocolError",
        "SnodoError",
        "StdioTransport",
        "Subscription",
        "TaskClient",
        "TimeoutError",
        "TransportError",
        "challengeParams",
        "connect",
        "encodeHeaderValue",
        "paramHeaderValues",
        "toolHeaders",
      ]
    `);
  });

  it('@snodo/proxy', async () => {
    expect(await exportsOf('@snodo/proxy')).toMatchInlineSnapshot(`
      [
        "BACKEND_ID",
        "DEFAULT_BACKEND_SESSION_IDLE_MS",
        "DEFAULT_HEALTH_INTERVAL_MS",
        "DEFAULT_INPUT_TIMEOUT_MS",
        "DEFAULT_MAX_BACKENDS",
        "DEFAULT_MAX_BACKEND_SESSIONS",
        "DEFAULT_MAX_CATALOG_ITEMS",
        "DEFAULT_MAX_INPUT_ROUNDS",
        "DEFAULT_MAX_PARKED_CALLS",
        "DEFAULT_PAGE_SIZE",
        "DEFAULT_RECONNECT_DELAY_MS",
        "DEFAULT_SEPARATOR",
        "PROXY_ERRORS",
        "PROXY_EXTENSION",
        "PROXY_URI_SCHEME",
        "PROXY_VERSION",
        "ProxyError",
        "TOOL_NAME",
        "createProxy",
        "exposedUri",
        "parseExposedUri",
      ]
    `);
  });

  it('@snodo/redis', async () => {
    expect(await exportsOf('@snodo/redis')).toMatchInlineSnapshot(`
      [
        "DEFAULT_COMMAND_TIMEOUT",
        "DEFAULT_CONNECT_TIMEOUT",
        "DEFAULT_CONTROL_TIMEOUT",
        "DEFAULT_MAX_CONTROL_BYTES",
        "DEFAULT_MAX_RECONNECT_DELAY",
        "DEFAULT_OWNER_TTL",
        "DEFAULT_PREFIX",
        "DEFAULT_REDIS_MAX_MESSAGE_BYTES",
        "DEFAULT_TASK_UPDATE_ATTEMPTS",
        "REDIS_ERRORS",
        "RedisError",
        "connectRedis",
      ]
    `);
  });

  it('@snodo/transport-http', async () => {
    expect(await exportsOf('@snodo/transport-http')).toMatchInlineSnapshot(`
      [
        "DEFAULT_BODY_TIMEOUT",
        "DEFAULT_CLOSE_GRACE_PERIOD",
        "DEFAULT_DRAIN_TIMEOUT",
        "DEFAULT_HEAD_TIMEOUT",
        "DEFAULT_HOST",
        "DEFAULT_KEEP_ALIVE_TIMEOUT",
        "DEFAULT_MAX_BODY_BYTES",
        "DEFAULT_MAX_CONNECTIONS",
        "DEFAULT_MAX_DRAIN_BYTES",
        "DEFAULT_MAX_HEADER_BYTES",
        "DEFAULT_MAX_REQUESTS_PER_CONNECTION",
        "DEFAULT_MAX_SUBSCRIPTIONS",
        "DEFAULT_PATH",
        "DEFAULT_READ_TIMEOUT",
        "DEFAULT_REQUEST_TIMEOUT",
        "listen",
      ]
    `);
  });

  it('@snodo/transport-stdio', async () => {
    expect(await exportsOf('@snodo/transport-stdio')).toMatchInlineSnapshot(`
      [
        "DEFAULT_MAX_LINE_BYTES",
        "DEFAULT_WRITE_TIMEOUT",
        "STDIO_ERRORS",
        "redirectConsole",
        "serve",
      ]
    `);
  });

  it('@snodo/fastify', async () => {
    expect(await exportsOf('@snodo/fastify')).toMatchInlineSnapshot(`
      [
        "DEFAULT_BODY_TIMEOUT",
        "DEFAULT_PATH",
        "PLUGIN_NAME",
        "default",
        "mcpBearerAuth",
        "snodo",
        "snodoFastify",
      ]
    `);
  });
});

describe('no exported name means two things across packages', () => {
  it('a runtime name exported by several packages is the same value in each', async () => {
    const seen = new Map<string, { where: string; value: unknown }>();
    for (const name of PACKAGES) {
      const module = (await import(`@snodo/${name}`)) as Record<string, unknown>;
      for (const [key, value] of Object.entries(module)) {
        const first = seen.get(key);
        if (first === undefined) seen.set(key, { where: name, value });
        else expect(value, `${key}: @snodo/${name} vs @snodo/${first.where}`).toBe(first.value);
      }
    }
  });

  it('error codes are unique across the packages', async () => {
    const { CORE_ERRORS } = await import('@snodo/core');
    const { CLIENT_ERRORS } = await import('@snodo/client');
    const { PROXY_ERRORS } = await import('@snodo/proxy');
    const { REDIS_ERRORS } = await import('@snodo/redis');
    const { STDIO_ERRORS } = await import('@snodo/transport-stdio');
    const tables = { CORE_ERRORS, CLIENT_ERRORS, PROXY_ERRORS, REDIS_ERRORS, STDIO_ERRORS };
    const counts = Object.fromEntries(
      Object.entries(tables).map(([name, table]) => [name, Object.keys(table).length]),
    );
    expect(counts).toEqual({
      CORE_ERRORS: 35,
      CLIENT_ERRORS: 19,
      PROXY_ERRORS: 11,
      REDIS_ERRORS: 6,
      STDIO_ERRORS: 3,
    });
    const codes = Object.values(tables).flatMap((table) => Object.keys(table));
    expect(new Set(codes).size).toBe(codes.length);
  });
});
