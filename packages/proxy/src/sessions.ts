import type { Client } from '@snodo/client';
import { ProtocolError } from '@snodo/core';
import type { Exchange } from './exchange.js';
import { type ListChange, UpstreamListener } from './listener.js';
import type { Owner } from './principal.js';

/** What the calls still waiting on a closed session get: the frontend sees "backend unavailable". */
function ended(why: SessionEnd): ProtocolError {
  return new ProtocolError(
    -32603,
    `Backend unavailable: the session of this caller with the server closed (${why}); try again`,
    { reason: 'backend_unavailable' },
  );
}

/** Links a session handed out that are kept readable by its owner, at most (oldest forgotten first). */
const MAX_HANDED_OUT = 256;

/**
 * Where a backend call runs: a client connection, and the calls on it that may receive its
 * server-initiated requests (elicitation, sampling, roots). The shared client is one route; each
 * principal's backend session is another.
 */
export interface Route {
  readonly exchanges: Set<Exchange>;
  /** Set for a principal's own session (its resources outside the catalog are readable by it). */
  readonly session?: BackendSession;
}

/**
 * Why a principal's backend session closed: unused for `backendSessionIdleMs` (`idle`), to make
 * room for another principal (`evicted`), the end of the one request it served (`ephemeral`), its
 * connection lost (`lost`), the server forgot it (`forgotten`: HTTP 404), or the backend or proxy
 * went away (`removed`).
 */
export type SessionEnd = 'idle' | 'evicted' | 'ephemeral' | 'lost' | 'forgotten' | 'removed';

/** A principal's backend session opened or closed (`onSessionChange`). No principal is named. */
export interface SessionChange {
  readonly backend: string;
  readonly change: 'opened' | 'closed';
  /** Why it closed. */
  readonly reason?: SessionEnd;
  /** The backend's sessions after the change. */
  readonly sessions: number;
}

/** What a pool needs from its backend. */
export interface PoolEnv {
  readonly backend: string;
  readonly maxSessions: number;
  readonly idleMs: number;
  /** Connects `session`'s client: its input requests go to `session.exchanges`. */
  connect(session: BackendSession): Promise<Client>;
  /** Whether the owner has a notification stream open (its sessions are in use). */
  listening(ownerKey: string): boolean;
  /** `session`'s listener says `original` (a resource it accepted) changed. */
  updated(session: BackendSession, original: string): void;
  /** `session`'s backend said one of its lists changed (for that session's principal only). */
  listChanged(session: BackendSession, kind: ListChange): void;
  changed(change: SessionChange): void;
}

/** One principal's session with a backend: its own client connection (a stdio process, an HTTP session). */
export class BackendSession implements Route {
  readonly owner: Owner;
  readonly exchanges = new Set<Exchange>();
  /** Original URIs of links and embedded resources this session returned, with the block that named each. */
  readonly #handedOut = new Map<string, Readonly<Record<string, unknown>>>();
  client: Client | undefined;
  opening: Promise<Client> | undefined;
  /** Calls running on it, or parked waiting for their frontend's input. */
  leases = 0;
  closed = false;
  timer: ReturnType<typeof setTimeout> | undefined;
  listener: UpstreamListener | undefined;

  constructor(owner: Owner) {
    this.owner = owner;
  }

  get session(): BackendSession {
    return this;
  }

  /** Records a URI this session handed out (a resource link in a result), so its owner can read it. */
  handOut(original: string, block: Readonly<Record<string, unknown>>): void {
    // What describes it, never its content (an embedded resource may carry a large blob).
    const described: Record<string, unknown> = { uri: original };
    for (const key of ['name', 'title', 'description', 'mimeType'] as const) {
      if (typeof block[key] === 'string') described[key] = block[key];
    }
    this.#handedOut.delete(original);
    this.#handedOut.set(original, Object.freeze(described));
    if (this.#handedOut.size > MAX_HANDED_OUT) {
      const [oldest] = this.#handedOut.keys();
      this.#handedOut.delete(oldest as string);
    }
  }

  /** The block that handed `original` out, if this session did. */
  handedOut(original: string): Readonly<Record<string, unknown>> | undefined {
    return this.#handedOut.get(original);
  }

  /** Ends it: its listener, its waiting calls (aborted with `reason`), its connection. Idempotent. */
  async close(reason: unknown): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.listener?.close();
    for (const exchange of this.exchanges) exchange.abort(reason);
    const client = this.client ?? (await this.opening?.catch(() => undefined));
    await client?.close().catch(() => {});
  }
}

/**
 * The sessions of one backend that keeps them, one per owner (`Owner.key`), bounded:
 *
 *   acquire(owner) ──► its session (moved to the most recently used end) | a new one; a new one
 *                      past maxSessions first closes the least recently used idle session, and
 *                      with none idle is refused (-32000 backend_sessions_exhausted)
 *   release(session) ──► idle: ephemeral → closed now; otherwise closed after idleMs unless used
 *
 * A session is in use (never expired, never evicted) while it has leases or its owner is
 * listening; `quiet(owner)` starts the expiry of an owner that stopped listening. The map's
 * insertion order is the LRU order: a session is re-inserted each time it is acquired.
 */
export class SessionPool {
  readonly #env: PoolEnv;
  readonly #sessions = new Map<string, BackendSession>();
  #closed = false;

  constructor(env: PoolEnv) {
    this.#env = env;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** The owner's live session, if it has one. */
  find(ownerKey: string): BackendSession | undefined {
    return this.#sessions.get(ownerKey);
  }

  /** The owner's session, opened if needed, with one more lease: `release` it when done. */
  async acquire(owner: Owner, what: string): Promise<BackendSession> {
    for (;;) {
      if (this.#closed) throw new ProtocolError(-32603, `The server behind ${what} was removed`);
      const existing = this.#sessions.get(owner.key);
      if (existing) {
        this.#sessions.delete(owner.key);
        this.#sessions.set(owner.key, existing);
        existing.leases++;
        if (existing.timer !== undefined) {
          clearTimeout(existing.timer);
          existing.timer = undefined;
        }
        try {
          if (!existing.client) await existing.opening;
        } catch (error) {
          existing.leases--;
          throw error;
        }
        return existing;
      }
      if (this.#sessions.size < this.#env.maxSessions) return this.#open(owner);
      // Full: close the least recently used idle session, then look again (another acquire may
      // have taken the slot, or opened this owner's session, meanwhile).
      const victim = [...this.#sessions.values()].find((session) => this.#idle(session));
      if (!victim) {
        throw new ProtocolError(
          -32000,
          `The server behind ${what} has ${this.#env.maxSessions} sessions (maxBackendSessions) and every one is in use: try again later`,
          { reason: 'backend_sessions_exhausted', limit: this.#env.maxSessions },
        );
      }
      await this.#remove(victim, 'evicted');
    }
  }

  #open(owner: Owner): Promise<BackendSession> {
    const session = new BackendSession(owner);
    session.leases++;
    this.#sessions.set(owner.key, session);
    session.opening = this.#env.connect(session).then(
      (client) => {
        session.client = client;
        this.#changed('opened');
        // Its list changes (a tool that created a session resource, …) are its principal's.
        void this.listen(session, []);
        return client;
      },
      (error: unknown) => {
        if (this.#sessions.get(owner.key) === session) this.#sessions.delete(owner.key);
        session.closed = true;
        throw error;
      },
    );
    return session.opening.then(() => {
      if (session.closed) throw new ProtocolError(-32603, 'The backend session closed while opening');
      return session;
    });
  }

  #idle(session: BackendSession): boolean {
    return session.leases === 0 && session.client !== undefined && !this.#env.listening(session.owner.key);
  }

  /** One lease fewer; an idle session starts expiring (an ephemeral one closes now). */
  release(session: BackendSession): void {
    session.leases--;
    this.#expire(session);
  }

  /** The owner stopped listening: its session, if idle, starts expiring. */
  quiet(ownerKey: string): void {
    const session = this.#sessions.get(ownerKey);
    if (session) this.#expire(session);
  }

  #expire(session: BackendSession): void {
    if (session.closed || !this.#idle(session) || session.timer !== undefined) return;
    if (session.owner.ephemeral) {
      void this.#remove(session, 'ephemeral');
      return;
    }
    session.timer = setTimeout(() => {
      session.timer = undefined;
      if (this.#idle(session)) void this.#remove(session, 'idle');
    }, this.#env.idleMs);
    session.timer.unref?.();
  }

  /** Removes the session (its connection was lost, or the server forgot it) and closes it. */
  drop(session: BackendSession, why: 'lost' | 'forgotten'): Promise<void> {
    return this.#remove(session, why);
  }

  #remove(session: BackendSession, why: SessionEnd): Promise<void> {
    if (this.#sessions.get(session.owner.key) !== session) return session.close(ended(why));
    this.#sessions.delete(session.owner.key);
    const closing = session.close(ended(why));
    this.#changed('closed', why);
    return closing;
  }

  #changed(change: SessionChange['change'], reason?: SessionEnd): void {
    this.#env.changed({
      backend: this.#env.backend,
      change,
      ...(reason === undefined ? {} : { reason }),
      sessions: this.#sessions.size,
    });
  }

  /**
   * Listens on the owner's session for its list changes and updates of `resources`; resolves with
   * those it accepted. An initialize-based session's listening is local (its notifications arrive
   * on the session anyway) but for the `resources/subscribe` of each resource.
   */
  async listen(session: BackendSession, resources: readonly string[]): Promise<ReadonlySet<string>> {
    const client = session.client;
    if (!client || session.closed) return new Set();
    session.listener ??= new UpstreamListener({
      listChanged: (kind) => this.#env.listChanged(session, kind),
      updated: (uri) => this.#env.updated(session, uri),
      ended: () => {},
    });
    await session.listener.ensure(client, resources);
    return new Set(resources.filter((uri) => session.listener?.accepts(uri)));
  }

  /** Closes every session (the backend is removed, or the proxy closes). Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#sessions.values()].map((session) => this.#remove(session, 'removed')));
  }
}
