import type { JsonRpcMessage, JsonRpcResponse } from '../jsonrpc/types.js';

/** Notifications a stream buffers for a slow reader before it drops further ones (never the response). */
export const DEFAULT_MAX_STREAM_BUFFER = 1024;

/**
 * The messages of one request: notifications (progress, log messages, server requests on the
 * initialize-based revisions) and then, last, its response. Single reader.
 *
 *   push(n) ──► [ n1 n2 … nk ] ──► reader      k <= maxBuffered; overflow notifications are dropped
 *   end(r)  ──► [ …  r ]   the response is always kept and is always the final message
 */
export class MessageStream implements AsyncIterable<JsonRpcMessage> {
  private readonly buffer: JsonRpcMessage[] = [];
  private head = 0;
  private ended = false;
  private waiter: (() => void) | undefined;
  /** Notifications dropped because the reader fell behind by more than `maxBuffered`. */
  dropped = 0;

  constructor(private readonly maxBuffered = DEFAULT_MAX_STREAM_BUFFER) {}

  /** Queues a notification; returns false (and drops it) when the reader is too far behind or the stream ended. */
  push(message: JsonRpcMessage): boolean {
    if (this.ended) return false;
    if (this.buffer.length - this.head >= this.maxBuffered) {
      this.dropped += 1;
      return false;
    }
    this.buffer.push(message);
    this.wake();
    return true;
  }

  /** Queues the response and ends the stream. Later calls are ignored. */
  end(response: JsonRpcResponse): void {
    if (this.ended) return;
    this.buffer.push(response);
    this.ended = true;
    this.wake();
  }

  /** Ends the stream with no further message (the request was cancelled). */
  abandon(): void {
    this.ended = true;
    this.buffer.length = 0;
    this.head = 0;
    this.wake();
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<JsonRpcMessage> {
    while (true) {
      if (this.head < this.buffer.length) {
        const message = this.buffer[this.head] as JsonRpcMessage;
        this.head += 1;
        if (this.head > 64 && this.head * 2 > this.buffer.length) {
          this.buffer.splice(0, this.head);
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
