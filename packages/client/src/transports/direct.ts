import {
  DEFAULT_MAX_BATCH_ITEMS,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
  type Runtime,
} from '@snodo/core';
import { Connection, classifyMessage, isResponse } from '@snodo/core/internal';
import { transportError } from '../errors.js';
import {
  type ClientTransport,
  type OwnSendOptions,
  TAKES_SIGNAL_LIKE,
  type TransportSink,
} from '../transport.js';
import { PendingRequests } from './pending.js';

const RESOLVED = Promise.resolve();

/**
 * In-process: hands each message object to core's connection engine (no encoding, no decoding),
 * the one a stdio server runs on, but with no executor (no bounds, no deadlines). The engine holds
 * the session, carries server-initiated requests, streams the session's notifications once
 * `notifications/initialized` is sent; what it writes comes back here: a response settles its
 * request, anything else goes to the sink. Aborting a request cancels it in the engine (its
 * handler's signal aborts).
 */
export class DirectTransport implements ClientTransport {
  readonly kind = 'direct';
  readonly [TAKES_SIGNAL_LIKE] = true;
  readonly #runtime: Runtime;
  readonly #pending = new PendingRequests();
  #sink: TransportSink | undefined;
  #engine: Connection | undefined;
  #closed = false;

  constructor(runtime: Runtime) {
    this.#runtime = runtime;
  }

  async open(sink: TransportSink): Promise<void> {
    this.#sink = sink;
    this.#engine = new Connection(this.#runtime, {
      output: {
        write: (message, related) => this.#take(message, related),
        ready: () => RESOLVED,
        blocked: false,
      },
      maxBatchItems: DEFAULT_MAX_BATCH_ITEMS,
      onError: (error) => sink.warning(`direct: unexpected error while serving: ${String(error)}`),
      onIgnoredAnswer: (id) =>
        sink.warning(`direct: dropped a response to no pending server request (id ${String(id)})`),
      onUnanswered: (id) =>
        this.#pending.fail(
          id,
          transportError('SNODO_ERR_CONNECTION_CLOSED', `the stream of request ${String(id)} ended`),
        ),
    });
  }

  /**
   * What the engine writes: a response settles its request; the rest is the sink's, with the id of
   * the client request it belongs to (`related` is that request's key, its id as JSON).
   */
  #take(message: JsonRpcMessage | JsonRpcMessage[], related?: string): boolean {
    if (Array.isArray(message)) for (const one of message) this.#take(one);
    else if (isResponse(message)) this.#pending.settle(message);
    else if (!this.#closed)
      this.#sink?.message(message, related === undefined ? undefined : (JSON.parse(related) as RequestId));
    return true;
  }

  #open(): Connection {
    if (this.#closed || this.#engine === undefined)
      throw transportError('SNODO_ERR_CLOSED', 'the in-process transport is closed');
    return this.#engine;
  }

  async request(request: JsonRpcRequest, options: OwnSendOptions): Promise<JsonRpcResponse> {
    const engine = this.#open();
    if (options.signal.aborted) throw options.signal.reason;
    const response = this.#pending.wait(request.id, options.signal, () => {
      void engine.cancel(request.id, describe(options.signal.reason));
    });
    this.#receive(engine, request);
    return response;
  }

  async notify(notification: JsonRpcNotification): Promise<void> {
    // Settles once the notification took effect (notifications/initialized, a cancel).
    await this.#open().receive(classifyMessage(notification));
  }

  async respond(response: JsonRpcResponse): Promise<void> {
    const engine = this.#open();
    if (response.id === null) return;
    this.#receive(engine, response);
  }

  #receive(engine: Connection, message: JsonRpcMessage): void {
    const waiting = engine.receive(classifyMessage(message));
    waiting?.catch((error: unknown) => this.#sink?.warning(`direct: ${String(error)}`));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#engine?.destroy(new Error('The client closed'));
    this.#pending.failAll(transportError('SNODO_ERR_CLOSED', 'closed'));
    this.#sink?.closed(undefined);
  }
}

function describe(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason ?? 'cancelled by the client');
}
