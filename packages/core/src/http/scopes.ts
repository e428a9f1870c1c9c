/**
 * The 2026-07-28 requests running per cancellation scope (a client instance the host verified), so
 * that `notifications/cancelled` sent on another request of the same scope can stop one. Local to
 * one handler configuration: with several instances behind a balancer, a cancel reaches only the
 * requests of the instance that receives it. A scope's entry exists only while it runs something.
 */
export class CancellationScopes {
  readonly #scopes = new Map<string, Map<string, AbortController>>();

  /** Registers a running request; the returned function unregisters it. */
  track(scope: string, requestKey: string, controller: AbortController): () => void {
    let running = this.#scopes.get(scope);
    if (running === undefined) {
      running = new Map();
      this.#scopes.set(scope, running);
    }
    const map = running;
    map.set(requestKey, controller);
    return () => {
      if (map.get(requestKey) === controller) map.delete(requestKey);
      if (map.size === 0 && this.#scopes.get(scope) === map) this.#scopes.delete(scope);
    };
  }

  /** Aborts the request of `scope` with that key; false when none runs. */
  cancel(scope: string, requestKey: string, reason: unknown): boolean {
    const controller = this.#scopes.get(scope)?.get(requestKey);
    controller?.abort(reason);
    return controller !== undefined;
  }

  /** Requests running across all scopes (for tests and stats). */
  get running(): number {
    let count = 0;
    for (const running of this.#scopes.values()) count += running.size;
    return count;
  }
}
