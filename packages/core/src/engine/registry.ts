import { type ClientRequests, createClientRequests } from '../dispatch/client-requests.js';
import type { Session } from '../dispatch/session.js';
import type { JsonRpcMessage } from '../jsonrpc/types.js';
import { requestKey } from '../jsonrpc/types.js';
import type { ControlHolder, ControlMessage } from './control.js';

/** What a running request is to its registry: something `notifications/cancelled` can abort. */
export interface Cancellable {
  abort(reason: unknown): void;
}

export interface RegistryOptions {
  /** Time a client has to answer a server→client request (ms). Default: core's (60 s). */
  readonly clientRequestTimeout?: number | undefined;
  /** A cancel for `key` that may reach more than a running request (an open subscription). */
  readonly onCancel?: (key: string) => boolean;
  /** The session's data changed elsewhere (`update`). */
  readonly onUpdate?: (session: Session) => void;
  /** The session ended (`end`): before running requests are aborted and pending requests fail. */
  readonly onEnd?: (reason: string) => void;
}

/**
 * The requests one client (a connection, or an HTTP session on this process) has running here,
 * and the server→client requests it has pending: one id key scheme (`requestKey`), one
 * cancel-by-id, one correlation of the client's answers. It is the client's `ControlHolder`:
 * cancels and answers reach it through a `ControlChannel`, wherever they arrived.
 *
 *   running:  requestKey(id) ──► Cancellable      (a duplicate id takes the key over)
 *   pending:  s<n> ──► waiting handler            (answered, timed out, aborted, or failed at end)
 */
export class RequestRegistry implements ControlHolder {
  readonly #running = new Map<string, Cancellable>();
  readonly #options: RegistryOptions;
  readonly #send: (message: JsonRpcMessage, related: string | undefined) => void;
  #clientRequests: ClientRequests | undefined;

  /**
   * `send` writes a server→client request (or its cancellation) to the client, with the key of
   * the client request it was made for, when there is one.
   */
  constructor(
    send: (message: JsonRpcMessage, related: string | undefined) => void,
    options: RegistryOptions = {},
  ) {
    this.#options = options;
    this.#send = send;
  }

  /**
   * The server→client requests (give `clientRequests.channel` to `dispatch` as `context.channel`);
   * made on first use, since a registry of requests that never ask the client needs none.
   */
  get clientRequests(): ClientRequests {
    if (this.#clientRequests !== undefined) return this.#clientRequests;
    const { clientRequestTimeout } = this.#options;
    const send = this.#send;
    this.#clientRequests = createClientRequests(
      (message, related) => send(message, related === undefined ? undefined : requestKey(related)),
      clientRequestTimeout === undefined ? {} : { timeout: clientRequestTimeout },
    );
    return this.#clientRequests;
  }

  /** Registers a running request under `key` (`requestKey(id)`). */
  track(key: string, request: Cancellable): void {
    this.#running.set(key, request);
  }

  /** Unregisters it, unless a later request with the same id took the key over. */
  untrack(key: string, request: Cancellable): void {
    if (this.#running.get(key) === request) this.#running.delete(key);
  }

  /** Requests running (for stats and idleness). */
  get running(): number {
    return this.#running.size;
  }

  /** Nothing running and nothing pending. */
  get idle(): boolean {
    return this.#running.size === 0 && (this.#clientRequests?.pending ?? 0) === 0;
  }

  /** Aborts every running request (teardown). */
  abortAll(reason: unknown): void {
    for (const request of [...this.#running.values()]) request.abort(reason);
  }

  receive(message: ControlMessage): boolean {
    switch (message.kind) {
      case 'cancel': {
        const request = this.#running.get(message.requestKey);
        // The reason as sent: the executor hands it on as the cause of the task's SNODO_ERR_CANCELLED.
        request?.abort(message.reason);
        const other = this.#options.onCancel?.(message.requestKey) ?? false;
        return request !== undefined || other;
      }
      case 'answer':
        return this.#clientRequests?.resolve(message.response) ?? false;
      case 'update':
        this.#options.onUpdate?.(message.session);
        return true;
      case 'end':
        this.#options.onEnd?.(message.reason);
        this.clientRequests.close(message.reason);
        this.abortAll(message.reason);
        return true;
    }
  }
}
