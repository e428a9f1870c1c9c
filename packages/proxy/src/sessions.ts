import type { Client } from '@snodo/client';
import { ProtocolError } from '@snodo/core';
import type { Exchange } from './exchange.js';
import { type ListChange, UpstreamListener } from './listener.js';
import type { Owner } from './principal.js';
import type { RootsSource } from './roots.js';

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
  /** Of those, calls that took it for themselves (`Use.input`): its input requests are theirs. */
  inputCalls = 0;
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

/** How a call uses an owner's sessions. */
export interface Use {
  /**
   * The call may receive the backend's input requests and nothing on the wire relates them to it
   * (stdio, in-process): it takes a session no other such call of the owner is on, opening a
   * second one (a lane) when the owner's are all taken, within `maxSessions`.
   */
  readonly input?: boolean;
  /** The session to run on when it is still open (the one that handed out the resource read). */
  readonly session?: BackendSession | undefined;
}

/**
 * The sessions of one backend that keeps them, by owner (`Owner.key`), bounded:
 *
 *   owner key ──► [ main, lane, lane … ]   the main session carries the owner's calls and its
 *                                          subscriptions; a lane carries one input call at a time
 *   acquire(owner)        ──► its main session | a new one
 *   acquire(owner, input) ──► its first session without an input call | a new lane | (none can be
 *                             opened) its least busy one, shared: an input request there that the
 *                             wire does not relate is refused, never guessed
 *   a new session past maxSessions first closes the least recently used idle lane, else idle
 *   session; a new main session with none idle is refused (-32000 backend_sessions_exhausted)
 *   release(session) ──► idle: ephemeral → closed now; otherwise closed after idleMs unless used
 *
 * A session is in use (never expired, never evicted) while it has leases, or (the main session)
 * its owner is listening; `quiet(owner)` starts the expiry of an owner that stopped listening. When
 * the main session closes, the first lane becomes the main one. `#recent` is the LRU order: a
 * session is re-inserted each time it is acquired.
 */
export class SessionPool {
  readonly #env: PoolEnv;
  readonly #owners = new Map<string, BackendSession[]>();
  readonly #recent = new Set<BackendSession>();
  /** The frontend each owner with sessions last said its roots changed on. */
  readonly #roots = new Map<string, RootsSource>();
  #closed = false;

  constructor(env: PoolEnv) {
    this.#env = env;
  }

  get size(): number {
    return this.#recent.size;
  }

  /** The owner's live main session, if it has one. */
  find(ownerKey: string): BackendSession | undefined {
    return this.#owners.get(ownerKey)?.[0];
  }

  /** Every live session of the owner, its main session first. */
  all(ownerKey: string): readonly BackendSession[] {
    return this.#owners.get(ownerKey) ?? [];
  }

  /**
   * The owner's frontend said its roots changed: it answers its sessions' `roots/list` outside a
   * call from now on. Returns the sessions to tell (none: nothing is kept).
   */
  rootsChanged(ownerKey: string, source: RootsSource): readonly BackendSession[] {
    const sessions = this.all(ownerKey);
    if (sessions.length > 0) this.#roots.set(ownerKey, source);
    return sessions;
  }

  /** Where a `roots/list` of the owner's sessions outside any call goes, if its frontend said its roots changed. */
  rootsSource(ownerKey: string): RootsSource | undefined {
    return this.#roots.get(ownerKey);
  }

  /** The owner's session that handed `original` out (a link in one of its results), with the block that named it. */
  handedOut(
    ownerKey: string,
    original: string,
  ): { session: BackendSession; block: Readonly<Record<string, unknown>> } | undefined {
    for (const session of this.all(ownerKey)) {
      const block = session.handedOut(original);
      if (block) return { session, block };
    }
    return undefined;
  }

  #main(session: BackendSession): boolean {
    return this.#owners.get(session.owner.key)?.[0] === session;
  }

  /** An owner's session with one more lease (see `Use`), opened if needed: `release` it when done. */
  async acquire(owner: Owner, what: string, use: Use = {}): Promise<BackendSession> {
    for (;;) {
      if (this.#closed) throw new ProtocolError(-32603, `The server behind ${what} was removed`);
      const group = this.#owners.get(owner.key) ?? [];
      let chosen: BackendSession | undefined;
      if (use.session && group.includes(use.session)) chosen = use.session;
      else if (!use.input) chosen = group[0];
      else if (group.length > 0) {
        chosen = group.find((session) => session.inputCalls === 0);
        if (!chosen) {
          if (this.#recent.size < this.#env.maxSessions) return this.#open(owner, use);
          const victim = this.#victim(true);
          if (victim) {
            await this.#remove(victim, 'evicted');
            continue;
          }
          // No room for a lane: share the least busy session (its unrelated input requests are refused).
          chosen = group.reduce((a, b) => (b.inputCalls < a.inputCalls ? b : a));
        }
      }
      if (chosen) return this.#lease(chosen, use);
      if (this.#recent.size < this.#env.maxSessions) return this.#open(owner, use);
      // Full: close the least recently used idle session, then look again (another acquire may
      // have taken the slot, or opened this owner's session, meanwhile).
      const victim = this.#victim(false);
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

  /** The least recently used idle lane; unless `lanesOnly`, else the least recently used idle session. */
  #victim(lanesOnly: boolean): BackendSession | undefined {
    const idle = [...this.#recent].filter((session) => this.#idle(session));
    return idle.find((session) => !this.#main(session)) ?? (lanesOnly ? undefined : idle[0]);
  }

  async #lease(session: BackendSession, use: Use): Promise<BackendSession> {
    this.#recent.delete(session);
    this.#recent.add(session);
    session.leases++;
    if (use.input) session.inputCalls++;
    if (session.timer !== undefined) {
      clearTimeout(session.timer);
      session.timer = undefined;
    }
    try {
      if (!session.client) await session.opening;
    } catch (error) {
      this.#unlease(session, use);
      throw error;
    }
    return session;
  }

  #unlease(session: BackendSession, use: Use): void {
    session.leases--;
    if (use.input) session.inputCalls--;
  }

  #open(owner: Owner, use: Use): Promise<BackendSession> {
    const session = new BackendSession(owner);
    session.leases++;
    if (use.input) session.inputCalls++;
    const group = this.#owners.get(owner.key);
    if (group) group.push(session);
    else this.#owners.set(owner.key, [session]);
    this.#recent.add(session);
    session.opening = this.#env.connect(session).then(
      (client) => {
        session.client = client;
        this.#changed('opened');
        // Its list changes (a tool that created a session resource, …) are its principal's.
        void this.listen(session, []);
        return client;
      },
      (error: unknown) => {
        this.#forget(session);
        session.closed = true;
        throw error;
      },
    );
    return session.opening.then(() => {
      if (session.closed) throw new ProtocolError(-32603, 'The backend session closed while opening');
      return session;
    });
  }

  /** Takes the session out of the pool; false when it was not in it. */
  #forget(session: BackendSession): boolean {
    if (!this.#recent.delete(session)) return false;
    const group = this.#owners.get(session.owner.key) ?? [];
    const at = group.indexOf(session);
    if (at >= 0) group.splice(at, 1);
    if (group.length === 0) {
      this.#owners.delete(session.owner.key);
      this.#roots.delete(session.owner.key);
    }
    // A lane that became the main session now waits for its owner's streams, if it is idle.
    else if (at === 0) this.#expire(group[0] as BackendSession);
    return true;
  }

  #idle(session: BackendSession): boolean {
    if (session.leases > 0 || session.client === undefined) return false;
    // A lane holds no subscription: only calls keep it.
    return !this.#main(session) || !this.#env.listening(session.owner.key);
  }

  /** One lease fewer (taken with `use`); an idle session starts expiring (an ephemeral one closes now). */
  release(session: BackendSession, use: Use = {}): void {
    this.#unlease(session, use);
    this.#expire(session);
  }

  /** The owner stopped listening: its sessions, if idle, start expiring. */
  quiet(ownerKey: string): void {
    for (const session of this.all(ownerKey)) this.#expire(session);
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
    if (!this.#forget(session)) return session.close(ended(why));
    const closing = session.close(ended(why));
    this.#changed('closed', why);
    return closing;
  }

  #changed(change: SessionChange['change'], reason?: SessionEnd): void {
    this.#env.changed({
      backend: this.#env.backend,
      change,
      ...(reason === undefined ? {} : { reason }),
      sessions: this.#recent.size,
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
    await Promise.all([...this.#recent].map((session) => this.#remove(session, 'removed')));
  }
}
