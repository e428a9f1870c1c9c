import { Executor, type SubmitOptions, type SubscriptionSlot } from '@snodo/core';

/** Waiters on a condition over some state, re-checked each time the state may have changed. */
export class Watch {
  readonly #waiters = new Set<() => boolean>();

  /** Resolves with `read()` once `done` holds on it (checked now, then after each `changed()`). */
  until<T>(read: () => T, done: (value: T) => boolean): Promise<T> {
    return new Promise((resolve) => {
      const check = () => {
        const value = read();
        if (!done(value)) return false;
        resolve(value);
        return true;
      };
      if (!check()) this.#waiters.add(check);
    });
  }

  /** The state may have changed: re-checks every waiter after the current turn (the change settles first). */
  changed(): void {
    setImmediate(() => {
      for (const check of this.#waiters) if (check()) this.#waiters.delete(check);
    });
  }
}

/**
 * A real `Executor` that says when its counts may have moved: when a task settles (its slot is
 * freed in the turn it settles) and when a subscription slot is released. Nothing else changes.
 */
export class WatchedExecutor extends Executor {
  readonly watch = new Watch();

  override submit<T>(task: (signal: AbortSignal) => Promise<T> | T, options?: SubmitOptions): Promise<T> {
    return super.submit(async (signal) => {
      try {
        return await task(signal);
      } finally {
        this.watch.changed();
      }
    }, options);
  }

  override acquireSubscription(
    ...args: Parameters<Executor['acquireSubscription']>
  ): SubscriptionSlot | null {
    const slot = super.acquireSubscription(...args);
    if (slot === null) return slot;
    const release = slot.release.bind(slot);
    slot.release = () => {
      release();
      this.watch.changed();
    };
    return slot;
  }
}
