import type { AuthInfo } from '../dispatch/context.js';
import type { AbortSignalLike } from '../executor/lazy-signal.js';
import type { HttpStreamEvent } from './sse.js';

/**
 * One HTTP request as every host hands it to core: no Node or WHATWG types, so the same code runs in
 * Node.js, Deno, Bun and workers. Header names are lower-case; a repeated header is joined with ", ".
 */
export interface HttpRequest {
  readonly method: string;
  /** The request target's path, with or without its query string. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  /**
   * The header fields as received, name then value (Node's `IncomingMessage.rawHeaders`), when the
   * host has them. `headers` may keep only the first of a repeated field (Node does for Host and
   * Content-Type); with this list core refuses a request that repeats a field it must carry once.
   */
  readonly rawHeaders?: readonly string[];
  /** The complete body (empty for GET and DELETE). The host bounds its size before reading it. */
  readonly body: Uint8Array;
  readonly remoteAddress?: string;
  /**
   * Aborted when the client disconnects: on 2026-07-28 that cancels the request. An AbortSignal,
   * or anything core can read the same way (`aborted`, `reason`, `abort` listeners): Snodo's own
   * hosts pass a cheaper one whose AbortSignal is made only if needed. Handlers never see it:
   * their `ctx.signal` is a real AbortSignal.
   */
  readonly signal: AbortSignalLike;
  /** The identity the host verified (its own authentication); never taken from unverified headers. */
  readonly auth?: AuthInfo;
  /** The absolute URL the client used, when the host knows it (handlers see it as `context.url`). */
  readonly url?: string;
  /**
   * A verified identifier of the client instance (from the host's authentication, never from an
   * unverified header; two instances of one user must differ). On 2026-07-28, a
   * `notifications/cancelled` from a request of the same scope stops the request it names;
   * without a scope only a disconnect cancels.
   */
  readonly cancellationScope?: string;
}

/** A complete response: JSON (or an empty body for 202/204). */
export interface HttpJsonResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** UTF-8 text; '' for an empty body. */
  readonly body: string;
}

/**
 * A `text/event-stream` response. `events` yields structured events (`{ event, data, id? }`, data
 * already encoded JSON) and keepalive ticks (`{ keepalive: true }`); `sseText` turns either into
 * SSE text. The host writes each as it comes and must either read the stream to its end, stop it
 * with `return()`, or abort the request's `signal` (a disconnect): each of those releases what the
 * stream holds (a subscription slot, the request's handler on 2026-07-28).
 */
export interface HttpStreamResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly events: AsyncIterable<HttpStreamEvent>;
  /**
   * Aborted when core dropped the stream's reader (it fell `queueSize` behind) and freed its
   * subscription slot. A host waiting for the socket to drain stops waiting and destroys the
   * connection; a host still reading `events` reads the rest (the graceful end) as usual.
   */
  readonly cut?: AbortSignal;
}

export type HttpResponse = HttpJsonResponse | HttpStreamResponse;

export function isStreamResponse(response: HttpResponse): response is HttpStreamResponse {
  return 'events' in response;
}
