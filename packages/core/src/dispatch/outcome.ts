import type { RequestId } from '../json/int.js';
import type { JsonRpcMessage, JsonRpcResponse } from '../jsonrpc/types.js';
import type { Session } from './session.js';

/**
 * What `dispatch` gives back: protocol-neutral, with no I/O done.
 * - `response`: one JSON-RPC response (or an error response);
 * - `stream`: notifications for the request (progress, log messages), then its response, last;
 * - `subscription`: an opened `subscriptions/listen` stream;
 * - `none`: nothing to send (a notification, a client response, a cancelled request).
 * `session` is set when the request changed the initialize-based session (initialize,
 * notifications/initialized, logging/setLevel): store it and pass it back next time.
 */
export type Outcome =
  | { readonly type: 'response'; readonly message: JsonRpcResponse; readonly session?: Session }
  | { readonly type: 'stream'; readonly messages: AsyncIterable<JsonRpcMessage>; readonly session?: Session }
  | { readonly type: 'subscription'; readonly subscription: OpenedSubscription }
  | {
      readonly type: 'none';
      readonly session?: Session;
      /** Set for `notifications/cancelled`: the transport aborts this request and writes no response for it. */
      readonly cancel?: RequestId;
    };

/** An opened `subscriptions/listen`: its notifications (acknowledgement first), until closed. */
export interface OpenedSubscription extends AsyncIterable<JsonRpcMessage> {
  readonly id: RequestId;
  /** Ends the subscription; returns the graceful listen result to send (2026-07-28). Idempotent. */
  close(): JsonRpcResponse;
  /**
   * Aborted when the subscription drops its reader (its queue overflowed): a transport frees what
   * it holds for it at once instead of when the stalled reader next pulls.
   */
  readonly dropped?: AbortSignal;
}
