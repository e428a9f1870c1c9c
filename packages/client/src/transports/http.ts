import {
  type AbortSignalLike,
  type DecodeLimits,
  decodeMessage,
  encodeJson,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type ProtocolVersion,
  SnodoError,
} from '@snodo/core';
import { LazySignal } from '@snodo/core/internal';
import { Pool } from 'undici';
import { DEFAULT_HTTP_CONNECTIONS, DEFAULT_MAX_MESSAGE_BYTES } from '../defaults.js';
import { transportError } from '../errors.js';
import { encodeHeaderValue } from '../headers.js';
import { OAuthClient, type OAuthOptions } from '../oauth.js';
import {
  type ClientTransport,
  NEVER_ABORTED,
  type OwnSendOptions,
  TAKES_SIGNAL_LIKE,
  type TransportSink,
} from '../transport.js';
import { type Answer, Collected, exchange } from './http-exchange.js';
import {
  type Body,
  delay,
  discard,
  excerpt,
  header,
  isIdLessError,
  mediaType,
  networkError,
  readText,
  safeParse,
  sameId,
} from './http-util.js';
import { SseParser } from './sse.js';

export interface HttpTransportOptions {
  /** Headers added to every request (e.g. an API key). */
  headers?: Readonly<Record<string, string>>;
  /** Called before every request; a string is sent as `Authorization: Bearer <token>`. */
  authorization?: () => string | undefined | Promise<string | undefined>;
  /** Keep-alive connections to the server at most. Default 16. */
  connections?: number;
  /** Bytes of one JSON response body or SSE event; a larger answer fails its call (SNODO_ERR_MESSAGE_TOO_LARGE). Default 16,000,000. */
  maxMessageBytes?: number;
  decodeLimits?: DecodeLimits;
  /** OAuth 2.1: answer 401 / 403 `insufficient_scope` challenges by authorizing (see `OAuthOptions`). */
  oauth?: OAuthOptions | OAuthClient;
}

const MODERN: ProtocolVersion = '2026-07-28';
/** The param each method's `Mcp-Name` header mirrors (SEP-2243; the Tasks extension's `taskId`). */
const NAMED: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/**
 * Streamable HTTP over an undici keep-alive `Pool`. On 2026-07-28 every POST carries
 * `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and the `Mcp-Param-*` the client computed;
 * aborting a call closes its response stream (that is the cancellation). On the initialize-based
 * revisions it keeps the `Mcp-Session-Id`, opens the session's GET stream once initialized (when
 * the server offers one), posts responses to server-initiated requests, sends
 * `notifications/cancelled` on abort, resumes a POST stream that ends early from its last event id
 * (SEP-1699), and DELETEs the session on close.
 */
export class HttpTransport implements ClientTransport {
  readonly kind = 'http';
  readonly [TAKES_SIGNAL_LIKE] = true;
  readonly httpHeaders = true;
  readonly #url: URL;
  readonly #path: string;
  readonly #options: HttpTransportOptions;
  readonly #pool: Pool;
  readonly #inflight = new Set<LazySignal>();
  readonly #maxBytes: number;
  readonly #oauth: OAuthClient | undefined;
  #sink: TransportSink | undefined;
  #sessionId: string | undefined;
  #legacyVersion: string | undefined;
  #getStream: AbortController | undefined;
  #closed = false;

  constructor(url: string | URL, options: HttpTransportOptions = {}) {
    this.#url = new URL(url);
    this.#path = this.#url.pathname + this.#url.search;
    this.#options = options;
    this.#maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.#oauth =
      options.oauth === undefined
        ? undefined
        : options.oauth instanceof OAuthClient
          ? options.oauth
          : new OAuthClient(options.oauth);
    this.#pool = new Pool(this.#url.origin, {
      connections: options.connections ?? DEFAULT_HTTP_CONNECTIONS,
      // Calls carry their own deadlines; a listen stream may stay quiet for long.
      headersTimeout: 0,
      bodyTimeout: 0,
      autoSelectFamily: true,
    });
  }

  /** The session id the server assigned (initialize-based revisions). */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  async open(sink: TransportSink): Promise<void> {
    this.#sink = sink;
  }

  async authorizationKey(): Promise<string | undefined> {
    if (this.#oauth) return this.#oauth.accessToken();
    return (await this.#options.authorization?.()) ?? this.#options.headers?.authorization;
  }

  async #headers(
    method: string | undefined,
    params: Record<string, unknown> | undefined,
    options: OwnSendOptions,
  ): Promise<Record<string, string>> {
    const headers: Record<string, string> = {
      ...this.#options.headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    if (options.trace) Object.assign(headers, options.trace);
    const token = this.#oauth ? await this.#oauth.accessToken() : await this.#options.authorization?.();
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    if (options.protocolVersion === MODERN) {
      headers['mcp-protocol-version'] = MODERN;
      if (method !== undefined) headers['mcp-method'] = method;
      const key = method === undefined ? undefined : NAMED[method];
      const name = key === undefined ? undefined : params?.[key];
      if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
      const own = options.headers;
      if (own !== undefined)
        for (const [name, value] of Object.entries(own)) headers[name.toLowerCase()] = value;
    } else {
      if (this.#sessionId !== undefined) headers['mcp-session-id'] = this.#sessionId;
      // 2025-03-26 defines no version header; later revisions send the negotiated one.
      const version = method === 'initialize' ? undefined : (options.protocolVersion ?? this.#legacyVersion);
      if (version !== undefined && version !== '2025-03-26') headers['mcp-protocol-version'] = version;
    }
    return headers;
  }

  /** The call's own cancellation: aborted by the caller's signal or by close(); no AbortSignal is made for it. */
  #track(signal: AbortSignalLike): Tracked {
    const controller = new Tracked(signal);
    if (signal.aborted) controller.handleEvent();
    else signal.addEventListener('abort', controller, { once: true });
    this.#inflight.add(controller);
    return controller;
  }

  #untrack(controller: Tracked): void {
    controller.caller.removeEventListener('abort', controller);
    this.#inflight.delete(controller);
  }

  async request(request: JsonRpcRequest, options: OwnSendOptions): Promise<JsonRpcResponse> {
    this.#check();
    const controller = this.#track(options.signal);
    const legacy = options.protocolVersion !== MODERN;
    try {
      const { headers, response } = await this.#authorized(controller, async () => {
        const headers = await this.#headers(request.method, request.params, options);
        const response = await exchange(
          this.#pool,
          {
            path: this.#path,
            method: 'POST',
            headers,
            body: encodeJson(request),
            signal: forUndici(controller),
          },
          this.#maxBytes,
        );
        return { headers, response };
      });
      if (request.method === 'initialize' && response.statusCode < 300) {
        const session = header(response.headers['mcp-session-id']);
        if (session !== undefined) this.#sessionId = session;
      }
      const type = mediaType(header(response.headers['content-type']));
      const body = response.body;
      if (type === 'text/event-stream' && response.statusCode < 300) {
        const parser = new SseParser(this.#maxBytes);
        const found = await this.#readEvents(body, parser, request, controller);
        if (found) return found;
        if (legacy && parser.lastEventId !== undefined && this.#sessionId !== undefined) {
          return await this.#resume(request, parser, options, controller);
        }
        throw transportError(
          'SNODO_ERR_CONNECTION_CLOSED',
          `the response stream of ${request.method} ended before its response`,
        );
      }
      const text = body instanceof Collected ? body.value : await readText(body, this.#maxBytes);
      if (response.statusCode === 404 && headers['mcp-session-id'] !== undefined) {
        // The session is gone (initialize-based revisions): the server did not run the request.
        throw transportError('SNODO_ERR_SESSION_EXPIRED', `HTTP 404 for ${request.method}${excerpt(text)}`, {
          status: 404,
          body: text.slice(0, 500),
        });
      }
      return this.#jsonAnswer(request, response.statusCode, type, text);
    } catch (error) {
      throw this.#failure(error, controller, request, options, legacy);
    } finally {
      this.#untrack(controller);
    }
  }

  /**
   * Sends with `send`; while the answer is a 401 (or a 403 `insufficient_scope`) and OAuth is
   * configured, authorizes and sends again, at most `maxAttempts` times.
   */
  async #authorized<T extends { response: Answer }>(
    signal: AbortSignalLike,
    send: () => Promise<T>,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const sent = await send();
      const { statusCode, headers } = sent.response;
      const challenge = header(headers['www-authenticate']);
      const insufficient = statusCode === 403 && /insufficient_scope/.test(challenge ?? '');
      if (!this.#oauth || !(statusCode === 401 || insufficient) || attempt >= this.#oauth.maxAttempts)
        return sent;
      // Read the challenge's body to its end, so its keep-alive connection stays usable.
      await readText(sent.response.body, this.#maxBytes).catch(() => '');
      if (signal.aborted) throw signal.reason;
      await this.#oauth.challenge(this.#url, statusCode, challenge);
    }
  }

  #jsonAnswer(
    request: JsonRpcRequest,
    status: number,
    type: string | undefined,
    text: string,
  ): JsonRpcResponse {
    const decoded = text.trim() === '' ? undefined : decodeMessage(text, this.#options.decodeLimits);
    if (decoded?.kind === 'response') {
      const message = decoded.message as unknown as JsonRpcResponse;
      if (sameId(decoded.id, request.id)) return message;
    }
    // An id-less error on this POST can only be about this request (e.g. a 400 for a bad header).
    if (decoded?.kind === 'invalid' || decoded === undefined) {
      const raw = safeParse(text);
      if (isIdLessError(raw)) return { jsonrpc: '2.0', id: request.id, error: raw.error };
    }
    if (status >= 300) {
      throw transportError('SNODO_ERR_HTTP_STATUS', `HTTP ${status} for ${request.method}${excerpt(text)}`, {
        status,
        body: text.slice(0, 500),
      });
    }
    throw transportError(
      'SNODO_ERR_INVALID_MESSAGE',
      `HTTP ${status} ${type ?? 'without a content type'} for ${request.method} is not its JSON-RPC response${excerpt(text)}`,
      { status, body: text.slice(0, 500) },
    );
  }

  /** Reads SSE events, passing other messages to the sink, until the response to `request`. */
  async #readEvents(
    body: Body,
    parser: SseParser,
    request: JsonRpcRequest | undefined,
    signal: AbortSignalLike,
  ): Promise<JsonRpcResponse | undefined> {
    try {
      for await (const chunk of body) {
        for (const event of parser.push(chunk)) {
          const found = this.#event(event.data, request);
          if (found) return found;
        }
        if (signal.aborted) break;
      }
      for (const event of parser.end()) {
        const found = this.#event(event.data, request);
        if (found) return found;
      }
      return undefined;
    } finally {
      discard(body);
    }
  }

  #event(data: string, request: JsonRpcRequest | undefined): JsonRpcResponse | undefined {
    const decoded = decodeMessage(data, this.#options.decodeLimits);
    if (decoded.kind === 'response') {
      if (request !== undefined && sameId(decoded.id, request.id)) {
        return decoded.message as unknown as JsonRpcResponse;
      }
      this.#sink?.warning(
        `http: dropped a response to another request on a stream (id ${String(decoded.id)})`,
      );
    } else if (decoded.kind === 'request' || decoded.kind === 'notification') {
      this.#sink?.message(decoded.message as unknown as JsonRpcRequest | JsonRpcNotification, request?.id);
    } else {
      this.#sink?.warning(`http: skipped an SSE event that is not a JSON-RPC message: ${data.slice(0, 200)}`);
    }
    return undefined;
  }

  /** SEP-1699: the POST stream ended early; wait `retry` ms, then GET with Last-Event-ID for the rest. */
  async #resume(
    request: JsonRpcRequest,
    parser: SseParser,
    options: OwnSendOptions,
    signal: AbortSignalLike,
  ): Promise<JsonRpcResponse> {
    await delay(parser.retry ?? 1_000, signal);
    const headers = await this.#headers(undefined, undefined, options);
    headers.accept = 'text/event-stream';
    delete headers['content-type'];
    if (parser.lastEventId !== undefined) headers['last-event-id'] = parser.lastEventId;
    const response = await exchange(
      this.#pool,
      { path: this.#path, method: 'GET', headers, signal: forUndici(signal) },
      this.#maxBytes,
    );
    const body = response.body;
    if (
      response.statusCode >= 300 ||
      mediaType(header(response.headers['content-type'])) !== 'text/event-stream'
    ) {
      const text = await readText(body, this.#maxBytes);
      throw transportError(
        'SNODO_ERR_CONNECTION_CLOSED',
        `the stream of ${request.method} ended early and resuming it got HTTP ${response.statusCode}`,
        { status: response.statusCode, body: text.slice(0, 500) },
      );
    }
    const found = await this.#readEvents(body, new SseParser(this.#maxBytes), request, signal);
    if (found) return found;
    throw transportError(
      'SNODO_ERR_CONNECTION_CLOSED',
      `the resumed stream of ${request.method} ended early`,
    );
  }

  #failure(
    error: unknown,
    signal: AbortSignalLike,
    request: JsonRpcRequest,
    options: OwnSendOptions,
    legacy: boolean,
  ): unknown {
    if (options.signal.aborted) {
      // Legacy HTTP: closing the stream is not cancellation; say it (never for initialize).
      if (
        legacy &&
        !this.#closed &&
        request.method !== 'initialize' &&
        options.protocolVersion !== undefined
      ) {
        const reason = options.signal.reason;
        this.notify(
          {
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId: request.id, ...(reason instanceof Error ? { reason: reason.message } : {}) },
          },
          { protocolVersion: options.protocolVersion, signal: NEVER_ABORTED },
        ).catch(() => {});
      }
      return options.signal.reason;
    }
    if (signal.aborted) return signal.reason;
    if (SnodoError.is(error)) return error;
    // Both bounded readers (the JSON body, an SSE event) throw RangeError past maxMessageBytes.
    if (error instanceof RangeError) {
      return transportError(
        'SNODO_ERR_MESSAGE_TOO_LARGE',
        `the answer to ${request.method} is larger than maxMessageBytes (${this.#maxBytes}): ${error.message}`,
        { limit: this.#maxBytes, cause: error },
      );
    }
    return networkError(error, `${request.method} to ${this.#url.origin}`);
  }

  async #post(
    message: JsonRpcNotification | JsonRpcResponse,
    options: OwnSendOptions,
    what: string,
  ): Promise<number> {
    this.#check();
    const method = 'method' in message ? message.method : undefined;
    const controller = this.#track(options.signal);
    try {
      const params = 'method' in message ? message.params : undefined;
      const { response } = await this.#authorized(controller, async () => {
        const headers = await this.#headers(method, params, options);
        if (method === undefined) delete headers['mcp-method'];
        const response = await exchange(
          this.#pool,
          {
            path: this.#path,
            method: 'POST',
            headers,
            body: encodeJson(message),
            signal: forUndici(controller),
          },
          this.#maxBytes,
        );
        return { response };
      });
      const text = await readText(response.body, this.#maxBytes);
      if (response.statusCode >= 300) {
        throw transportError(
          'SNODO_ERR_HTTP_STATUS',
          `HTTP ${response.statusCode} for ${what}${excerpt(text)}`,
          {
            status: response.statusCode,
            body: text.slice(0, 500),
          },
        );
      }
      return response.statusCode;
    } catch (error) {
      if (SnodoError.is(error)) throw error;
      throw networkError(error, `${what} to ${this.#url.origin}`);
    } finally {
      this.#untrack(controller);
    }
  }

  async notify(notification: JsonRpcNotification, options: OwnSendOptions): Promise<void> {
    await this.#post(notification, options, notification.method);
    if (notification.method === 'notifications/initialized' && options.protocolVersion !== MODERN) {
      this.#legacyVersion = options.protocolVersion;
      this.#openGetStream(options);
    }
  }

  async respond(response: JsonRpcResponse, options: OwnSendOptions): Promise<void> {
    await this.#post(response, options, `the response to server request ${String(response.id)}`);
  }

  /** The session's standalone GET stream, for server messages unrelated to a request; 4xx means none. */
  #openGetStream(options: OwnSendOptions): void {
    if (this.#getStream || this.#closed) return;
    const controller = new AbortController();
    this.#getStream = controller;
    (async () => {
      const headers = await this.#headers(undefined, undefined, options);
      headers.accept = 'text/event-stream';
      delete headers['content-type'];
      const response = await exchange(
        this.#pool,
        { path: this.#path, method: 'GET', headers, signal: controller.signal },
        this.#maxBytes,
      );
      const body = response.body;
      if (
        response.statusCode >= 300 ||
        mediaType(header(response.headers['content-type'])) !== 'text/event-stream'
      ) {
        discard(body);
        this.#sink?.warning(
          `http: the server offers no GET stream (HTTP ${response.statusCode}): only notifications about a request arrive, on its response stream`,
        );
        return;
      }
      await this.#readEvents(body, new SseParser(this.#maxBytes), undefined, controller.signal);
    })()
      .catch((error: unknown) => {
        if (!controller.signal.aborted) this.#sink?.warning(`http: the GET stream failed: ${String(error)}`);
      })
      .finally(() => {
        if (this.#getStream === controller) this.#getStream = undefined;
      });
  }

  #check(): void {
    if (this.#closed) throw transportError('SNODO_ERR_CLOSED', 'the HTTP transport is closed');
  }

  /** Ends the session (DELETE, when there is one), stops every stream and closes the pool. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#getStream?.abort();
    const closed = transportError('SNODO_ERR_CLOSED', 'the client closed');
    for (const controller of this.#inflight) controller.abort(closed);
    if (this.#sessionId !== undefined) {
      try {
        const headers = await this.#headers(undefined, undefined, {
          protocolVersion: this.#legacyVersion as ProtocolVersion | undefined,
          signal: NEVER_ABORTED,
        });
        delete headers['content-type'];
        const response = await exchange(
          this.#pool,
          { path: this.#path, method: 'DELETE', headers, signal: AbortSignal.timeout(2_000) },
          this.#maxBytes,
        );
        await readText(response.body, this.#maxBytes).catch(() => '');
      } catch {
        // The server may not allow DELETE (405) or be gone: the session ends either way.
      }
    }
    this.#closed = true;
    await this.#pool.destroy();
    this.#sink?.closed(undefined);
  }
}

/** A call's cancellation, aborted when the caller's signal aborts (it is its own abort listener: no closures). */
class Tracked extends LazySignal {
  constructor(readonly caller: AbortSignalLike) {
    super();
  }

  handleEvent(): void {
    this.abort(this.caller.reason);
  }
}

/** undici reads a request's `signal` as an EventTarget (`aborted`, `reason`, `abort` listeners): a LazySignal is one. */
function forUndici(signal: AbortSignalLike): AbortSignal {
  return signal as unknown as AbortSignal;
}
