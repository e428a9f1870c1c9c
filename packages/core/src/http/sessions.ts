import type { AuthInfo } from '../dispatch/context.js';
import { type ClientRequestChannel, ClientRequestError } from '../dispatch/input.js';
import type { Session } from '../dispatch/session.js';
import { MessageStream } from '../dispatch/stream.js';
import { type ControlChannel, type ControlMessage, MemoryControlChannel } from '../engine/control.js';
import { type Cancellable, RequestRegistry } from '../engine/registry.js';
import type { RequestSink } from '../engine/run.js';
import { ErrorCode } from '../errors/codes.js';
import type { JsonRpcMessage } from '../jsonrpc/types.js';
import { COMMON_RULES, option } from '../limits/validate.js';
import type { Runtime } from '../router/runtime.js';
import { openSessionNotifications } from '../subscriptions/session-notifications.js';
import {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_TIMEOUT,
  MAX_SESSION_ID_LENGTH,
  SESSION_ID_BYTES,
} from './defaults.js';

/**
 * Where the sessions of the initialize-based revisions live, keyed by `Mcp-Session-Id`. Sessions
 * are plain data (core's `Session`), so a shared store (Redis, a database) lets several instances
 * serve one endpoint. Every method may return a promise. A store expires idle sessions itself.
 */
export interface SessionStore {
  get(id: string): Session | undefined | Promise<Session | undefined>;
  set(id: string, session: Session): void | Promise<void>;
  delete(id: string): void | Promise<void>;
}

export interface MemorySessionStoreOptions {
  /** Sessions held at once; the least recently used one is evicted to make room. Default 10,000. */
  maxSessions?: number;
  /** A session unused for this long (ms) is forgotten. Default 30 minutes; 0 disables expiry. */
  sessionIdleTimeout?: number;
  /** Clock for tests. */
  now?: () => number;
}

/**
 * The default store: one Map in least-recently-used order (a `get` or `set` moves the entry to the
 * back), so both bounds are O(1) at the front.
 *
 *   front ─► [ oldest use … newest use ] ◄─ back       size <= maxSessions
 *
 * - full: `set` of a new id evicts the front (least recently used). Eviction, not refusal: an evicted
 *   client gets 404 and re-initializes, the recovery the spec defines, whereas refusing new sessions
 *   would let idle ones lock every new client out until they expire.
 * - idle: an entry whose last use is older than `sessionIdleTimeout` is dead; `get` drops it, and
 *   `set` drops dead ones from the front. No timer runs, so the store costs nothing when unused
 *   and works where timers are unavailable.
 */
export class MemorySessionStore implements SessionStore {
  readonly #entries = new Map<string, { session: Session; used: number }>();
  readonly #max: number;
  readonly #idle: number;
  readonly #now: () => number;

  constructor(options: MemorySessionStoreOptions = {}) {
    this.#max = option('maxSessions', options.maxSessions, COMMON_RULES.maxSessions, DEFAULT_MAX_SESSIONS);
    this.#idle = option(
      'sessionIdleTimeout',
      options.sessionIdleTimeout,
      COMMON_RULES.sessionIdleTimeout,
      DEFAULT_SESSION_IDLE_TIMEOUT,
    );
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(id: string): Session | undefined {
    const entry = this.#entries.get(id);
    if (entry === undefined) return undefined;
    const now = this.#now();
    this.#entries.delete(id);
    if (this.#expired(entry.used, now)) return undefined;
    entry.used = now;
    this.#entries.set(id, entry);
    return entry.session;
  }

  set(id: string, session: Session): void {
    const now = this.#now();
    this.#entries.delete(id);
    for (const [oldest, entry] of this.#entries) {
      if (this.#entries.size < this.#max && !this.#expired(entry.used, now)) break;
      this.#entries.delete(oldest);
    }
    this.#entries.set(id, { session, used: now });
  }

  delete(id: string): void {
    this.#entries.delete(id);
  }

  #expired(used: number, now: number): boolean {
    return this.#idle !== 0 && now - used >= this.#idle;
  }
}

/** A new session id: 160 random bits from the platform CSPRNG, as base64url (visible ASCII). */
export function mintSessionId(): string {
  const bytes = new Uint8Array(SESSION_ID_BYTES);
  globalThis.crypto.getRandomValues(bytes);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Whether a received `Mcp-Session-Id` could be one (visible ASCII 0x21–0x7E, bounded length). */
export function plausibleSessionId(id: string): boolean {
  return id.length > 0 && id.length <= MAX_SESSION_ID_LENGTH && /^[\x21-\x7e]+$/.test(id);
}

/**
 * What one instance holds for a session besides its data: the engine's request registry (the
 * requests running here, so that `notifications/cancelled` and DELETE can stop them, and the
 * correlation of server-initiated requests with the client's answers), the response stream of each
 * request (where a server-initiated request for it goes), and the standalone GET streams (where
 * `resources/subscribe` notifications go). Its registry is the session's `ControlHolder` on this
 * instance: control messages reach it through the handler's `ControlChannel`, which may route them
 * from another instance.
 */
export class LocalSession {
  readonly relays = new Map<string, RequestSink>();
  readonly streams = new Set<{ close(): void; push(message: JsonRpcMessage): boolean }>();
  /** The session as this instance last stored it (what the GET stream filters by). */
  current: Session | undefined;
  readonly registry: RequestRegistry;
  detach: () => void = () => {};
  /** Server-initiated requests of the session's requests; the registry's are made on the first one. */
  readonly channel: ClientRequestChannel = {
    request: (method, params, options) =>
      this.registry.clientRequests.channel.request(method, params, options),
  };

  constructor(timeout: number | undefined) {
    this.registry = new RequestRegistry(
      (message, related) => {
        const relay = related === undefined ? undefined : this.relays.get(related);
        // A request whose own stream has closed (or that has none) goes on the standalone GET stream.
        if (relay) relay.push(message);
        else for (const stream of this.streams) if (stream.push(message)) break;
      },
      {
        clientRequestTimeout: timeout,
        onUpdate: (session) => {
          this.current = session;
        },
        onEnd: () => {
          this.detach();
          for (const stream of [...this.streams]) stream.close();
        },
      },
    );
  }

  get idle(): boolean {
    return this.registry.idle && this.streams.size === 0;
  }

  /** A control message for this session (through the channel). */
  receive(message: ControlMessage): boolean {
    const reached = this.registry.receive(message);
    if (message.kind === 'answer' && this.idle) this.detach();
    return reached;
  }
}

/**
 * The `LocalSession`s of one handler; an entry exists (and is attached to the control channel)
 * only while it holds something.
 */
export class LocalSessions {
  readonly #sessions = new Map<string, LocalSession>();

  constructor(
    readonly control: ControlChannel = new MemoryControlChannel(),
    private readonly clientRequestTimeout?: number,
  ) {}

  #local(sessionId: string): LocalSession {
    let local = this.#sessions.get(sessionId);
    if (local === undefined) {
      const created = new LocalSession(this.clientRequestTimeout);
      const detach = this.control.attach(sessionId, created);
      created.detach = () => {
        detach();
        if (this.#sessions.get(sessionId) === created) this.#sessions.delete(sessionId);
      };
      this.#sessions.set(sessionId, created);
      local = created;
    }
    return local;
  }

  /**
   * Registers a running request and its response stream; the returned function unregisters it.
   * Hand `channel` to `dispatch` so that server-initiated requests reach this request's stream.
   */
  track(
    sessionId: string,
    requestKey: string,
    request: Cancellable,
    relay?: RequestSink,
  ): { channel: ClientRequestChannel; untrack: () => void } {
    const session = this.#local(sessionId);
    session.registry.track(requestKey, request);
    if (relay) session.relays.set(requestKey, relay);
    return {
      channel: session.channel,
      untrack: () => {
        session.registry.untrack(requestKey, request);
        if (relay && session.relays.get(requestKey) === relay) session.relays.delete(requestKey);
        if (session.idle) session.detach();
      },
    };
  }

  /**
   * The channel of requests to a session's client outside any of its requests: they go on its
   * standalone GET stream, so one is refused at once when no such stream is open here.
   */
  outside(sessionId: string): ClientRequestChannel {
    return {
      request: (method, params, options) => {
        const held = this.#sessions.get(sessionId);
        if (held === undefined || held.streams.size === 0) {
          return Promise.reject(
            new ClientRequestError(
              ErrorCode.InternalError,
              `${method}: the client has no stream open here to receive a request outside its own`,
            ),
          );
        }
        const answer = held.registry.clientRequests.channel.request(method, params, options);
        // Answered or not, the session may hold nothing more.
        const settled = () => {
          if (held.idle) held.detach();
        };
        answer.then(settled, settled);
        return answer;
      },
    };
  }

  /**
   * Opens the standalone GET stream of a session: the session's notifications (list changes, its
   * `resources/subscribe` URIs, read from the session this instance last stored) and the
   * server-initiated requests that have no request stream to go on. `close` is idempotent.
   */
  openStream(
    sessionId: string,
    session: Session,
    runtime: Runtime,
    queueSize?: number,
    auth?: AuthInfo,
  ): MessageStream & { close(): void; readonly dropped: AbortSignal } {
    const owner = this.#local(sessionId);
    owner.current ??= session;
    const out = new MessageStream();
    const dropped = new AbortController();
    const notes = openSessionNotifications(runtime, () => owner.current, queueSize, {
      auth,
      connectionId: sessionId,
    });
    let open = true;
    const stream = Object.assign(out, {
      dropped: dropped.signal,
      close: () => {
        if (!open) return;
        open = false;
        notes.close();
        out.abandon();
        owner.streams.delete(stream);
        if (owner.idle) owner.detach();
      },
    });
    owner.streams.add(stream);
    const drop = () => {
      if (open) dropped.abort(new Error('the reader fell too far behind'));
    };
    notes.dropped.addEventListener('abort', drop, { once: true });
    (async () => {
      let full = false;
      for await (const message of notes) {
        if (!out.push(message)) {
          full = !out.ended;
          break;
        }
      }
      // The session's notifications overflowed (the client stopped reading): drop the reader now,
      // so that its slot returns without waiting for the stalled client to read again.
      if (full) drop();
      stream.close();
    })();
    return stream;
  }

  /** Requests running across this instance's sessions (for tests and stats). */
  get running(): number {
    let count = 0;
    for (const local of this.#sessions.values()) count += local.registry.running;
    return count;
  }
}
