import { MessageQueue } from '../jsonrpc/message-queue.js';
import type { JsonRpcMessage } from '../jsonrpc/types.js';

/**
 * A single-reader queue of notifications with a hard bound. When a push would exceed `capacity`
 * the queue overflows: it drops everything, ends, reports `overflowed` and aborts `dropped`, so a
 * reader that stopped reading is cut off instead of growing memory (and whoever holds resources
 * for it can free them at once, without waiting for the stalled reader to pull again).
 *
 *   push ──► [ m1 … mk ] ──► next()      k <= capacity; k = capacity + 1 ⇒ overflowed, ended
 *   end  ──► no more pushes; next() drains what is queued, then returns done
 */
export class NotificationQueue extends MessageQueue {
  overflowed = false;
  readonly #dropped = new AbortController();

  /** Aborted when the queue overflows (the reader was dropped). */
  get dropped(): AbortSignal {
    return this.#dropped.signal;
  }

  constructor(private readonly capacity: number) {
    super();
  }

  /** Queues a message; returns false when the queue has ended (or just overflowed). */
  push(message: JsonRpcMessage): boolean {
    if (this.ended) return false;
    if (this.length >= this.capacity) {
      this.overflowed = true;
      this.end(true);
      this.#dropped.abort(new Error('the reader fell too far behind'));
      return false;
    }
    this.enqueue(message);
    return true;
  }

  end(discard = false): void {
    this.finish(discard);
  }
}
