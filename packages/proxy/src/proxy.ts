import {
  type ChangeEvent,
  type ChangeHub,
  createChangeHub,
  type Logger,
  type Runtime,
  type TaskManager,
} from '@snodo/core';
import { log } from '@snodo/core/internal';
import { Backend, type BackendEnv, type BackendSpec, type BackendStatus } from './backend.js';
import { Catalog } from './catalog/catalog.js';
import type { BackendSnapshot, ListKind } from './catalog/snapshot.js';
import { ProxyError } from './errors.js';
import { ParkedExchanges } from './exchange.js';
import type { ListChange } from './listener.js';
import { exposedUri } from './names.js';
import { checkBackendSpec, type ProxyOptions, resolveSettings, type Settings } from './options.js';
import type { CatalogItem } from './policy.js';
import type { Owner } from './principal.js';
import type { RootsSource } from './roots.js';
import { buildRuntime, type RuntimeOptions } from './runtime/build.js';
import type { ProxyCore } from './runtime/context.js';
import type { SessionChange } from './sessions.js';

/** One backend in `health()`. */
export interface BackendHealth {
  readonly id: string;
  readonly status: BackendStatus;
  /** The latest error (connect, catalog refresh, lost connection); undefined while up. */
  readonly error: string | undefined;
  /** When the status last changed (ISO 8601). */
  readonly since: string;
  /** Items of its accepted snapshot in the merged catalog. */
  readonly items: number;
  /** Its principals' own sessions open now (0 for a backend that keeps none). */
  readonly sessions: number;
}

export interface ProxyHealth {
  /** `up` when every backend is, `down` when every backend is, `degraded` otherwise (`up` with none). */
  readonly status: BackendStatus;
  readonly backends: readonly BackendHealth[];
}

/** The merged catalog as the policy sees it, for inspection. */
export interface CatalogView {
  readonly tools: readonly CatalogItem[];
  readonly prompts: readonly CatalogItem[];
  readonly resources: readonly CatalogItem[];
  readonly templates: readonly CatalogItem[];
}

export interface McpProxy {
  /** A runtime any Snodo transport serves (`listen({ runtime })`, `serve(runtime)`), with its policy. */
  runtime(options?: RuntimeOptions): Runtime;
  /**
   * Connects a backend, lists and validates its catalog against the merged one, then publishes it.
   * Rejects with `ProxyError` (`backend_limit`, `duplicate_id`, `connect_failed`, `catalog_failed`,
   * `catalog_limit`, `duplicate_name`, `uri_collision`, `invalid_name`, `unsupported_template`); the
   * catalog is then unchanged.
   */
  addBackend(spec: BackendSpec): Promise<void>;
  /** Refreshes one backend's catalog now; rejects when that fails (its last snapshot stays, `degraded`). */
  refreshBackend(id: string): Promise<BackendHealth>;
  /** Removes a backend: its items leave the catalog, its calls fail as unavailable, its client closes. */
  removeBackend(id: string): Promise<void>;
  health(): ProxyHealth;
  catalog(): CatalogView;
  /**
   * Stops probing, stops the proxy's own running tasks (stored failed, their backend calls
   * cancelled) and closes its task manager, then closes every backend (stdio servers exit). Idempotent.
   */
  close(): Promise<void>;
}

function aggregate(statuses: readonly BackendStatus[]): BackendStatus {
  if (statuses.length === 0 || statuses.every((s) => s === 'up')) return 'up';
  if (statuses.every((s) => s === 'down')) return 'down';
  return 'degraded';
}

class ProxyImpl implements McpProxy, ProxyCore, BackendEnv {
  readonly #settings: Settings;
  readonly #backends = new Map<string, Backend>();
  /** Backends being added: they count against maxBackends and their ids are taken. */
  readonly #adding = new Map<string, Backend>();
  #catalog = Catalog.EMPTY;
  readonly changes: ChangeHub = createChangeHub();
  /** Changes meant for one principal only (its backend sessions' list changes and resource updates), by owner key. */
  readonly #ownerChanges = new Map<string, ChangeHub>();
  /** Notification streams open, by owner key: their backend sessions are in use. */
  readonly #listening = new Map<string, number>();
  readonly parked: ParkedExchanges;
  readonly #probe: ReturnType<typeof setInterval>;
  #closed: Promise<void> | undefined;

  constructor(settings: Settings) {
    this.#settings = settings;
    this.parked = new ParkedExchanges(settings.maxParkedCalls, settings.inputTimeoutMs);
    this.#probe = setInterval(() => this.#probeAll(), settings.healthIntervalMs);
    this.#probe.unref?.();
  }

  // ---- BackendEnv ----------------------------------------------------------------------------

  get separator(): string {
    return this.#settings.separator;
  }

  get maxCatalogItems(): number {
    return this.#settings.maxCatalogItems;
  }

  get reconnectDelayMs(): number {
    return this.#settings.reconnectDelayMs;
  }

  get pageSize(): number {
    return this.#settings.pageSize;
  }

  get maxInputRounds(): number {
    return this.#settings.maxInputRounds;
  }

  get tasks(): TaskManager {
    return this.#settings.tasks;
  }

  get taskAfterMs(): number | false {
    return this.#settings.taskAfterMs;
  }

  get maxBackendSessions(): number {
    return this.#settings.maxBackendSessions;
  }

  get logger(): Logger | undefined {
    return this.#settings.logger;
  }

  get backendSessionIdleMs(): number {
    return this.#settings.backendSessionIdleMs;
  }

  listening(ownerKey: string): boolean {
    return (this.#listening.get(ownerKey) ?? 0) > 0;
  }

  publish(backend: Backend, snapshot: BackendSnapshot): void {
    if (this.#closed) throw new ProxyError('SNODO_ERR_PROXY_CLOSED', 'close() was called');
    if (this.#backends.get(backend.id) !== backend && this.#adding.get(backend.id) !== backend) {
      throw new ProxyError('SNODO_ERR_UNKNOWN_BACKEND', `backend "${backend.id}" was removed`, {
        backend: backend.id,
      });
    }
    const { catalog, changed } = this.#catalog.with(snapshot, this.#settings.maxCatalogItems);
    this.#catalog = catalog;
    this.#notify(changed);
  }

  #notify(changed: readonly ListKind[]): void {
    if (changed.includes('tools')) this.changes.notifyToolsChanged();
    if (changed.includes('prompts')) this.changes.notifyPromptsChanged();
    if (changed.includes('resources') || changed.includes('templates')) this.changes.notifyResourcesChanged();
  }

  statusChanged(backend: Backend, previous: BackendStatus): void {
    if (this.#backends.get(backend.id) !== backend) return;
    const change = { backend: backend.id, status: backend.status, previous, error: backend.error };
    log(
      this.#settings.logger,
      change.status === 'up' ? 'info' : 'warn',
      change,
      `backend ${change.backend} ${change.status}`,
    );
    this.#settings.onHealthChange?.(change);
  }

  resourceUpdated(backend: Backend, original: string, owner?: Owner): void {
    if (this.#backends.get(backend.id) !== backend) return;
    const uri = exposedUri(backend.id, original);
    if (!this.#catalog.resources.has(uri)) return;
    if (owner === undefined) this.changes.notifyResourceUpdated(uri);
    else this.#ownerChanges.get(owner.key)?.notifyResourceUpdated(uri);
  }

  ownListChanged(backend: Backend, kind: ListChange, owner: Owner): void {
    if (this.#backends.get(backend.id) !== backend) return;
    const hub = this.#ownerChanges.get(owner.key);
    if (kind === 'tools') hub?.notifyToolsChanged();
    else if (kind === 'prompts') hub?.notifyPromptsChanged();
    else hub?.notifyResourcesChanged();
  }

  warning(backend: Backend, message: string): void {
    this.#settings.onWarning?.(backend.id, message);
  }

  sessionChanged(change: SessionChange): void {
    if (!this.#backends.has(change.backend)) return;
    this.#settings.onSessionChange?.(change);
  }

  // ---- ProxyCore -----------------------------------------------------------------------------

  merged(): Catalog {
    return this.#catalog;
  }

  catalog(): CatalogView {
    const items = (kind: ListKind) => this.#catalog.lists[kind].map((entry) => entry.item);
    return Object.freeze({
      tools: items('tools'),
      prompts: items('prompts'),
      resources: items('resources'),
      templates: items('templates'),
    });
  }

  backend(id: string): Backend | undefined {
    return this.#backends.get(id);
  }

  pendingOwner(name: string): Backend | undefined {
    for (const backend of this.#backends.values()) {
      if (backend.snapshot || backend.prefix === '') continue;
      if (name.startsWith(`${backend.prefix}${this.#settings.separator}`)) return backend;
    }
    return undefined;
  }

  aggregate(): BackendStatus {
    return aggregate([...this.#backends.values()].map((backend) => backend.status));
  }

  /** Keeps `owner`'s backend sessions in use (a stream opens, or its subscription is being admitted). */
  pin(owner: Owner): void {
    this.#listening.set(owner.key, (this.#listening.get(owner.key) ?? 0) + 1);
  }

  rootsChanged(owner: Owner, source: RootsSource): void {
    for (const backend of this.#backends.values()) backend.rootsChanged(owner, source);
  }

  unpin(owner: Owner): void {
    const count = (this.#listening.get(owner.key) ?? 0) - 1;
    if (count > 0) {
      this.#listening.set(owner.key, count);
      return;
    }
    this.#listening.delete(owner.key);
    for (const backend of this.#backends.values()) backend.sessions.quiet(owner.key);
  }

  /**
   * The changes one notification stream of `owner` receives: everyone's (the catalog's list
   * changes, updates from shared backends) and the owner's own (its backend sessions' list changes
   * and updates), each passed
   * through `pass` (the policy, at delivery). Subscribing pins the owner until it unsubscribes.
   */
  hubFor(owner: Owner, pass: (event: ChangeEvent, own: boolean) => boolean): ChangeHub {
    const source = this.changes;
    return {
      notifyToolsChanged: () => source.notifyToolsChanged(),
      notifyPromptsChanged: () => source.notifyPromptsChanged(),
      notifyResourcesChanged: () => source.notifyResourcesChanged(),
      notifyResourceUpdated: (uri) => source.notifyResourceUpdated(uri),
      subscribe: (listener) => {
        let own = this.#ownerChanges.get(owner.key);
        if (!own) {
          own = createChangeHub();
          this.#ownerChanges.set(owner.key, own);
        }
        const hub = own;
        this.pin(owner);
        const stopShared = source.subscribe((event) => {
          if (pass(event, false)) listener(event);
        });
        const stopOwn = hub.subscribe((event) => {
          if (pass(event, true)) listener(event);
        });
        let subscribed = true;
        return () => {
          if (!subscribed) return;
          subscribed = false;
          stopShared();
          stopOwn();
          if (hub.size === 0 && this.#ownerChanges.get(owner.key) === hub)
            this.#ownerChanges.delete(owner.key);
          this.unpin(owner);
        };
      },
      get size() {
        return source.size;
      },
    };
  }

  // ---- Proxy ---------------------------------------------------------------------------------

  runtime(options?: RuntimeOptions): Runtime {
    return buildRuntime(this, this.#settings.authorization, options);
  }

  #reserve(spec: BackendSpec): Backend {
    if (this.#closed) throw new ProxyError('SNODO_ERR_PROXY_CLOSED', 'close() was called');
    if (this.#backends.has(spec.id) || this.#adding.has(spec.id)) {
      throw new ProxyError('SNODO_ERR_DUPLICATE_ID', JSON.stringify(spec.id), { id: spec.id });
    }
    const limit = this.#settings.maxBackends;
    if (this.#backends.size + this.#adding.size >= limit) {
      throw new ProxyError('SNODO_ERR_BACKEND_LIMIT', `${limit} backends (maxBackends)`, { limit });
    }
    const backend = new Backend(spec, this);
    this.#adding.set(spec.id, backend);
    return backend;
  }

  async addBackend(spec: BackendSpec): Promise<void> {
    const backend = this.#reserve(checkBackendSpec('addBackend', spec));
    try {
      await backend.start();
    } catch (error) {
      this.#adding.delete(spec.id);
      // A published snapshot (the validation passed, then something failed) is withdrawn.
      this.#withdraw(spec.id);
      await backend.close();
      if (ProxyError.is(error)) throw error;
      throw new ProxyError(
        'SNODO_ERR_BACKEND_CATALOG',
        `backend "${spec.id}": ${error instanceof Error ? error.message : String(error)}`,
        { backend: spec.id },
        error,
      );
    }
    this.#adding.delete(spec.id);
    if (this.#closed) {
      await backend.close();
      throw new ProxyError('SNODO_ERR_PROXY_CLOSED', 'close() was called');
    }
    this.#backends.set(spec.id, backend);
    this.statusChanged(backend, 'down');
  }

  /** Initial backends: registered at once; one that fails to start is down (or degraded) and retried. */
  async start(specs: readonly BackendSpec[]): Promise<void> {
    const backends = specs.map((spec) => this.#reserve(spec));
    for (const backend of backends) {
      this.#adding.delete(backend.id);
      this.#backends.set(backend.id, backend);
    }
    await Promise.all(backends.map((backend) => backend.startOrRetry()));
  }

  #withdraw(id: string): void {
    const { catalog, changed } = this.#catalog.without(id);
    this.#catalog = catalog;
    this.#notify(changed);
  }

  #get(id: string): Backend {
    const backend = this.#backends.get(id);
    if (!backend) throw new ProxyError('SNODO_ERR_UNKNOWN_BACKEND', JSON.stringify(id), { id });
    return backend;
  }

  async refreshBackend(id: string): Promise<BackendHealth> {
    const backend = this.#get(id);
    await backend.refresh();
    return this.#healthOf(backend);
  }

  async removeBackend(id: string): Promise<void> {
    const backend = this.#get(id);
    this.#backends.delete(id);
    this.#withdraw(id);
    await backend.close();
  }

  #healthOf(backend: Backend): BackendHealth {
    return Object.freeze({
      id: backend.id,
      status: backend.status,
      error: backend.error,
      since: new Date(backend.since).toISOString(),
      items: this.#catalog.snapshots.get(backend.id)?.size ?? 0,
      sessions: backend.sessions.size,
    });
  }

  health(): ProxyHealth {
    const backends = [...this.#backends.values()]
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .map((b) => this.#healthOf(b));
    return Object.freeze({
      status: aggregate(backends.map((b) => b.status)),
      backends: Object.freeze(backends),
    });
  }

  #probeAll(): void {
    for (const backend of this.#backends.values()) {
      // Down backends are in their reconnect loop; the others are refreshed (which detects a dead connection).
      if (backend.status !== 'down') backend.refresh().catch(() => {});
    }
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      clearInterval(this.#probe);
      // The proxy's own tasks first: their backend calls are cancelled while the backends are up.
      await this.#settings.tasks.close();
      this.parked.clear(new ProxyError('SNODO_ERR_PROXY_CLOSED', 'close() was called'));
      const all = [...this.#backends.values(), ...this.#adding.values()];
      this.#backends.clear();
      await Promise.all(all.map((backend) => backend.close()));
    })();
    return this.#closed;
  }
}

/**
 * Creates a proxy: validates the options (throwing `ProxyError` `SNODO_ERR_INVALID_OPTION` naming
 * the option and its rule, `backend_limit`, `duplicate_id`), connects the initial backends and
 * resolves once each has been tried once. Serve it with `proxy.runtime()` on any transport.
 */
export async function createProxy(options: ProxyOptions = {}): Promise<McpProxy> {
  const settings = resolveSettings(options);
  const specs = (options.backends ?? []).map((spec, i) => checkBackendSpec(`backends[${i}]`, spec));
  const ids = new Set<string>();
  for (const spec of specs) {
    if (ids.has(spec.id))
      throw new ProxyError('SNODO_ERR_DUPLICATE_ID', JSON.stringify(spec.id), { id: spec.id });
    ids.add(spec.id);
  }
  if (specs.length > settings.maxBackends) {
    throw new ProxyError(
      'SNODO_ERR_BACKEND_LIMIT',
      `${specs.length} backends given, maxBackends is ${settings.maxBackends}`,
      {
        limit: settings.maxBackends,
      },
    );
  }
  const proxy = new ProxyImpl(settings);
  try {
    await proxy.start(specs);
  } catch (error) {
    await proxy.close();
    throw error;
  }
  return proxy;
}
