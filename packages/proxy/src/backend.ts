import {
  type Client,
  type ConnectOptions,
  type CreateMessageResult,
  connect,
  type ElicitResult,
  type InputContext,
  type ListRootsResult,
  type Target,
  TimeoutError,
  TransportError,
} from '@snodo/client';
import { ProtocolError, SnodoError, UI_EXTENSION, UI_MIME_TYPE } from '@snodo/core';
import { fetchSnapshot } from './catalog/fetch.js';
import type { BackendSnapshot } from './catalog/snapshot.js';
import { ProxyError } from './errors.js';
import type { Exchange, PendingInput } from './exchange.js';
import { type ListChange, UpstreamListener } from './listener.js';
import type { Owner } from './principal.js';
import type { RootsSource } from './roots.js';
import { type BackendSession, type Route, type SessionChange, SessionPool, type Use } from './sessions.js';
import { observedTransport } from './transport.js';
import { PROXY_VERSION } from './version.js';

export type BackendStatus = 'up' | 'degraded' | 'down';

/**
 * `per-principal` (the default): a backend that keeps sessions (initialize-based, over any
 * transport) gets one session per frontend principal. `shared`: every caller uses the one client;
 * only for backends the operator knows keep no per-session state. 2026-07-28 backends are
 * stateless and always use the one client.
 */
export type SessionMode = 'per-principal' | 'shared';

/** How a backend is reached, as given to `createProxy` or `addBackend`. */
export interface BackendSpec {
  /** `^[A-Za-z][A-Za-z0-9_-]*$`; part of every exposed URI (`mcp-proxy://<id>/…`). */
  id: string;
  /** Any `@snodo/client` target: `{ http }`, `{ stdio }`, `{ direct }` or `{ transport }`. */
  target: Target;
  /** What goes before the separator in tool and prompt names (default: the id; '' for none). */
  prefix?: string;
  /** Options of the backend's client (`timeout`, `protocolVersions`, `headers`, …). */
  clientOptions?: ConnectOptions;
  /** Default `per-principal`. */
  sessionMode?: SessionMode;
  /** Sessions held at most (per-principal mode); default the proxy's `maxBackendSessions`. */
  maxSessions?: number;
  /** The proxy's `taskAfterMs` for this backend's tools (`false`: the proxy makes no tasks of its calls). */
  taskAfterMs?: number | false;
}

/** What a backend needs from its proxy. */
export interface BackendEnv {
  readonly separator: string;
  readonly maxCatalogItems: number;
  readonly reconnectDelayMs: number;
  readonly maxBackendSessions: number;
  readonly backendSessionIdleMs: number;
  /** Validates the merged catalog with `snapshot` and publishes it; throws `ProxyError`. */
  publish(backend: Backend, snapshot: BackendSnapshot): void;
  statusChanged(backend: Backend, previous: BackendStatus): void;
  /** The backend says `original` (one of its resources its listener accepted) changed; `owner`: only to that principal. */
  resourceUpdated(backend: Backend, original: string, owner?: Owner): void;
  /** A principal's own backend session said one of its lists changed: to that principal only. */
  ownListChanged(backend: Backend, kind: ListChange, owner: Owner): void;
  /** Whether the principal has a notification stream open. */
  listening(ownerKey: string): boolean;
  sessionChanged(change: SessionChange): void;
  warning(backend: Backend, message: string): void;
}

/** The error frontends get when the backend of what they asked for is not connected. */
export function unavailable(what: string): ProtocolError {
  return new ProtocolError(
    -32603,
    `Backend unavailable: the server behind ${what} is not connected; try again later`,
    {
      reason: 'backend_unavailable',
    },
  );
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * A connection failure (as opposed to the backend answering something the proxy refuses). An
 * answer too large for the client, or an HTTP answer that is not a JSON-RPC response, fails its
 * own call only: the connection stays usable.
 */
function lostConnection(error: unknown): boolean {
  if (TransportError.is(error))
    return error.code !== 'SNODO_ERR_MESSAGE_TOO_LARGE' && error.code !== 'SNODO_ERR_INVALID_MESSAGE';
  return SnodoError.is(error) && error.code === 'SNODO_ERR_CLOSED';
}

/** The error frontends get when the backend's answer was larger than its client accepts. */
function tooLarge(what: string, limit: number | undefined): ProtocolError {
  return new ProtocolError(
    -32603,
    `The answer of the server behind ${what} is larger than the proxy accepts${limit === undefined ? '' : ` (${limit} bytes)`}`,
    { reason: 'response_too_large', ...(limit === undefined ? {} : { limit }) },
  );
}

/**
 * One backend: its client (the probing session: catalog, health, and the calls of a backend that
 * keeps no sessions), its principals' sessions, its accepted catalog snapshot, its upstream
 * listener and its health.
 *
 *   down ──connect + list + validate──► up ──refresh fails (answer refused)──► degraded
 *    ▲                                   │◄──────────── refresh succeeds ──────────┘
 *    └── transport closed / call or refresh loses the connection (retried every reconnectDelayMs)
 *
 * The snapshot survives every state: a failed refresh keeps it, and a backend that is down still
 * lists its items, so a call gets "backend unavailable", never "unknown tool".
 */
export class Backend {
  readonly id: string;
  readonly prefix: string;
  readonly spec: BackendSpec;
  /** The shared client's route: its in-flight calls that may receive input requests. */
  readonly shared: Route = { exchanges: new Set() };
  /** The principals' own sessions (per-principal mode, initialize-based backends). */
  readonly sessions: SessionPool;
  snapshot: BackendSnapshot | undefined;
  readonly #env: BackendEnv;
  #client: Client | undefined;
  #generation = 0;
  #status: BackendStatus = 'down';
  #error: string | undefined = 'not connected yet';
  #since = Date.now();
  readonly #listener: UpstreamListener;
  #refreshing: Promise<void> | undefined;
  #queued: Promise<void> | undefined;
  #reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  #reinitializing: Promise<Client> | undefined;
  #reconnecting: Promise<void> | undefined;
  #closed = false;

  constructor(spec: BackendSpec, env: BackendEnv) {
    this.spec = spec;
    this.id = spec.id;
    this.prefix = spec.prefix ?? spec.id;
    this.#env = env;
    this.sessions = new SessionPool({
      backend: spec.id,
      maxSessions: spec.maxSessions ?? env.maxBackendSessions,
      idleMs: env.backendSessionIdleMs,
      connect: (session) => this.#connectSession(session),
      listening: (ownerKey) => env.listening(ownerKey),
      updated: (session, original) => env.resourceUpdated(this, original, session.owner),
      listChanged: (session, kind) => env.ownListChanged(this, kind, session.owner),
      changed: (change) => env.sessionChanged(change),
    });
    this.#listener = new UpstreamListener({
      listChanged: () => this.refresh().catch(() => {}),
      updated: (uri) => this.#env.resourceUpdated(this, uri),
      ended: (client) => {
        if (this.#closed || client !== this.#client) return;
        // The stream ended while the connection looks alive: probe it (a dead one turns down; a
        // successful refresh listens again).
        const timer = setTimeout(() => {
          this.refresh().catch(() => {});
        }, this.#env.reconnectDelayMs);
        timer.unref?.();
      },
    });
  }

  get status(): BackendStatus {
    return this.#status;
  }

  get error(): string | undefined {
    return this.#error;
  }

  get since(): number {
    return this.#since;
  }

  get client(): Client | undefined {
    return this.#client;
  }

  /** Whether the backend's listener accepted (will report updates of) the resource `original`. */
  accepts(original: string): boolean {
    return this.#listener.accepts(original);
  }

  /**
   * Whether calls go to each principal's own session: per-principal mode and an initialize-based
   * backend (a 2026-07-28 one keeps no session). Undefined while not connected.
   */
  get perPrincipal(): boolean | undefined {
    const client = this.#client;
    if (!client) return undefined;
    return this.spec.sessionMode !== 'shared' && client.era === 'legacy';
  }

  #setStatus(status: BackendStatus, error?: unknown): void {
    const previous = this.#status;
    const message = error === undefined ? undefined : describe(error);
    if (previous === status && message === this.#error) return;
    this.#status = status;
    this.#error = message;
    if (previous !== status) this.#since = Date.now();
    this.#env.statusChanged(this, previous);
  }

  // ---- connecting --------------------------------------------------------------------------

  /** The client options of a connection whose input requests go to `route`'s calls. */
  #options(route: Route, connections: number): ConnectOptions {
    const own = this.spec.clientOptions ?? {};
    return {
      clientInfo: { name: 'snodo-proxy', version: PROXY_VERSION },
      // The proxy keeps its own snapshot; a client cache would only serve stale lists and reads.
      cache: false,
      connections,
      ...own,
      // Backends' tasks: handed to frontends that declare the extension, followed for the others.
      tasks: own.tasks ?? true,
      // Everything a frontend might answer: whether this one can is decided per request (-32021
      // otherwise); MCP Apps, so the catalog has the UI links and pages (shown to frontends that declared it).
      capabilities: {
        elicitation: { form: {}, url: {} },
        sampling: {},
        roots: {},
        ...own.capabilities,
        extensions: { [UI_EXTENSION]: { mimeTypes: [UI_MIME_TYPE] }, ...own.capabilities?.extensions },
      },
      // The frontend's answers go back to the backend as they are.
      onElicit: (params, context) =>
        this.#input(route, 'elicitation/create', params, context) as Promise<ElicitResult>,
      onSample: (params, context) =>
        this.#input(route, 'sampling/createMessage', params, context) as Promise<CreateMessageResult>,
      onRoots: (params, context) =>
        this.#input(route, 'roots/list', params, context) as Promise<ListRootsResult>,
      onWarning: (message) => this.#env.warning(this, message),
    };
  }

  async #connect(): Promise<Client> {
    const generation = ++this.#generation;
    // One HTTP backend serves every frontend's calls: more keep-alive connections than a client's 16.
    const options = this.#options(this.shared, 64);
    let client: Client;
    // Only an established connection can be lost: a failed connect closes its transport too.
    let established = false;
    try {
      const transport = observedTransport(this.spec.target, options, (error) => {
        if (established) this.#lost(generation, error ?? new Error('the connection closed'));
      });
      client = await connect({ transport }, options);
      established = true;
    } catch (error) {
      throw new ProxyError(
        'SNODO_ERR_BACKEND_CONNECT',
        `backend "${this.id}": ${describe(error)}`,
        { backend: this.id },
        error,
      );
    }
    if (this.#closed || generation !== this.#generation) {
      await client.close().catch(() => {});
      throw new ProxyError('SNODO_ERR_BACKEND_CONNECT', `backend "${this.id}" was removed while connecting`, {
        backend: this.id,
      });
    }
    this.#client = client;
    return client;
  }

  /** Connects and accepts the first catalog; throws (leaving nothing running) when either fails. */
  async start(): Promise<void> {
    const client = await this.#connect();
    try {
      await this.#accept(client);
    } catch (error) {
      this.#client = undefined;
      await client.close().catch(() => {});
      throw error;
    }
  }

  /** Like `start`, but a failure leaves the backend down (or degraded) and retrying. */
  async startOrRetry(): Promise<void> {
    let client: Client;
    try {
      client = await this.#connect();
    } catch (error) {
      this.#setStatus('down', error);
      this.#scheduleReconnect();
      return;
    }
    try {
      await this.#accept(client);
    } catch (error) {
      try {
        this.#refreshFailed(client, error);
      } catch {
        // Recorded in the status; retried by the reconnect loop or the health probe.
      }
    }
  }

  /**
   * A principal's own session: a client of its own (a process, an HTTP session) whose input
   * requests go to that principal's calls. Losing its connection ends that session only.
   */
  async #connectSession(session: BackendSession): Promise<Client> {
    const options = this.#options(session, 16);
    const transport = observedTransport(this.spec.target, options, () => {
      if (!session.closed) void this.sessions.drop(session, 'lost');
    });
    return connect({ transport }, options);
  }

  /** Fetches, validates and publishes the catalog of `client`, then listens for its changes. */
  async #accept(client: Client): Promise<void> {
    const snapshot = await fetchSnapshot(
      client,
      { id: this.id, prefix: this.prefix, separator: this.#env.separator },
      this.#env.maxCatalogItems,
    );
    if (this.#closed || client !== this.#client) return;
    this.#env.publish(this, snapshot);
    this.snapshot = snapshot;
    this.#setStatus('up');
    // Per principal, resource updates come from each principal's own session (`subscribe`).
    const resources = this.perPrincipal ? [] : snapshot.resources.map((entry) => entry.item.original);
    void this.#listener.ensure(client, resources);
  }

  #refreshFailed(client: Client, error: unknown): never {
    if (lostConnection(error)) this.#lost(this.#generation, error);
    else if (client === this.#client && !this.#closed) this.#setStatus('degraded', error);
    throw error;
  }

  /**
   * Fetches and validates the catalog again, now; a refresh already running finishes first (at
   * most one runs and one waits). Rejects when it fails: the last accepted snapshot stays and the
   * backend is `degraded` (or `down` when the connection is gone).
   */
  refresh(): Promise<void> {
    if (!this.#refreshing) {
      const run = this.#refreshOnce();
      this.#refreshing = run;
      run.then(
        () => this.#clearRefresh(run),
        () => this.#clearRefresh(run),
      );
      return run;
    }
    this.#queued ??= this.#refreshing
      .catch(() => {})
      .then(() => {
        this.#queued = undefined;
        return this.refresh();
      });
    return this.#queued;
  }

  #clearRefresh(run: Promise<void>): void {
    if (this.#refreshing === run) this.#refreshing = undefined;
  }

  async #refreshOnce(): Promise<void> {
    if (this.#closed) throw new ProxyError('SNODO_ERR_PROXY_CLOSED', `backend "${this.id}" was removed`);
    const client = this.#client;
    if (!client || this.#status === 'down') {
      // Down: try to reconnect now rather than at the next tick of the reconnect loop.
      if (this.#reconnectTimer !== undefined) {
        clearTimeout(this.#reconnectTimer);
        this.#reconnectTimer = undefined;
      }
      await this.#reconnect();
      if (this.#status === 'up') return;
      const code = this.#status === 'down' ? 'SNODO_ERR_BACKEND_CONNECT' : 'SNODO_ERR_BACKEND_CATALOG';
      throw new ProxyError(code, `backend "${this.id}": ${this.#error ?? this.#status}`, {
        backend: this.id,
      });
    }
    try {
      await this.#accept(client);
    } catch (error) {
      this.#refreshFailed(client, error);
    }
  }

  // ---- losing and regaining the connection --------------------------------------------------

  /** The connection of `generation` is gone: down, and retried every reconnectDelayMs. */
  #lost(generation: number, error: unknown): void {
    if (this.#closed || generation !== this.#generation) return;
    const client = this.#client;
    this.#client = undefined;
    this.#generation++;
    this.#listener.close();
    client?.close().catch(() => {});
    this.#setStatus('down', error);
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#reconnectTimer !== undefined) return;
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      void this.#reconnect();
    }, this.#env.reconnectDelayMs);
    this.#reconnectTimer.unref?.();
  }

  /** One reconnection attempt at a time (the timer's, or `refreshBackend`'s). */
  #reconnect(): Promise<void> {
    this.#reconnecting ??= this.#reconnectOnce().finally(() => {
      this.#reconnecting = undefined;
    });
    return this.#reconnecting;
  }

  async #reconnectOnce(): Promise<void> {
    if (this.#closed || this.#client) return;
    let client: Client;
    try {
      client = await this.#connect();
    } catch (error) {
      if (this.#closed) return;
      this.#setStatus('down', error);
      this.#scheduleReconnect();
      return;
    }
    await this.#accept(client).catch((error: unknown) => {
      try {
        this.#refreshFailed(client, error);
      } catch {
        // Recorded in the status.
      }
    });
  }

  /**
   * The server forgot the session (HTTP 404 on an initialize-based revision): connect again, once
   * for every call that saw it. The catalog is kept; a refresh follows.
   */
  #reinitialize(generation: number): Promise<Client> {
    if (generation !== this.#generation && this.#client) return Promise.resolve(this.#client);
    this.#reinitializing ??= (async () => {
      const old = this.#client;
      this.#client = undefined;
      // The old transport's close must not count as losing the new connection.
      this.#generation++;
      this.#listener.close();
      old?.close().catch(() => {});
      try {
        const client = await this.#connect();
        this.refresh().catch(() => {});
        return client;
      } catch (error) {
        this.#setStatus('down', error);
        this.#scheduleReconnect();
        throw error;
      }
    })().finally(() => {
      this.#reinitializing = undefined;
    });
    return this.#reinitializing;
  }

  // ---- calls ------------------------------------------------------------------------------

  /**
   * Runs `send` for `owner` with honest failures: on its own session when the backend keeps
   * sessions per principal, else on the shared client. Not connected, or the connection lost during
   * the call → "backend unavailable" (the shared client's loss turns the backend down; a session's
   * ends that session only); past the client's timeout → -32001; an answer too large → -32603
   * `response_too_large`; the backend's own JSON-RPC errors as they are. A 404 for the session
   * re-initializes once and sends again: the server did not run the request.
   */
  async call<T>(
    what: string,
    owner: Owner | undefined,
    send: (client: Client, route: Route) => Promise<T>,
    use: Use = {},
  ): Promise<T> {
    const client = this.#client;
    if (!client || this.#status === 'down' || this.#closed) throw unavailable(what);
    if (owner && this.perPrincipal) {
      // Over HTTP a backend's input request comes on the stream of the request it is for: several
      // calls may share a session. Elsewhere nothing relates it: each input call takes a session.
      const related = 'http' in this.spec.target;
      return this.#callInSession(what, owner, send, related ? { session: use.session } : use);
    }
    const generation = this.#generation;
    const lost = (error: unknown) => {
      if (TransportError.is(error)) this.#lost(generation, error);
    };
    const gone = () => this.#closed || generation !== this.#generation;
    try {
      return await send(client, this.shared);
    } catch (error) {
      if (!(TransportError.is(error) && error.code === 'SNODO_ERR_SESSION_EXPIRED'))
        throw this.#callError(what, error, lost, gone);
      let fresh: Client;
      try {
        fresh = await this.#reinitialize(generation);
      } catch {
        throw unavailable(what);
      }
      try {
        return await send(fresh, this.shared);
      } catch (again) {
        const current = this.#generation;
        throw this.#callError(what, again, (e) => TransportError.is(e) && this.#lost(current, e), gone);
      }
    }
  }

  async #callInSession<T>(
    what: string,
    owner: Owner,
    send: (client: Client, route: Route) => Promise<T>,
    use: Use,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const session = await this.#acquire(owner, what, use);
      try {
        return await send(session.client as Client, session);
      } catch (error) {
        const expired = TransportError.is(error) && error.code === 'SNODO_ERR_SESSION_EXPIRED';
        if (expired) void this.sessions.drop(session, 'forgotten');
        if (expired && attempt === 0) continue;
        throw this.#callError(
          what,
          error,
          () => {
            void this.sessions.drop(session, 'lost');
            // Perhaps the server itself is gone: the probe finds out now rather than at its next tick.
            this.refresh().catch(() => {});
          },
          () => this.#closed || session.closed,
        );
      } finally {
        this.sessions.release(session, use);
      }
    }
  }

  async #acquire(owner: Owner, what: string, use?: Use): Promise<BackendSession> {
    try {
      return await this.sessions.acquire(owner, what, use);
    } catch (error) {
      if (ProtocolError.is(error)) throw error;
      this.#env.warning(this, `a session for a caller could not be opened: ${describe(error)}`);
      throw unavailable(what);
    }
  }

  /**
   * Per principal: opens (or reuses) the owner's session and listens there for updates of the
   * snapshot's resources; resolves with the originals of `wanted` it accepted. The caller keeps
   * the owner listening first, so the session is not closed as idle meanwhile.
   */
  async subscribe(owner: Owner, wanted: readonly string[], what: string): Promise<ReadonlySet<string>> {
    const session = await this.#acquire(owner, what);
    try {
      const all = (this.snapshot?.resources ?? []).map((entry) => entry.item.original);
      const accepted = await this.sessions.listen(session, all);
      return new Set(wanted.filter((uri) => accepted.has(uri)));
    } finally {
      this.sessions.release(session);
    }
  }

  /**
   * `owner`'s frontend said its roots changed: its own sessions here are told (a shared or
   * 2026-07-28 backend's client serves everyone, and asks for roots only within calls).
   */
  rootsChanged(owner: Owner, source: RootsSource): void {
    if (!this.perPrincipal) return;
    for (const session of this.sessions.rootsChanged(owner.key, source)) {
      session.client
        ?.notify('notifications/roots/list_changed')
        .catch((error: unknown) =>
          this.#env.warning(this, `telling a session its caller's roots changed failed: ${describe(error)}`),
        );
    }
  }

  #callError(what: string, error: unknown, lost: (error: unknown) => void, gone: () => boolean): unknown {
    if (ProtocolError.is(error)) return error;
    if (TimeoutError.is(error)) {
      return new ProtocolError(
        -32001,
        `Request timed out: the server behind ${what} did not answer within ${error.timeout} ms`,
      );
    }
    if (SnodoError.is(error) && error.code === 'SNODO_ERR_ABORTED') {
      // Aborted because this backend (or the caller's session) was removed or lost: the frontend
      // gets "unavailable". Otherwise the frontend itself cancelled.
      return gone() ? unavailable(what) : error;
    }
    if (TransportError.is(error) && error.code === 'SNODO_ERR_MESSAGE_TOO_LARGE') {
      return tooLarge(what, error.limit);
    }
    if (TransportError.is(error) && error.code === 'SNODO_ERR_INVALID_MESSAGE') {
      return new ProtocolError(
        -32603,
        `The server behind ${what} answered something that is not a JSON-RPC response`,
        {
          reason: 'invalid_response',
        },
      );
    }
    if (lostConnection(error)) {
      lost(error);
      return unavailable(what);
    }
    if (SnodoError.is(error) && error.code === 'SNODO_ERR_INVALID_RESULT') {
      return new ProtocolError(-32603, `The server behind ${what} answered an invalid result`);
    }
    return error;
  }

  /**
   * The backend's server-initiated request (elicitation, sampling, roots) goes to the call on that
   * connection it belongs to (a principal's session carries only that principal's calls): the call
   * whose request stream carried it (HTTP), else the only call in flight there (elsewhere each call
   * that may ask takes a session of its own: `Use.input`). Never a guess: with no such call (it
   * ended), or several sharing a stdio session (`maxSessions` left no room for one each), the
   * backend gets an error.
   */
  #input(
    route: Route,
    method: PendingInput['method'],
    params: Record<string, unknown>,
    context: InputContext,
  ) {
    const candidates = [...route.exchanges].filter((exchange) => !exchange.settled);
    const related = context.relatedRequestId;
    if (related !== undefined) {
      const owner = candidates.find((exchange) => exchange.owns(related));
      if (owner) return owner.ask(method, params, context.signal);
      throw new ProtocolError(-32603, `${method}: the request of the proxy it was sent for has ended`);
    }
    if (candidates.length === 1) return (candidates[0] as Exchange).ask(method, params, context.signal);
    // Outside any call (the session re-lists roots its caller said changed): that caller's frontend answers.
    const source = route.session && this.sessions.rootsSource(route.session.owner.key);
    if (candidates.length === 0 && method === 'roots/list' && source) return source(context.signal);
    throw new ProtocolError(
      -32603,
      candidates.length === 0
        ? `${method}: no request of the proxy to this server is waiting for input`
        : `${method}: the proxy cannot tell which of its ${candidates.length} requests to this server asks`,
    );
  }

  /** Stops everything: timers, listener, parked and running exchanges, the clients and sessions. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#reconnectTimer !== undefined) clearTimeout(this.#reconnectTimer);
    this.#listener.close();
    for (const exchange of this.shared.exchanges) exchange.abort(unavailable('this request'));
    const client = this.#client;
    this.#client = undefined;
    this.#generation++;
    await Promise.all([client?.close().catch(() => {}), this.sessions.close()]);
  }
}
