import type { Operation } from '../dispatch/operation.js';
import { definitionError } from '../errors/table.js';
import { OPERATIONS } from '../ops/table.js';
import type { ServerCapabilities } from '../protocol/types.js';
import type { ChangeHub } from '../subscriptions/hub.js';
import type { Runtime } from './runtime.js';

/** What `deriveRuntime` may change. */
export interface RuntimeChange {
  /** Replace core's operation of each named core method (`tools/list`, `tools/call`, …). */
  readonly operations?: Readonly<Record<string, Operation>>;
  /** Open `subscriptions/listen` instead of core. */
  readonly openListen?: Runtime['openListen'];
  /** Admit an initialize-based `resources/subscribe` instead of core. */
  readonly admitSubscribe?: Runtime['admitSubscribe'];
  /** The hub of each initialize-based session's stream, instead of `hub`. */
  readonly sessionHub?: Runtime['sessionHub'];
  /** Be told of client notifications core does not act on. */
  readonly onClientNotification?: Runtime['onClientNotification'];
  /** The capabilities to declare (core derives them from definitions, which such a runtime lacks). */
  readonly capabilities?: ServerCapabilities;
  readonly hub?: ChangeHub;
}

/**
 * A runtime like `base` (made by `createServer`, which keeps its revisions, identity, extensions,
 * MRTR key and shaping) whose operations for some core methods are the caller's. Only methods
 * core itself implements can be replaced, so the method registries still decide what exists.
 */
export function deriveRuntime(base: Runtime, change: RuntimeChange): Runtime {
  const operations = new Map(base.operations ?? []);
  for (const [method, operation] of Object.entries(change.operations ?? {})) {
    if (!OPERATIONS.has(method)) throw definitionError(`operations: "${method}" is not a core operation`);
    if (typeof operation !== 'function') throw definitionError(`operations: "${method}" must be a function`);
    operations.set(method, operation);
  }
  for (const name of ['openListen', 'admitSubscribe', 'sessionHub', 'onClientNotification'] as const) {
    if (change[name] !== undefined && typeof change[name] !== 'function') {
      throw definitionError(`${name} must be a function`);
    }
  }
  return Object.freeze({
    ...base,
    operations,
    ...(change.openListen === undefined ? {} : { openListen: change.openListen }),
    ...(change.admitSubscribe === undefined ? {} : { admitSubscribe: change.admitSubscribe }),
    ...(change.sessionHub === undefined ? {} : { sessionHub: change.sessionHub }),
    ...(change.onClientNotification === undefined
      ? {}
      : { onClientNotification: change.onClientNotification }),
    ...(change.capabilities === undefined ? {} : { capabilities: Object.freeze({ ...change.capabilities }) }),
    ...(change.hub === undefined ? {} : { hub: change.hub }),
  });
}
