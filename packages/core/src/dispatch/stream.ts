import { MessageQueue } from '../jsonrpc/message-queue.js';
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
export class MessageStream extends MessageQueue {
  /** Notifications dropped because the reader fell behind by more than `maxBuffered`. */
  dropped = 0;

  constructor(private readonly maxBuffered = DEFAULT_MAX_STREAM_BUFFER) {
    super();
  }

  /** Queues a notification; returns false (and drops it) when the reader is too far behind or the stream ended. */
  push(message: JsonRpcMessage): boolean {
    if (this.ended) return false;
    if (this.length >= this.maxBuffered) {
      this.dropped += 1;
      return false;
    }
    this.enqueue(message);
    return true;
  }

  /** Queues the response and ends the stream. Later calls are ignored. */
  end(response: JsonRpcResponse): void {
    if (this.ended) return;
    this.enqueue(response);
    this.finish(false);
  }

  /** Ends the stream with no further message (the request was cancelled). */
  abandon(): void {
    this.finish(true);
  }
}
