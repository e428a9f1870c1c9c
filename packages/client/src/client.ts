import {
  type ClientCapabilities,
  type Implementation,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  META,
  ProtocolError,
  type ProtocolVersion,
  type RequestId,
  type ServerCapabilities,
  SnodoError,
  type SubscriptionFilter,
} from '@snodo/core';
import {
  type DeadlineItem,
  DeadlineList,
  isObserved,
  LazySignal,
  loadedOtel,
  loadOtel,
} from '@snodo/core/internal';
import { ResultCache } from './cache.js';
import { DEFAULT_CALL_TIMEOUT, DEFAULT_MAX_CACHE_ENTRIES } from './defaults.js';
import { clientError, TimeoutError, TransportError } from './errors.js';
import { type ParamHeader, paramHeaderValues, toolHeaders } from './headers.js';
import { fulfilInputRequests, serverRequestAnswer } from './input.js';
import { Listeners } from './listen.js';
import type { Negotiated } from './negotiate.js';
import type { Settings } from './options.js';
import type { Subscription } from './subscription.js';
import { asTask, type FollowOptions, TaskClient } from './tasks.js';
import { ClientTrace } from './telemetry.js';
import { type ClientTransport, NEVER_ABORTED, TAKES_SIGNAL_LIKE, type TransportSink } from './transport.js';
import { idKey } from './transports/pending.js';
import type {
  CallOptions,
  CallToolResult,
  CompleteResult,
  CompletionRef,
  DiscoverResult,
  GetPromptResult,
  ListOptions,
  Page,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Tool,
} from './types.js';

const MODERN: ProtocolVersion = '2026-07-28';
/** Methods whose results may be `input_required` (2026-07-28 MRTR). */
const MRTR_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read']);
const LIST_CHANGED: Record<string, readonly string[]> = {
  'notifications/tools/list_changed': ['tools/list'],
  'notifications/prompts/list_changed': ['prompts/list'],
  'notifications/resources/list_changed': ['resources/list', 'resources/templates/list'],
};

/**
 * A call's cancellation, with its place in the client's deadline list of its timeout (core's
 * `DeadlineList`: one timer per distinct timeout, not one per call). Its AbortSignal is made only
 * for a transport that needs a real one.
 */
class CallCancel extends LazySignal implements DeadlineItem {
  deadlineAt = 0;
  deadlinePrev: DeadlineItem | undefined = undefined;
  deadlineNext: DeadlineItem | undefined = undefined;
  deadlineList: DeadlineList | undefined = undefined;

  constructor(
    readonly method: string,
    readonly timeout: number,
    readonly hint: () => string,
  ) {
    super();
  }
}

function onCallDeadline(item: DeadlineItem): void {
  const call = item as CallCancel;
  call.abort(
    new TimeoutError(`${call.method} did not complete within ${call.timeout} ms${call.hint()}`, call.timeout),
  );
}

/** Options of the internal send path. */
export interface SendOptions extends CallOptions {
  version?: ProtocolVersion | undefined;
  headers?: Record<string, string>;
  /** Called with the request id before the request is sent (subscriptions demultiplex by it). */
  onId?: (id: RequestId) => void;
  /** Skip the resultType check (the negotiation probe reads raw results). */
  raw?: boolean;
}

interface Progress {
  readonly onProgress: NonNullable<CallOptions['onProgress']>;
}

/**
 * A connected MCP client. Made by `connect()`, which negotiates the revision; every call then
 * speaks it: 2026-07-28 with per-request `_meta` (and MRTR, `subscriptions/listen`, caching), or
 * an initialize-based revision over the session `connect` opened.
 */
export class Client {
  readonly #transport: ClientTransport;
  readonly #settings: Settings;
  readonly #capabilities: ClientCapabilities;
  readonly #cache: ResultCache | undefined;
  readonly #progress = new Map<string, Progress>();
  readonly #listeners: Listeners;
  readonly #serverRequests = new Map<string, AbortController>();
  readonly #toolHeaders = new Map<string, readonly ParamHeader[]>();
  #tasks: TaskClient | undefined;
  #nextId = 0;
  #nextToken = 0;
  #negotiated: Negotiated | undefined;
  #closed: Promise<void> | undefined;
  #failure: Error | undefined;

  /** One deadline list per call timeout in use; a list leaves the map when it fires empty. */
  readonly #deadlines = new Map<number, DeadlineList>();
  /** What a timeout's message adds: a stdio server's last non-JSON-RPC output. */
  readonly #hint = (): string => (this.#transport.kind === 'stdio' ? stdioHint(this.#transport) : '');

  /** The transport is one of Snodo's own: a call's cancellation goes to it as a LazySignal. */
  readonly #takesSignalLike: boolean;

  /** @internal Use `connect()`. */
  constructor(transport: ClientTransport, settings: Settings) {
    this.#transport = transport;
    this.#takesSignalLike =
      (transport as ClientTransport & { [TAKES_SIGNAL_LIKE]?: boolean })[TAKES_SIGNAL_LIKE] === true;
    this.#settings = settings;
    this.#capabilities = settings.capabilities;
    this.#listeners = new Listeners({
      send: (method, params, options) => this.#send(method, params, options),
      era: () => this.era,
      capabilities: () => this.serverCapabilities,
      usable: () => this.#closed === undefined && this.#failure === undefined,
    });
    this.#cache = settings.cache
      ? new ResultCache(settings.cacheEntries ?? DEFAULT_MAX_CACHE_ENTRIES)
      : undefined;
  }

  /** @internal The sink `connect` opens the transport with. */
  sink(): TransportSink {
    return {
      message: (message, relatedRequestId) => this.#onMessage(message, relatedRequestId),
      closed: (error) => this.#onClosed(error),
      warning: (message) => this.#settings.onWarning?.(message),
    };
  }

  /** @internal Set once by `connect` after negotiation. */
  negotiated(outcome: Negotiated): void {
    this.#negotiated = outcome;
  }

  /** The negotiated revision. */
  get protocolVersion(): ProtocolVersion {
    return this.#state().version;
  }

  /** `modern` (2026-07-28, stateless) or `legacy` (initialize-based). */
  get era(): 'modern' | 'legacy' {
    return this.#state().version === MODERN ? 'modern' : 'legacy';
  }

  /** What the server says it is (`serverInfo`; on 2026-07-28 from `_meta` of discover). */
  get serverInfo(): Implementation | undefined {
    return this.#state().serverInfo;
  }

  get serverCapabilities(): ServerCapabilities {
    return this.#state().capabilities;
  }

  get instructions(): string | undefined {
    return this.#state().instructions;
  }

  /** The capabilities this client declares (from its handlers and `options.capabilities`). */
  get capabilities(): ClientCapabilities {
    return this.#capabilities;
  }

  get transport(): ClientTransport {
    return this.#transport;
  }

  #deadlineList(timeout: number): DeadlineList {
    let list = this.#deadlines.get(timeout);
    if (list === undefined) {
      list = new DeadlineList(timeout, onCallDeadline, () => this.#deadlines.delete(timeout));
      this.#deadlines.set(timeout, list);
    }
    return list;
  }

  #state(): Negotiated {
    if (!this.#negotiated) throw clientError('SNODO_ERR_NEGOTIATION', 'the client is not connected yet');
    return this.#negotiated;
  }

  // ---- sending ---------------------------------------------------------------------------

  #meta(
    version: ProtocolVersion | undefined,
    progressToken: string | undefined,
    onBehalfOf: CallOptions['onBehalfOf'],
  ): Record<string, unknown> {
    const meta: Record<string, unknown> = {};
    if (version === MODERN) {
      meta[META.protocolVersion] = version;
      meta[META.clientCapabilities] = onBehalfOf ? onBehalfOf.capabilities : this.#capabilities;
      const clientInfo = onBehalfOf ? onBehalfOf.clientInfo : this.#settings.clientInfo;
      if (clientInfo !== undefined) meta[META.clientInfo] = clientInfo;
      if (this.#settings.logLevel !== undefined) meta[META.logLevel] = this.#settings.logLevel;
    }
    if (progressToken !== undefined) meta.progressToken = progressToken;
    return meta;
  }

  /**
   * Sends one request and returns its result, or throws `ProtocolError` (the server's JSON-RPC
   * error), `TransportError`, `TimeoutError`, or `SnodoError` SNODO_ERR_ABORTED.
   */
  async #send(
    method: string,
    params: Record<string, unknown> | undefined,
    options: SendOptions = {},
  ): Promise<Record<string, unknown>> {
    if (this.#closed) throw clientError('SNODO_ERR_CLOSED', `${method} after close()`);
    if (this.#failure) throw this.#failure;
    const version = 'version' in options ? options.version : this.#negotiated?.version;
    const token = options.onProgress ? `p${++this.#nextToken}` : undefined;
    const meta = this.#meta(version, token, options.onBehalfOf);
    let full: Record<string, unknown> | undefined = params;
    if (Object.keys(meta).length > 0) {
      const own = params?._meta as Record<string, unknown> | undefined;
      full = { ...params, _meta: { ...own, ...meta } };
    } else if (version === MODERN && full === undefined) full = {};
    const id = ++this.#nextId;
    let otel = loadedOtel();
    if (otel === undefined) otel = await loadOtel();
    const trace =
      otel && isObserved(otel) ? new ClientTrace(otel, { id, method, params: full, version }) : undefined;
    if (trace) full = trace.inject(full);
    const request: JsonRpcRequest =
      full === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params: full };
    const timeout = options.timeout ?? this.#settings.timeout ?? DEFAULT_CALL_TIMEOUT;
    const cancel = new CallCancel(method, timeout, this.#hint);
    const deadlines = timeout > 0 && Number.isFinite(timeout) ? this.#deadlineList(timeout) : undefined;
    deadlines?.add(cancel);
    const userSignal = options.signal;
    const onAbort = () =>
      cancel.abort(
        new SnodoError('SNODO_ERR_ABORTED', `${method} was aborted: ${describeReason(userSignal?.reason)}`, {
          cause: userSignal?.reason,
        }),
      );
    if (userSignal?.aborted) onAbort();
    else userSignal?.addEventListener('abort', onAbort, { once: true });
    if (token !== undefined && options.onProgress)
      this.#progress.set(token, { onProgress: options.onProgress });
    options.onId?.(id);
    options.onRequestId?.(id);
    let response: JsonRpcResponse;
    try {
      response = await this.#transport.request(request, {
        protocolVersion: version,
        signal: this.#takesSignalLike ? (cancel as unknown as AbortSignal) : cancel.signal,
        ...(options.headers ? { headers: options.headers } : {}),
        ...(trace ? { trace: trace.fields } : {}),
      });
    } catch (error) {
      const failure = cancel.aborted ? cancel.reason : error;
      trace?.end({ error: failure });
      throw failure;
    } finally {
      deadlines?.remove(cancel);
      userSignal?.removeEventListener('abort', onAbort);
      if (token !== undefined) this.#progress.delete(token);
    }
    if ('error' in response) {
      const { code, message, data } = response.error;
      trace?.end({ code, message });
      throw new ProtocolError(code, message, data);
    }
    const result = response.result as unknown;
    trace?.end(
      typeof result === 'object' && result !== null ? { result: result as Record<string, unknown> } : {},
    );
    if (typeof result !== 'object' || result === null || Array.isArray(result)) {
      throw clientError('SNODO_ERR_INVALID_RESULT', `the result of ${method} is not an object`);
    }
    const typed = result as Record<string, unknown>;
    if (!options.raw && version === MODERN) {
      const type = typed.resultType;
      const mrtr = type === 'input_required' && MRTR_METHODS.has(method);
      // A task handle answers only tools/call, and only a client that declared the Tasks extension.
      const task = type === 'task' && method === 'tools/call' && this.#settings.tasks;
      if (type !== undefined && type !== 'complete' && !mrtr && !task) {
        throw clientError(
          'SNODO_ERR_INVALID_RESULT',
          `${method} answered resultType ${JSON.stringify(type)}`,
        );
      }
    }
    return typed;
  }

  /**
   * Sends a request, retrying once with a supported version when the server answers -32022 naming
   * it, and answering `input_required` (MRTR) rounds on 2026-07-28. `rounds` reports how many.
   */
  async #call(
    method: string,
    params: Record<string, unknown>,
    options: SendOptions = {},
  ): Promise<{ result: Record<string, unknown>; rounds: number }> {
    let extra: Record<string, unknown> = {};
    if (options.inputResponses !== undefined) extra.inputResponses = options.inputResponses;
    if (options.requestState !== undefined) extra.requestState = options.requestState;
    let rounds = 0;
    let versionRetried = false;
    let reissued = false;
    for (;;) {
      let result: Record<string, unknown>;
      try {
        result = await this.#send(method, { ...params, ...extra }, options);
      } catch (error) {
        if (!versionRetried && this.#retryVersion(error)) {
          versionRetried = true;
          continue;
        }
        if (!reissued && this.#lostStream(error, options)) {
          reissued = true;
          continue;
        }
        throw error;
      }
      if (
        result.resultType !== 'input_required' ||
        this.era !== 'modern' ||
        options.inputRequired === 'return'
      ) {
        return { result, rounds };
      }
      rounds++;
      if (rounds > this.#settings.maxInputRounds) {
        throw clientError(
          'SNODO_ERR_INPUT_ROUNDS',
          `${method} asked for input more than ${this.#settings.maxInputRounds} times`,
        );
      }
      extra = {};
      const requests = result.inputRequests;
      if (requests !== undefined) {
        extra.inputResponses = await fulfilInputRequests(requests, this.#settings, options.signal);
      }
      // Echoed exactly as received, never parsed; absent when the server gave none.
      if (Object.hasOwn(result, 'requestState')) extra.requestState = result.requestState;
    }
  }

  /**
   * A 2026-07-28 HTTP response stream that broke before its response loses the request; the spec
   * has the client re-issue it with a new id (once here: a second break is reported).
   */
  #lostStream(error: unknown, options: SendOptions): boolean {
    return (
      this.era === 'modern' &&
      this.#transport.httpHeaders === true &&
      TransportError.is(error) &&
      error.code === 'SNODO_ERR_CONNECTION_CLOSED' &&
      options.signal?.aborted !== true &&
      options.reissue !== false &&
      this.#closed === undefined
    );
  }

  /** -32022 whose data.supported names the revision in use: the server wants it retried (C03). */
  #retryVersion(error: unknown): boolean {
    if (!ProtocolError.is(error) || error.code !== -32022 || this.era !== 'modern') return false;
    const supported = (error.data as { supported?: unknown } | undefined)?.supported;
    return Array.isArray(supported) && supported.includes(this.protocolVersion);
  }

  /** Sends any request (extension methods included) and returns its result. */
  async request(method: string, params?: Record<string, unknown>, options: CallOptions = {}) {
    return (await this.#call(method, params ?? {}, options)).result;
  }

  /** Sends a notification (2026-07-28 defines none from the client besides cancellation, which signals do). */
  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    const version = this.#negotiated?.version;
    const message: JsonRpcNotification =
      params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    await this.#transport.notify(message, { protocolVersion: version, signal: NEVER_ABORTED });
  }

  // ---- cached reads ----------------------------------------------------------------------

  async #cached(
    method: string,
    param: string,
    params: Record<string, unknown>,
    options: SendOptions,
  ): Promise<Record<string, unknown>> {
    const cache = this.era === 'modern' ? this.#cache : undefined;
    const auth = cache ? ((await this.#transport.authorizationKey?.()) ?? '') : '';
    const retry = options.inputResponses !== undefined || options.requestState !== undefined;
    if (cache && !options.fresh && !retry) {
      const hit = cache.get(method, param, auth);
      if (hit) return hit;
    }
    let outcome: { result: Record<string, unknown>; rounds: number };
    try {
      outcome = await this.#call(method, params, options);
    } catch (error) {
      // An invalid cursor: every cached page of this list is suspect.
      if (cache && ProtocolError.is(error) && error.code === -32602 && params.cursor !== undefined) {
        cache.invalidate(method);
      }
      throw error;
    }
    // Results computed from input answers are never cached, nor a returned input_required round.
    if (cache && outcome.rounds === 0 && !retry && outcome.result.resultType !== 'input_required') {
      cache.set(method, param, auth, outcome.result);
    }
    return outcome.result;
  }

  /** `server/discover` on 2026-07-28; on the initialize-based revisions, what initialize said. */
  async discover(options: CallOptions = {}): Promise<DiscoverResult> {
    if (this.era !== 'modern') {
      const state = this.#state();
      return {
        supportedVersions: [state.version],
        capabilities: state.capabilities,
        ...(state.instructions === undefined ? {} : { instructions: state.instructions }),
        ...(state.serverInfo === undefined ? {} : { serverInfo: state.serverInfo }),
      };
    }
    const result = await this.#cached('server/discover', '', {}, options);
    const serverInfo = (result._meta as Record<string, unknown> | undefined)?.[META.serverInfo];
    return {
      ...result,
      supportedVersions: Array.isArray(result.supportedVersions)
        ? (result.supportedVersions as string[])
        : [],
      capabilities: (result.capabilities ?? {}) as ServerCapabilities,
      ...(serverInfo === undefined ? {} : { serverInfo: serverInfo as Implementation }),
    };
  }

  async #page<T>(method: string, key: string, options: ListOptions): Promise<Page<T>> {
    const params: Record<string, unknown> = options.cursor === undefined ? {} : { cursor: options.cursor };
    const result = await this.#cached(method, options.cursor ?? '', params, options);
    const items = result[key];
    if (!Array.isArray(items)) {
      throw clientError('SNODO_ERR_INVALID_RESULT', `the result of ${method} has no ${key} array`);
    }
    const next = result.nextCursor;
    return {
      items: items as T[],
      nextCursor: typeof next === 'string' && next !== '' ? next : undefined,
      result,
    };
  }

  async #all<T>(
    page: (options: ListOptions) => Promise<Page<T>>,
    method: string,
    options: CallOptions,
  ): Promise<T[]> {
    const out: T[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let n = 0; n < this.#settings.maxPages; n++) {
      const { items, nextCursor } = await page({ ...options, ...(cursor === undefined ? {} : { cursor }) });
      out.push(...items);
      if (nextCursor === undefined) return out;
      if (seen.has(nextCursor)) {
        throw clientError(
          'SNODO_ERR_INVALID_RESULT',
          `${method} returned the cursor ${JSON.stringify(nextCursor)} twice`,
        );
      }
      seen.add(nextCursor);
      cursor = nextCursor;
    }
    throw clientError(
      'SNODO_ERR_PAGE_LIMIT',
      `${method} has more than ${this.#settings.maxPages} pages (maxPages)`,
    );
  }

  /**
   * One page of tools. Over 2026-07-28 HTTP, tools whose `x-mcp-header` annotations are invalid
   * are dropped (reported through `onWarning`), and the valid ones' headers are remembered for
   * `callTool`.
   */
  async listTools(options: ListOptions = {}): Promise<Page<Tool>> {
    const page = await this.#page<Tool>('tools/list', 'tools', options);
    if (!(this.#transport.httpHeaders && this.era === 'modern')) return page;
    const kept: Tool[] = [];
    for (const tool of page.items) {
      const headers = toolHeaders(tool?.inputSchema);
      if (headers.ok) {
        this.#toolHeaders.set(tool.name, headers.params);
        kept.push(tool);
      } else {
        this.#toolHeaders.delete(tool.name);
        this.#settings.onWarning?.(`dropped tool ${JSON.stringify(tool?.name)}: ${headers.problem}`);
      }
    }
    return { ...page, items: kept };
  }

  allTools(options: CallOptions = {}): Promise<Tool[]> {
    return this.#all((o) => this.listTools(o), 'tools/list', options);
  }

  listPrompts(options: ListOptions = {}): Promise<Page<Prompt>> {
    return this.#page('prompts/list', 'prompts', options);
  }

  allPrompts(options: CallOptions = {}): Promise<Prompt[]> {
    return this.#all((o) => this.listPrompts(o), 'prompts/list', options);
  }

  listResources(options: ListOptions = {}): Promise<Page<Resource>> {
    return this.#page('resources/list', 'resources', options);
  }

  allResources(options: CallOptions = {}): Promise<Resource[]> {
    return this.#all((o) => this.listResources(o), 'resources/list', options);
  }

  listResourceTemplates(options: ListOptions = {}): Promise<Page<ResourceTemplate>> {
    return this.#page('resources/templates/list', 'resourceTemplates', options);
  }

  allResourceTemplates(options: CallOptions = {}): Promise<ResourceTemplate[]> {
    return this.#all((o) => this.listResourceTemplates(o), 'resources/templates/list', options);
  }

  /**
   * Calls a tool. A tool failure is a result with `isError: true`; a JSON-RPC error (unknown tool,
   * invalid arguments) throws `ProtocolError`. Over 2026-07-28 HTTP a -32020 refreshes the tool
   * list (for `Mcp-Param-*` headers) and retries once. With `tasks` declared, a call the server
   * made a task is followed to its end (`client.tasks.follow`).
   */
  async callTool(
    name: string,
    args: Record<string, unknown> = {},
    options: FollowOptions = {},
  ): Promise<CallToolResult> {
    const answer = await this.#callTool(name, args, options);
    if (answer.resultType !== 'task') return answer as CallToolResult;
    return this.tasks.follow(asTask(answer, 'tools/call'), options);
  }

  /** The Tasks extension: start a tool call and keep its task handle, poll, update, cancel, follow. */
  get tasks(): TaskClient {
    this.#tasks ??= new TaskClient({
      settings: this.#settings,
      request: (method, params, options) => this.request(method, params, options),
      callTool: (name, args, options) => this.#callTool(name, args, options),
    });
    return this.#tasks;
  }

  async #callTool(
    name: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<Record<string, unknown>> {
    const params = { name, arguments: args };
    const headers = () => {
      const table = this.#toolHeaders.get(name);
      return table && table.length > 0 ? paramHeaderValues(table, args) : undefined;
    };
    const useHeaders = this.#transport.httpHeaders && this.era === 'modern';
    try {
      const sent = useHeaders ? headers() : undefined;
      return (await this.#call('tools/call', params, sent ? { ...options, headers: sent } : options)).result;
    } catch (error) {
      if (!(useHeaders && ProtocolError.is(error) && error.code === -32020)) throw error;
      await this.allTools({ ...options, fresh: true });
      const sent = headers();
      return (await this.#call('tools/call', params, sent ? { ...options, headers: sent } : options)).result;
    }
  }

  async readResource(uri: string, options: CallOptions = {}): Promise<ReadResourceResult> {
    const result = await this.#cached('resources/read', uri, { uri }, options);
    return result as ReadResourceResult;
  }

  async getPrompt(
    name: string,
    args: Record<string, string> = {},
    options: CallOptions = {},
  ): Promise<GetPromptResult> {
    return (await this.#call('prompts/get', { name, arguments: args }, options)).result as GetPromptResult;
  }

  /** `completion/complete`; `context` (the other arguments) is sent on revisions after 2025-03-26. */
  async complete(
    ref: CompletionRef,
    argument: { name: string; value: string },
    context?: { arguments?: Record<string, string> },
    options: CallOptions = {},
  ): Promise<CompleteResult> {
    const params: Record<string, unknown> = { ref, argument };
    if (context !== undefined && this.protocolVersion !== '2025-03-26') params.context = context;
    return (await this.#call('completion/complete', params, options)).result as CompleteResult;
  }

  // ---- subscriptions ---------------------------------------------------------------------

  /**
   * Notifications of the kinds in `filter`, as an async iterable: `subscriptions/listen` on
   * 2026-07-28; on the initialize-based revisions `resources/subscribe` for each URI plus the
   * session's stream (stdio output, the HTTP GET stream). Await `ready` before causing a change
   * you want to see.
   */
  listen(filter: SubscriptionFilter): Subscription {
    return this.#listeners.listen(filter);
  }

  // ---- inbound ---------------------------------------------------------------------------

  #onMessage(message: JsonRpcNotification | JsonRpcRequest, relatedRequestId?: RequestId): void {
    if ('id' in message) {
      this.#onServerRequest(message, relatedRequestId);
      return;
    }
    this.#onNotification(message);
  }

  #onNotification(notification: JsonRpcNotification): void {
    const { method } = notification;
    const params = (notification.params ?? {}) as Record<string, unknown>;
    if (method === 'notifications/progress') {
      const token = params.progressToken;
      const entry = typeof token === 'string' ? this.#progress.get(token) : undefined;
      if (entry && typeof params.progress === 'number') {
        entry.onProgress({
          progress: params.progress,
          ...(typeof params.total === 'number' ? { total: params.total } : {}),
          ...(typeof params.message === 'string' ? { message: params.message } : {}),
        });
      }
    } else if (method === 'notifications/cancelled') {
      const id = params.requestId;
      if (typeof id === 'string' || typeof id === 'number') {
        this.#serverRequests
          .get(idKey(id))
          ?.abort(new Error(String(params.reason ?? 'cancelled by the server')));
        // stdio: the server ends a listen subscription this way.
        this.#listeners.cancelled(id);
      }
    } else {
      this.#invalidate(method, params);
      this.#listeners.route(notification, params);
    }
    this.#settings.onNotification?.(notification);
  }

  #invalidate(method: string, params: Record<string, unknown>): void {
    if (!this.#cache) return;
    for (const list of LIST_CHANGED[method] ?? []) this.#cache.invalidate(list);
    if (method === 'notifications/resources/updated' && typeof params.uri === 'string') {
      this.#cache.invalidate('resources/read', params.uri);
    }
  }

  #onServerRequest(request: JsonRpcRequest, relatedRequestId: RequestId | undefined): void {
    const key = idKey(request.id);
    const controller = new AbortController();
    this.#serverRequests.set(key, controller);
    const version = this.#negotiated?.version;
    serverRequestAnswer(request, this.#settings, controller.signal, relatedRequestId)
      .then((answer): JsonRpcResponse => ({ jsonrpc: '2.0', id: request.id, ...answer }) as JsonRpcResponse)
      .then((response) => {
        if (controller.signal.aborted) return;
        return this.#transport.respond(response, {
          protocolVersion: version,
          signal: NEVER_ABORTED,
        });
      })
      .catch((error: unknown) =>
        this.#settings.onWarning?.(`answering ${request.method} failed: ${String(error)}`),
      )
      .finally(() => this.#serverRequests.delete(key));
  }

  #onClosed(error: Error | undefined): void {
    if (error && !this.#failure) this.#failure = error;
    for (const controller of this.#serverRequests.values()) controller.abort(error ?? new Error('closed'));
    this.#listeners.endAll(error);
  }

  /** Ends every subscription and closes the transport (stdio: stops the process; HTTP: ends the session). Idempotent. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#listeners.endAll(undefined);
      this.#cache?.clear();
      await this.#transport.close();
    })();
    return this.#closed;
  }

  /** @internal The raw send path, for `connect`'s negotiation. */
  send(
    method: string,
    params: Record<string, unknown> | undefined,
    options: SendOptions,
  ): Promise<Record<string, unknown>> {
    return this.#send(method, params, options);
  }
}

function describeReason(reason: unknown): string {
  if (reason instanceof Error) return reason.message;
  return reason === undefined ? 'aborted' : String(reason);
}

function stdioHint(transport: ClientTransport): string {
  const last = (transport as { lastInvalidOutput?: string }).lastInvalidOutput;
  return last === undefined ? '' : ` (the server's last output that was not JSON-RPC: ${last})`;
}
