import { randomUUID } from 'node:crypto';
import {
  type ClientRequests,
  createClientRequests,
  dispatch,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type Outcome,
  openSessionNotifications,
  type Runtime,
  type Session,
  type SessionNotifications,
} from '@snodo/core';
import { isResponse } from '@snodo/core/internal';
import { transportError } from '../errors.js';
import type { ClientTransport, SendOptions, TransportSink } from '../transport.js';
import { idKey } from './pending.js';

/**
 * In-process: hands each message object to core's `dispatch` (no encoding, no decoding) and plays
 * the part of a stdio connection for the initialize-based revisions: it holds the session, carries
 * server-initiated requests through core's client-request channel, and streams the session's
 * notifications once `notifications/initialized` is sent. Cancelling aborts the handler's signal.
 */
export class DirectTransport implements ClientTransport {
  readonly kind = 'direct';
  readonly #runtime: Runtime;
  readonly #running = new Map<string, AbortController>();
  #sink: TransportSink | undefined;
  #session: Session | undefined;
  #clientRequests: ClientRequests | undefined;
  #notifications: SessionNotifications | undefined;
  #closed = false;
  /** This connection's `DispatchContext.connectionId`: one transport is one client. */
  readonly #id = randomUUID();

  constructor(runtime: Runtime) {
    this.#runtime = runtime;
  }

  async open(sink: TransportSink): Promise<void> {
    this.#sink = sink;
    this.#clientRequests = createClientRequests((message) => {
      if (!this.#closed) sink.message(message as JsonRpcRequest | JsonRpcNotification);
    });
  }

  #check(): void {
    if (this.#closed) throw transportError('SNODO_ERR_CLOSED', 'the in-process transport is closed');
  }

  #context(signal: AbortSignal) {
    return {
      signal,
      connectionId: this.#id,
      ...(this.#session === undefined ? {} : { session: this.#session }),
      ...(this.#clientRequests === undefined ? {} : { channel: this.#clientRequests.channel }),
    };
  }

  #store(outcome: Outcome): void {
    if (outcome.type !== 'subscription' && outcome.session !== undefined) this.#session = outcome.session;
  }

  async request(request: JsonRpcRequest, options: SendOptions): Promise<JsonRpcResponse> {
    this.#check();
    if (options.signal.aborted) throw options.signal.reason;
    const controller = new AbortController();
    const key = idKey(request.id);
    this.#running.set(key, controller);
    const onAbort = () => controller.abort(options.signal.reason);
    options.signal.addEventListener('abort', onAbort, { once: true });
    // Settles when the caller aborts or the transport closes, whichever the handler is doing.
    const aborted = new Promise<never>((_, reject) => {
      controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
    });
    aborted.catch(() => {});
    try {
      return await Promise.race([this.#run(request, controller.signal), aborted]);
    } finally {
      options.signal.removeEventListener('abort', onAbort);
      this.#running.delete(key);
    }
  }

  async #run(request: JsonRpcRequest, signal: AbortSignal): Promise<JsonRpcResponse> {
    const outcome = await dispatch(this.#runtime, request, this.#context(signal));
    this.#store(outcome);
    switch (outcome.type) {
      case 'response':
        return outcome.message;
      case 'stream':
        for await (const message of outcome.messages) {
          if (isResponse(message)) return message;
          this.#sink?.message(message as JsonRpcNotification);
        }
        throw transportError(
          'SNODO_ERR_CONNECTION_CLOSED',
          `the stream of request ${String(request.id)} ended`,
        );
      case 'subscription': {
        const { subscription } = outcome;
        const stop = () => subscription.close();
        signal.addEventListener('abort', stop, { once: true });
        try {
          for await (const message of subscription) this.#sink?.message(message as JsonRpcNotification);
        } finally {
          signal.removeEventListener('abort', stop);
        }
        return subscription.close();
      }
      case 'none':
        // The request was cancelled before it answered: no response will come.
        return new Promise<never>((_, reject) => {
          if (signal.aborted) reject(signal.reason);
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        });
    }
  }

  async notify(notification: JsonRpcNotification): Promise<void> {
    this.#check();
    const outcome = await dispatch(this.#runtime, notification, this.#context(new AbortController().signal));
    this.#store(outcome);
    if (outcome.type === 'none' && outcome.cancel !== undefined) {
      this.#running.get(idKey(outcome.cancel))?.abort(new Error('cancelled by the client'));
    }
    if (notification.method === 'notifications/initialized' && this.#session && !this.#notifications) {
      this.#pump(
        openSessionNotifications(this.#runtime, () => this.#session, undefined, {
          auth: undefined,
          connectionId: this.#id,
        }),
      );
    }
  }

  #pump(notifications: SessionNotifications): void {
    this.#notifications = notifications;
    (async () => {
      for await (const message of notifications) {
        if (this.#closed) break;
        this.#sink?.message(message as JsonRpcNotification);
      }
    })().catch((error: unknown) =>
      this.#sink?.warning(`direct: session notifications failed: ${String(error)}`),
    );
  }

  async respond(response: JsonRpcResponse): Promise<void> {
    this.#check();
    if (response.id === null) return;
    const answer =
      'error' in response
        ? { id: response.id, error: response.error }
        : { id: response.id, result: response.result };
    if (!this.#clientRequests?.resolve(answer)) {
      this.#sink?.warning(
        `direct: dropped a response to no pending server request (id ${String(response.id)})`,
      );
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#notifications?.close();
    this.#clientRequests?.close('The client closed');
    for (const controller of this.#running.values())
      controller.abort(transportError('SNODO_ERR_CLOSED', 'closed'));
    this.#running.clear();
    this.#sink?.closed(undefined);
  }
}
