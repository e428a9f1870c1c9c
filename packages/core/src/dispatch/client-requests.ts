import { ErrorCode } from '../errors/codes.js';
import { ProtocolError } from '../errors/protocol-error.js';
import type { RequestId } from '../json/int.js';
import type { JsonRpcErrorObject, JsonRpcMessage, JsonRpcRequest } from '../jsonrpc/types.js';
import { notification } from '../jsonrpc/types.js';
import { type ClientRequestChannel, ClientRequestError } from './input.js';

/** Default time a client has to answer a server-initiated request. */
export const DEFAULT_CLIENT_REQUEST_TIMEOUT = 60_000;

export interface ClientRequests {
  /** Give this to `dispatch` as `context.channel`. */
  readonly channel: ClientRequestChannel;
  /** Feeds a client's JSON-RPC response; returns false when it answers nothing pending (ignore it). */
  resolve(response: { id: RequestId; result?: unknown; error?: JsonRpcErrorObject }): boolean;
  /** Fails every pending request (the connection ended). */
  close(reason?: string): void;
  readonly pending: number;
}

/**
 * Correlates server-initiated requests (initialize-based revisions) with the client's responses for
 * one connection or session. `send` writes a message to the client (with the id of the client
 * request it belongs to, so HTTP can put it on that request's stream); ids are `s<n>` strings, so they
 * never collide with the client's own ids. A request the client does not answer within `timeout`,
 * or whose handler is aborted, fails and is cancelled with `notifications/cancelled`.
 */
export function createClientRequests(
  send: (message: JsonRpcMessage, relatedRequestId: RequestId | undefined) => void,
  options: { timeout?: number } = {},
): ClientRequests {
  const timeout = options.timeout ?? DEFAULT_CLIENT_REQUEST_TIMEOUT;
  const pending = new Map<string, { settle: (error: Error | undefined, result?: unknown) => void }>();
  let next = 0;
  let closed: string | undefined;

  const channel: ClientRequestChannel = {
    request(method, params, { signal, relatedRequestId }) {
      if (closed !== undefined)
        return Promise.reject(new ClientRequestError(ErrorCode.InternalError, closed));
      if (signal.aborted) return Promise.reject(signal.reason);
      next += 1;
      const id = `s${next}`;
      return new Promise((resolve, reject) => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const cancel = (reason: string) => {
          send(notification('notifications/cancelled', { requestId: id, reason }), relatedRequestId);
        };
        const onAbort = () => {
          cancel('request aborted');
          settle(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
        };
        const settle = (error: Error | undefined, result?: unknown) => {
          if (!pending.delete(id)) return;
          if (timer !== undefined) clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          if (error) reject(error);
          else resolve(result);
        };
        pending.set(id, { settle });
        signal.addEventListener('abort', onAbort, { once: true });
        if (timeout > 0 && Number.isFinite(timeout)) {
          timer = setTimeout(() => {
            cancel('timed out');
            settle(
              new ProtocolError(
                ErrorCode.RequestTimeout,
                `The client did not answer ${method} within ${timeout} ms`,
              ),
            );
          }, timeout);
        }
        const request: JsonRpcRequest =
          params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
        send(request, relatedRequestId);
      });
    },
  };

  return {
    channel,
    resolve(response) {
      const entry = typeof response.id === 'string' ? pending.get(response.id) : undefined;
      if (!entry) return false;
      if (response.error)
        entry.settle(
          new ClientRequestError(response.error.code, response.error.message, response.error.data),
        );
      // The result goes on as the client sent it: the handler context checks its shape.
      else entry.settle(undefined, response.result);
      return true;
    },
    close(reason = 'The connection closed') {
      closed = reason;
      for (const entry of [...pending.values()])
        entry.settle(new ClientRequestError(ErrorCode.InternalError, reason));
    },
    get pending() {
      return pending.size;
    },
  };
}
