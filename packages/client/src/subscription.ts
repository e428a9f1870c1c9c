import type { JsonRpcNotification, SubscriptionFilter } from '@snodo/core';
import { clientError } from './errors.js';

/**
 * Notifications of one `client.listen(filter)`, as an async iterable. `ready` resolves with the
 * part of the filter the server honours (2026-07-28: its acknowledgement) once notifications can
 * flow. Iteration ends when the server ends the subscription, the connection closes, `close()` is
 * called, or the loop breaks (which closes it).
 *
 * Queue: `items` holds delivered notifications not yet read, at most `limit`; `waiters` holds
 * readers waiting for one. At most one of the two is non-empty. One notification past `limit` ends
 * the subscription with SNODO_ERR_SUBSCRIPTION_OVERFLOW.
 */
export class Subscription implements AsyncIterable<JsonRpcNotification> {
  readonly ready: Promise<SubscriptionFilter>;
  #resolveReady!: (filter: SubscriptionFilter) => void;
  #rejectReady!: (error: unknown) => void;
  readonly #items: JsonRpcNotification[] = [];
  readonly #waiters: {
    resolve(result: IteratorResult<JsonRpcNotification>): void;
    reject(error: unknown): void;
  }[] = [];
  #ended = false;
  #error: unknown;
  #closing: Promise<void> | undefined;

  constructor(
    private readonly limit: number,
    private readonly onClose: () => Promise<void>,
  ) {
    this.ready = new Promise<SubscriptionFilter>((resolve, reject) => {
      this.#resolveReady = resolve;
      this.#rejectReady = reject;
    });
    this.ready.catch(() => {});
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** @internal */
  acknowledge(filter: SubscriptionFilter): void {
    this.#resolveReady(filter);
  }

  /** @internal */
  deliver(notification: JsonRpcNotification): void {
    if (this.#ended) return;
    const waiter = this.#waiters.shift();
    if (waiter) {
      waiter.resolve({ value: notification, done: false });
      return;
    }
    if (this.#items.length >= this.limit) {
      this.end(
        clientError(
          'SNODO_ERR_SUBSCRIPTION_OVERFLOW',
          `more than ${this.limit} notifications were left unread`,
        ),
      );
      this.close().catch(() => {});
      return;
    }
    this.#items.push(notification);
  }

  /** @internal Ends iteration (after the unread notifications), with an error when given. */
  end(error?: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#error = error;
    this.#rejectReady(
      error ?? clientError('SNODO_ERR_CLOSED', 'the subscription ended before it was acknowledged'),
    );
    for (const waiter of this.#waiters.splice(0)) {
      if (error === undefined) waiter.resolve({ value: undefined, done: true });
      else waiter.reject(error);
    }
  }

  /** Stops the subscription (closes its stream or unsubscribes). Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.onClose().finally(() => this.end());
    return this.#closing;
  }

  [Symbol.asyncIterator](): AsyncIterator<JsonRpcNotification> {
    return {
      next: () => {
        const item = this.#items.shift();
        if (item) return Promise.resolve({ value: item, done: false });
        if (this.#ended) {
          if (this.#error !== undefined) {
            const error = this.#error;
            this.#error = undefined;
            return Promise.reject(error);
          }
          return Promise.resolve({ value: undefined, done: true });
        }
        return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
      },
      return: async () => {
        await this.close();
        return { value: undefined, done: true };
      },
    };
  }
}
