import type { JsonRpcMessage } from '../jsonrpc/types.js';

/**
 * A single-reader queue of notifications with a hard bound. When a push would exceed `capacity`
 * the queue overflows: it drops everything, ends, and reports `overflowed`, so a reader that stopped
 * reading is cut off instead of growing memory.
 *
 *   push ──► [ m1 … mk ] ──► next()      k <= capacity; k = capacity + 1 ⇒ overflowed, ended
 *   end  ──► no more pushes; next() drains what is queued, then returns done
 */
export class NotificationQueue implements AsyncIterable<JsonRpcMessage> {
  private items: JsonRpcMessage[] = [];
  private head = 0;
  private waiter: (() => void) | undefined;
  ended = false;
  overflowed = false;

  constructor(private readonly capacity: number) {}

  get length(): number {
    return this.items.length - this.head;
  }

  /** Queues a message; returns false when the queue has ended (or just overflowed). */
  push(message: JsonRpcMessage): boolean {
    if (this.ended) return false;
    if (this.length >= this.capacity) {
      this.overflowed = true;
      this.end(true);
      return false;
    }
    this.items.push(message);
    this.wake();
    return true;
  }

  /** True when an unread message satisfies `predicate` (used to coalesce list-changed notifications). */
  hasPending(predicate: (message: JsonRpcMessage) => boolean): boolean {
    for (let i = this.head; i < this.items.length; i++)
      if (predicate(this.items[i] as JsonRpcMessage)) return true;
    return false;
  }

  end(discard = false): void {
    this.ended = true;
    if (discard) {
      this.items = [];
      this.head = 0;
    }
    this.wake();
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<JsonRpcMessage> {
    while (true) {
      if (this.head < this.items.length) {
        const message = this.items[this.head] as JsonRpcMessage;
        this.items[this.head] = undefined as never;
        this.head += 1;
        if (this.head === this.items.length) {
          this.items = [];
          this.head = 0;
        }
        yield message;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
      });
    }
  }
}
