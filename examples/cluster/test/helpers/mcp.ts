/**
 * Raw Streamable HTTP through the balancer with the platform's fetch (keep-alive on, as a real
 * client), so a test sees each response's status, body and `x-snodo-instance` header.
 */
export const MODERN = '2026-07-28';
export const LEGACY = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;

export interface Reply {
  readonly status: number;
  /** The instance that answered (HAProxy's `x-snodo-instance`), or undefined for its own answers. */
  readonly instance: string | undefined;
  readonly headers: Headers;
  /** The JSON-RPC response: the JSON body, or the last message of an SSE body. */
  readonly body: any;
}

let nextId = 1;

export function request(method: string, params: Record<string, unknown> = {}) {
  return { jsonrpc: '2.0', id: nextId++, method, params };
}

/** A 2026-07-28 request: revision and capabilities in `_meta`, routing headers set. */
export function modern(method: string, params: Record<string, unknown> = {}, capabilities = {}) {
  const message = request(method, {
    ...params,
    _meta: {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientCapabilities': capabilities,
    },
  });
  const headers: Record<string, string> = { 'mcp-protocol-version': MODERN, 'mcp-method': method };
  if (method === 'tools/call') headers['mcp-name'] = String(params.name);
  return { message, headers };
}

function send(url: string, message: unknown, headers: Record<string, string>, signal?: AbortSignal) {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(message),
    ...(signal === undefined ? {} : { signal }),
  });
}

export async function post(
  url: string,
  message: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const response = await send(url, message, headers);
  const text = await response.text();
  let body: unknown;
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) body = sseMessages(text).at(-1);
  else body = text === '' ? undefined : JSON.parse(text);
  return {
    status: response.status,
    instance: response.headers.get('x-snodo-instance') ?? undefined,
    headers: response.headers,
    body,
  };
}

/** The JSON messages of a complete SSE body. */
export function sseMessages(text: string): any[] {
  return text
    .split(/\n\n/)
    .map((event) =>
      event
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n'),
    )
    .filter((data) => data !== '')
    .map((data) => JSON.parse(data));
}

/** An open SSE response read message by message. */
export interface Stream {
  readonly instance: string | undefined;
  /** The next JSON message; rejects when the stream ends first. */
  next(): Promise<any>;
  close(): void;
}

export async function openStream(
  url: string,
  message: unknown,
  headers: Record<string, string> = {},
): Promise<Stream> {
  const controller = new AbortController();
  return readStream(await send(url, message, headers, controller.signal), controller);
}

/** The standalone GET stream of a session. */
export async function openGet(url: string, headers: Record<string, string>): Promise<Stream> {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  return readStream(response, controller);
}

async function readStream(response: Response, controller: AbortController): Promise<Stream> {
  if (!response.headers.get('content-type')?.startsWith('text/event-stream') || !response.body) {
    throw new Error(`expected an SSE response, got ${response.status}: ${await response.text()}`);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  return {
    instance: response.headers.get('x-snodo-instance') ?? undefined,
    async next() {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end !== -1) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const [parsed] = sseMessages(`${event}\n\n`);
          if (parsed !== undefined) return parsed;
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('the stream ended');
        buffer += value;
      }
    },
    close: () => controller.abort(),
  };
}

/** An initialize-based session through `url`: `call` sends a request with the session's headers. */
export async function legacySession(url: string, version: string) {
  const init = await post(
    url,
    request('initialize', {
      protocolVersion: version,
      capabilities: { elicitation: {}, roots: {} },
      clientInfo: { name: 'cluster-test', version: '1.0.0' },
    }),
  );
  const id = init.headers.get('mcp-session-id');
  if (init.status !== 200 || id === null)
    throw new Error(`initialize failed: ${init.status} ${JSON.stringify(init.body)}`);
  const headers = () => ({
    'mcp-session-id': id,
    ...(version === '2025-03-26' ? {} : { 'mcp-protocol-version': version }),
  });
  return {
    id,
    init,
    headers,
    call: (method: string, params: Record<string, unknown> = {}) =>
      post(url, request(method, params), headers()),
    /** A request whose response is read message by message (an SSE response). */
    stream: (method: string, params: Record<string, unknown> = {}) => {
      const message = request(method, params);
      return openStream(url, message, headers()).then((stream) => ({ id: message.id, stream }));
    },
    notify: (method: string, params?: Record<string, unknown>) =>
      post(url, { jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) }, headers()),
    /** The client's answer to a server-initiated request. */
    answer: (id: unknown, result: unknown) => post(url, { jsonrpc: '2.0', id, result }, headers()),
    get: () => openGet(url, headers()),
    delete: async () => {
      const response = await fetch(url, { method: 'DELETE', headers: headers() });
      await response.text();
      return { status: response.status, instance: response.headers.get('x-snodo-instance') ?? undefined };
    },
  };
}

/**
 * The demo's `ask` tool on 2026-07-28 (MRTR): the first round through `askUrl`, then the retry with
 * the answer and the `requestState` through `retryUrl`.
 */
export async function mrtr(askUrl: string, retryUrl: string): Promise<{ asked: Reply; done: Reply }> {
  const elicit = { elicitation: {} };
  const ask = modern('tools/call', { name: 'ask', arguments: {} }, elicit);
  const asked = await post(askUrl, ask.message, ask.headers);
  if (asked.body?.result?.resultType !== 'input_required') {
    throw new Error(`ask did not ask: ${asked.status} ${JSON.stringify(asked.body)}`);
  }
  const retry = modern(
    'tools/call',
    {
      name: 'ask',
      arguments: {},
      requestState: asked.body.result.requestState,
      inputResponses: { elicit: { action: 'accept', content: { name: 'Ada' } } },
    },
    elicit,
  );
  return { asked, done: await post(retryUrl, retry.message, retry.headers) };
}
