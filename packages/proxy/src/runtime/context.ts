import type { ChangeEvent, ChangeHub, Logger, TaskManager } from '@snodo/core';
import { ProtocolError } from '@snodo/core';
import type { OperationCall } from '@snodo/core/internal';
import type { Backend, BackendStatus } from '../backend.js';
import type { Catalog } from '../catalog/catalog.js';
import type { Entry } from '../catalog/snapshot.js';
import type { ParkedExchanges } from '../exchange.js';
import { type AuthorizationPolicy, allowed, type Principal } from '../policy.js';
import { type Owner, ownerOf } from '../principal.js';
import type { RootsSource } from '../roots.js';
import type { BackendSession } from '../sessions.js';
import type { Forwarding } from './forward.js';
import type { TaskIds } from './tasks.js';

/** What the runtime's operations read from the proxy, at each call. */
export interface ProxyCore {
  /** The merged catalog now (immutable: a request keeps the one it read). */
  merged(): Catalog;
  backend(id: string): Backend | undefined;
  /**
   * The backend without an accepted catalog yet (never connected) whose prefix `name` carries:
   * a call to it is "unavailable", not "unknown".
   */
  pendingOwner(name: string): Backend | undefined;
  readonly parked: ParkedExchanges;
  readonly pageSize: number;
  readonly maxInputRounds: number;
  /** Where the proxy's own tasks run. */
  readonly tasks: TaskManager;
  /** The proxy's `taskAfterMs` (a backend's own overrides it); false: no tasks of the proxy's own. */
  readonly taskAfterMs: number | false;
  /** Every change: list changes and `updated` events with exposed URIs. */
  readonly changes: ChangeHub;
  /** `createProxy`'s `logger`, which the frontend runtime logs to. */
  readonly logger: Logger | undefined;
  aggregate(): BackendStatus;
  /** The changes a notification stream of `owner` receives (see `ProxyImpl.hubFor`). */
  hubFor(owner: Owner, pass: (event: ChangeEvent, own: boolean) => boolean): ChangeHub;
  /** Keeps `owner`'s backend sessions in use while a subscription of it is being admitted. */
  pin(owner: Owner): void;
  unpin(owner: Owner): void;
  /** A frontend of `owner` said its roots changed (see `RootsRelay`). */
  rootsChanged(owner: Owner, source: RootsSource): void;
}

/** What every operation of one runtime shares: the proxy, and the runtime's policy. */
/** What reading the catalog needs: the proxy, and the runtime's policy. */
export interface CatalogScope {
  readonly core: ProxyCore;
  readonly policy: AuthorizationPolicy | undefined;
}

export interface Scope extends CatalogScope {
  /** How this runtime's frontends name the backends' tasks. */
  readonly taskIds: TaskIds;
}

/** Whether `principal` may see `entry` at all (what it cannot list is unknown to it). */
export function visible(scope: CatalogScope, principal: Principal, entry: Entry): boolean {
  return allowed(scope.policy, 'canList', principal, entry.item);
}

/** The backend that owns `entry`, or `unknown()` thrown when it was removed meanwhile. */
export function owner(scope: CatalogScope, entry: Entry, unknown: () => ProtocolError): Backend {
  const backend = scope.core.backend(entry.item.backend);
  if (!backend) throw unknown();
  return backend;
}

/** The caller of an operation, as the owner of backend sessions. */
export function callerOf(call: OperationCall): Owner {
  return ownerOf(call.auth, call.connectionId);
}

/** How `forward` reaches `backend` for this call. */
export function forwarding(
  scope: Scope,
  backend: Backend,
  what: string,
  call: OperationCall,
  owner: Owner = callerOf(call),
  session?: BackendSession,
): Forwarding {
  return {
    backend,
    what,
    owner,
    context: call.context,
    parked: scope.core.parked,
    maxInputRounds: scope.core.maxInputRounds,
    ...(session ? { session } : {}),
  };
}

export function forbidden(message: string, data: Record<string, unknown>): ProtocolError {
  return ProtocolError.invalidParams(message, { ...data, reason: 'forbidden' });
}

const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';

/** A backend result without what the proxy's own dialect sets (`resultType`, the backend's serverInfo). */
export function clean(result: Record<string, unknown>): Record<string, unknown> {
  const { resultType: _, ...rest } = result;
  const meta = rest._meta as Record<string, unknown> | undefined;
  if (meta && SERVER_INFO_KEY in meta) {
    const { [SERVER_INFO_KEY]: __, ...others } = meta;
    if (Object.keys(others).length > 0) rest._meta = others;
    else delete rest._meta;
  }
  return rest;
}

export function objectParam(call: OperationCall, name: string, method: string): Record<string, unknown> {
  const value = call.params[name] ?? {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw ProtocolError.invalidParams(`${method}: ${name} must be an object`);
  }
  return value as Record<string, unknown>;
}
