import type { JsonRpcMessage } from './types.js';

/**
 * A single-reader queue of messages read with `for await`: what a request's stream
 * (`MessageStream`) and a subscription's notifications (`NotificationQueue`) share. Subclasses
 * decide what a push may add and how the queue ends; the reader gets every queued message in
 * order, then stops once the queue has ended and is drained.
 *
 *   enqueue ──► [ … m_head … m_last ] ──► reader     read slots are released as they are read
 */
export class MessageQueue implements AsyncIterable<JsonRpcMessage> {
  #items: (JsonRpcMessage | undefined)[] = [];
  #head = 0;
  #ended = false;
  #waiter: (() => void) | undefined;

  /** Messages queued and not yet read. */
  get length(): number {
    return this.#items.length - this.#head;
  }

  /** True once the queue has ended: nothing more is queued, the reader stops when drained. */
  get ended(): boolean {
    return this.#ended;
  }

  /** True when an unread message satisfies `predicate` (used to coalesce list-changed notifications). */
  hasPending(predicate: (message: JsonRpcMessage) => boolean): boolean {
    for (let i = this.#head; i < this.#items.length; i++)
      if (predicate(this.#items[i] as JsonRpcMessage)) return true;
    return false;
  }

  protected enqueue(message: JsonRpcMessage): void {
    this.#items.push(message);
    this.#wake();
  }

  /** Ends the queue; `discard` drops what the reader has not read yet. */
  protected finish(discard: boolean): void {
    this.#ended = true;
    if (discard) {
      this.#items = [];
      this.#head = 0;
    }
    this.#wake();
  }

  #wake(): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<JsonRpcMessage> {
    while (true) {
      if (this.#head < this.#items.length) {
        const message = this.#items[this.#head] as JsonRpcMessage;
        this.#items[this.#head] = undefined;
        this.#head += 1;
        // Drop the read slots once they are half the array (a reader that keeps pace but never
        // drains the queue must not grow it forever).
        if (this.#head === this.#items.length) {
          this.#items = [];
          this.#head = 0;
        } else if (this.#head > 64 && this.#head * 2 > this.#items.length) {
          this.#items.splice(0, this.#head);
          this.#head = 0;
        }
        yield message;
        continue;
      }
      if (this.#ended) return;
      await new Promise<void>((resolve) => {
        this.#waiter = resolve;
      });
    }
  }
}
