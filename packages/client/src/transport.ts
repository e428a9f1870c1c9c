import type {
  AbortSignalLike,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  ProtocolVersion,
  RequestId,
} from '@snodo/core';

/**
 * What the client tells a transport about each message it sends.
 * - `protocolVersion`: the revision the message speaks (undefined before negotiation ends, e.g. for
 *   `initialize`); transports with per-era behaviour (HTTP headers, cancellation) read it.
 * - `headers`: `Mcp-Param-*` values for this `tools/call` (only transports with `httpHeaders`).
 * - `signal`: aborting it cancels the request; the transport does what the revision requires
 *   (2026-07-28 HTTP: close the stream; stdio, legacy HTTP: send `notifications/cancelled`;
 *   in-process: abort the handler) and rejects with the signal's reason. A response arriving
 *   later is dropped.
 */
export interface SendOptions {
  readonly protocolVersion: ProtocolVersion | undefined;
  readonly signal: AbortSignal;
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * The trace context of the request's span (`traceparent`, `tracestate`, `baggage`), when traced:
   * also in `params._meta`; a transport with headers may send them as headers too (HTTP does).
   */
  readonly trace?: Readonly<Record<string, string>>;
}

/**
 * Marks Snodo's own transports: they read `SendOptions.signal` only as an AbortSignalLike
 * (`aborted`, `reason`, `abort` listeners), so the client hands them a cancellation whose
 * AbortSignal is never made unless needed. Any other transport gets a real AbortSignal.
 */
export const TAKES_SIGNAL_LIKE: unique symbol = Symbol('snodo.client.takesSignalLike');

/** SendOptions as Snodo's own transports take them: `signal` may be any AbortSignalLike. */
export interface OwnSendOptions extends Omit<SendOptions, 'signal'> {
  readonly signal: AbortSignalLike;
}

/** An AbortSignal that never aborts, for messages nothing can cancel (notifications, answers). */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;

/** Where a transport delivers what the server sends besides responses to the client's requests. */
export interface TransportSink {
  /**
   * A notification (progress, log, list-changed, subscription notifications) or a server-initiated
   * request (initialize-based revisions: elicitation, sampling, roots, ping), from any stream.
   * `relatedRequestId`: the client request whose response stream carried it, when the transport
   * can tell (HTTP: a POST's SSE stream); the server sent it while handling that request.
   */
  message(message: JsonRpcNotification | JsonRpcRequest, relatedRequestId?: RequestId): void;
  /** The transport ended (the process exited, the pool was destroyed); pending requests were failed. */
  closed(error: Error | undefined): void;
  /** Something wrong the transport recovered from (an unparseable line, an ignored message). */
  warning(message: string): void;
}

/**
 * The small interface every transport implements: the built-in HTTP, stdio and in-process ones, and
 * any custom transport passed to `connect` as `{ transport }`. A transport moves JSON-RPC messages
 * and correlates responses; the client does negotiation, `_meta`, MRTR, caching and subscriptions.
 *
 * Contract:
 * - `open(sink)` is called once before anything else.
 * - `request` resolves with the response whose id is `request.id` — a result or a JSON-RPC error
 *   (also for an HTTP error status whose body is a JSON-RPC error) — and rejects with a
 *   `TransportError` (unreachable, closed mid-call, a status without a JSON-RPC body, garbage) or
 *   the signal's reason. Messages that arrive for the request before its response go to the sink.
 * - `notify` and `respond` send a notification or the answer to a server-initiated request.
 * - `close()` is graceful and idempotent: it ends the session (HTTP DELETE), stops the process
 *   (stdio) and fails pending requests with SNODO_ERR_CLOSED.
 */
export interface ClientTransport {
  /** Short name for messages: `http`, `stdio`, `direct`, or a custom one. */
  readonly kind: string;
  /** True when the transport sends 2026-07-28 HTTP headers, so tools with invalid `x-mcp-header`s are dropped. */
  readonly httpHeaders?: boolean;
  /** Whether a `server/discover` probe that gets no answer must time out (stdio: a legacy server may stay silent). */
  readonly probeNeedsTimeout?: boolean;
  open(sink: TransportSink): Promise<void>;
  request(request: JsonRpcRequest, options: SendOptions): Promise<JsonRpcResponse>;
  notify(notification: JsonRpcNotification, options: SendOptions): Promise<void>;
  respond(response: JsonRpcResponse, options: SendOptions): Promise<void>;
  /** The authorization context of the next request, keying private cache entries (HTTP: the bearer token). */
  authorizationKey?(): Promise<string | undefined>;
  close(): Promise<void>;
}
