import { type Cancellable, RequestRegistry } from '../engine/registry.js';

/**
 * The 2026-07-28 requests running per cancellation scope (a client instance the host verified), so
 * that `notifications/cancelled` sent on another request of the same scope can stop one: one
 * engine request registry per scope. Local to one handler configuration: with several instances
 * behind a balancer, a cancel reaches only the requests of the instance that receives it. A
 * scope's entry exists only while it runs something.
 */
export class CancellationScopes {
  readonly #scopes = new Map<string, RequestRegistry>();

  /** Registers a running request; the returned function unregisters it. */
  track(scope: string, requestKey: string, controller: Cancellable): () => void {
    let registry = this.#scopes.get(scope);
    if (registry === undefined) {
      // Stateless requests never ask the client anything: nothing is ever sent through it.
      registry = new RequestRegistry(() => {});
      this.#scopes.set(scope, registry);
    }
    const held = registry;
    held.track(requestKey, controller);
    return () => {
      held.untrack(requestKey, controller);
      if (held.running === 0 && this.#scopes.get(scope) === held) this.#scopes.delete(scope);
    };
  }

  /** Aborts the request of `scope` with that key; false when none runs. */
  cancel(scope: string, requestKey: string, reason: string): boolean {
    return this.#scopes.get(scope)?.receive({ kind: 'cancel', requestKey, reason }) ?? false;
  }

  /** Requests running across all scopes (for tests and stats). */
  get running(): number {
    let count = 0;
    for (const registry of this.#scopes.values()) count += registry.running;
    return count;
  }
}
