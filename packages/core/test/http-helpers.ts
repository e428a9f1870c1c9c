import { z } from 'zod';
import {
  type AbortSignalLike,
  createHttpHandler,
  createServer,
  decodeJson,
  execute,
  type HttpConfig,
  type HttpHandler,
  type HttpOptions,
  type HttpRequest,
  type HttpResponse,
  isStreamResponse,
  prepare,
  type Runtime,
  type ServerDefinition,
  sseText,
  tool,
} from '../src/index.js';
import { withCors } from '../src/internal.js';

export const MODERN = '2026-07-28';

const HANDLERS = new WeakMap<object, WeakMap<Runtime, HttpHandler>>();
const NO_OPTIONS = {};

/**
 * One request through a handler: the same options object (and runtime) reuses one handler, the way
 * an application keeps the handler it created; a resolved config runs `prepare` and `execute`.
 */
export async function handle(
  runtime: Runtime,
  request: HttpRequest,
  options: HttpOptions | HttpConfig = NO_OPTIONS,
): Promise<HttpResponse> {
  if ('local' in options) {
    const config = options as HttpConfig;
    const result = await prepare(runtime, request, config);
    return withCors(
      config.cors,
      request,
      'response' in result ? result.response : await execute(result.prepared),
    );
  }
  let byRuntime = HANDLERS.get(options);
  if (byRuntime === undefined) {
    byRuntime = new WeakMap();
    HANDLERS.set(options, byRuntime);
  }
  let handler = byRuntime.get(runtime);
  if (handler === undefined) {
    handler = createHttpHandler(runtime, options as HttpOptions);
    byRuntime.set(runtime, handler);
  }
  return handler.handle(request);
}

/** A stream response as SSE text chunks (events and keepalive comments), as a byte host writes it. */
export async function* textStream(response: HttpResponse): AsyncGenerator<string> {
  if (!isStreamResponse(response)) throw new Error('not a stream response');
  for await (const event of response.events) yield sseText(event);
}

/** Resolves when `signal` aborts. */
export function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** A promise with its resolve function outside. */
export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** Counts the handlers of a blocking tool running at once: a fact tests assert, not a timing. */
export class Running {
  now = 0;
  peak = 0;
  started = 0;
  readonly #waiters: { count: number; open: () => void }[] = [];

  enter(): void {
    this.now++;
    this.started++;
    this.peak = Math.max(this.peak, this.now);
    for (const waiter of this.#waiters.filter((w) => this.now >= w.count)) waiter.open();
  }

  leave(): void {
    this.now--;
  }

  /** Resolves once `count` handlers run at once. */
  reach(count: number): Promise<void> {
    if (this.now >= count) return Promise.resolve();
    return new Promise((open) => {
      this.#waiters.push({ count, open });
    });
  }
}

/** Hooks the tests use to see inside handlers. */
export interface Probe {
  /** Resolved with the handler's signal when `sleep` starts. */
  sleeping: ReturnType<typeof gate<AbortSignal>>;
  /** Resolved when `sleep` sees its signal abort. */
  sleepAborted: ReturnType<typeof gate<void>>;
  /** `wait` returns once this opens. */
  release: ReturnType<typeof gate<void>>;
  /** The `wait` handlers running. */
  waiting: Running;
}

export function newProbe(): Probe {
  return { sleeping: gate(), sleepAborted: gate(), release: gate(), waiting: new Running() };
}

/** A server with the tools the HTTP tests need. */
export function httpServer(probe: Probe = newProbe(), extra: Partial<ServerDefinition> = {}): Runtime {
  return createServer({
    name: 'http-test',
    version: '1.0.0',
    tools: [
      tool({ name: 'echo', inputSchema: z.object({ text: z.string() }), handler: ({ text }) => text }),
      tool({
        name: 'sleep',
        description: 'Waits until cancelled',
        handler: async (_args, context) => {
          probe.sleeping.open(context.signal);
          await aborted(context.signal);
          probe.sleepAborted.open();
          return 'woke up';
        },
      }),
      tool({
        name: 'steps',
        description: 'Reports two progress steps, waits for the probe, then answers',
        handler: async (_args, context) => {
          context.progress(1, 2, 'first');
          context.progress(2, 2, 'second');
          await probe.release.promise;
          return 'done';
        },
      }),
      tool({
        name: 'wait',
        description: 'Answers when the probe opens',
        handler: async () => {
          probe.waiting.enter();
          try {
            await probe.release.promise;
          } finally {
            probe.waiting.leave();
          }
          return 'released';
        },
      }),
      {
        name: 'regional',
        description: 'Arguments mirrored in Mcp-Param headers',
        inputSchema: {
          type: 'object',
          properties: {
            region: { type: 'string', 'x-mcp-header': 'Region' },
            count: { type: 'integer', 'x-mcp-header': 'Count' },
            verbose: { type: 'boolean', 'x-mcp-header': 'Verbose' },
            options: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } },
            note: { type: 'string' },
          },
          required: ['region'],
        },
        handler: (args: Record<string, unknown>) => JSON.stringify(args),
      },
      tool({
        name: 'ask',
        description: 'Asks the client for a name (elicitation), then greets it',
        handler: async (_args, context) => {
          const answer = await context.elicit({
            message: 'Name?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          });
          return `Hello, ${(answer.content as { name: string }).name}!`;
        },
      }),
      tool({
        name: 'needs_sampling',
        requiredClientCapabilities: { sampling: {} },
        handler: () => 'sampled',
      }),
    ],
    ...extra,
  });
}

let nextId = 1;

export function modernMessage(
  method: string,
  params: Record<string, unknown> = {},
  meta: Record<string, unknown> = {},
) {
  return {
    jsonrpc: '2.0',
    id: nextId++,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientCapabilities': {},
        ...meta,
      },
    },
  };
}

/** The headers a correct 2026-07-28 client sends for `message`. */
export function modernHeaders(message: {
  method: string;
  params?: Record<string, unknown>;
}): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': message.method,
  };
  const name = message.method === 'resources/read' ? message.params?.uri : message.params?.name;
  if (['tools/call', 'prompts/get', 'resources/read'].includes(message.method) && typeof name === 'string') {
    headers['mcp-name'] = name;
  }
  return headers;
}

export const LEGACY_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

export interface RequestInit {
  method?: string;
  path?: string;
  headers?: Record<string, string | undefined>;
  body?: string | Uint8Array;
  signal?: AbortSignalLike;
}

export function httpRequest(init: RequestInit = {}): HttpRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(init.headers ?? {}))
    if (value !== undefined) headers[name.toLowerCase()] = value;
  const body =
    init.body === undefined
      ? new Uint8Array(0)
      : typeof init.body === 'string'
        ? new TextEncoder().encode(init.body)
        : init.body;
  return {
    method: init.method ?? 'POST',
    path: init.path ?? '/mcp',
    headers,
    body,
    signal: init.signal ?? new AbortController().signal,
  };
}

export interface Answer {
  status: number;
  headers: Readonly<Record<string, string>>;
  /** The JSON body (JSON responses), or the last SSE message. */
  body: any;
  /** SSE messages in order (empty for JSON). */
  events: any[];
  /** The raw SSE text, comments included. */
  text: string;
  stream: boolean;
}

/** Reads a response to its end (SSE included) and parses it. */
export async function read(response: HttpResponse): Promise<Answer> {
  if (!isStreamResponse(response)) {
    const body = response.body === '' ? undefined : parse(response.body);
    return {
      status: response.status,
      headers: response.headers,
      body,
      events: [],
      text: response.body,
      stream: false,
    };
  }
  let text = '';
  for await (const chunk of textStream(response)) text += chunk;
  const events = parseSse(text);
  return {
    status: response.status,
    headers: response.headers,
    body: events.at(-1),
    events,
    text,
    stream: true,
  };
}

export function parseSse(text: string): any[] {
  const events: any[] = [];
  for (const block of text.split('\n\n')) {
    const data = block
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice(6));
    if (data.length > 0) events.push(parse(data.join('\n')));
  }
  return events;
}

function parse(text: string): any {
  const decoded = decodeJson(text);
  if (!decoded.ok) throw new Error(`not JSON: ${text}`);
  return decoded.value;
}

/** POSTs a 2026-07-28 message with correct headers (overridable) and reads the answer. */
export async function postModern(
  runtime: Runtime,
  message: { method: string; params?: Record<string, unknown> },
  options?: HttpOptions | HttpConfig,
  headers: Record<string, string | undefined> = {},
  signal?: AbortSignal,
): Promise<Answer> {
  const request = httpRequest({
    headers: { ...modernHeaders(message), ...headers },
    body: JSON.stringify(message),
    ...(signal ? { signal } : {}),
  });
  return read(await handle(runtime, request, options));
}

/** POSTs any body with the given headers and reads the answer. */
export async function post(
  runtime: Runtime,
  body: unknown,
  headers: Record<string, string | undefined>,
  options?: HttpOptions | HttpConfig,
  signal?: AbortSignal,
): Promise<Answer> {
  const request = httpRequest({
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
  return read(await handle(runtime, request, options));
}

/**
 * Opens an initialize-based session at `version` (200 expected) and returns the headers its
 * requests carry: session id and protocol version.
 */
export async function openLegacySession(
  runtime: Runtime,
  options: HttpOptions | HttpConfig,
  version = '2025-11-25',
): Promise<Record<string, string>> {
  const answer = await post(
    runtime,
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '0' } },
    },
    LEGACY_HEADERS,
    options,
  );
  if (answer.status !== 200) throw new Error(`initialize answered ${answer.status}`);
  return {
    ...LEGACY_HEADERS,
    'mcp-session-id': answer.headers['mcp-session-id'] as string,
    'mcp-protocol-version': version,
  };
}
