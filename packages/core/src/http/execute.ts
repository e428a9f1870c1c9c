import { dispatchBatch } from '../dispatch/batch.js';
import { type DispatchContext, dispatch } from '../dispatch/dispatch.js';
import type { OpenedSubscription, Outcome } from '../dispatch/outcome.js';
import type { Session } from '../dispatch/session.js';
import { MessageStream } from '../dispatch/stream.js';
import { ErrorCode } from '../errors/codes.js';
import { SnodoError } from '../errors/snodo-error.js';
import { ExecutorError } from '../executor/errors.js';
import type { SubscriptionSlot } from '../executor/executor.js';
import type { RequestId } from '../json/int.js';
import {
  errorResponse,
  isResponse,
  type JsonRpcMessage,
  type JsonRpcResponse,
  requestKey,
} from '../jsonrpc/types.js';
import type { HttpConfig } from './config.js';
import type { PreparedRequest, SessionRef, Work } from './prepare.js';
import {
  emptyResponse,
  errorHttpResponse,
  JSON_HEADERS,
  jsonResponse,
  refusal,
  SSE_HEADERS,
  statusOf,
} from './responses.js';
import { mintSessionId } from './sessions.js';
import { sseFrames } from './sse.js';
import type { HttpRequest, HttpResponse, HttpStreamResponse } from './types.js';

type Of<K extends Work['kind']> = Extract<Work, { kind: K }>;

/**
 * Runs a prepared request and shapes its answer: JSON for a plain result, `text/event-stream` when
 * the request streams notifications before its result (decided by the first message) or opens a
 * subscription, 202 for notifications and client responses, 204 for DELETE.
 *
 * Requests run through the executor with the request's deadline; overload is -32000 (a 200, or
 * 503 with `Retry-After` when `overloadRetryAfter` is set), a deadline -32001. A subscription
 * stream over `maxSubscriptions` is 503. On 2026-07-28 the request's `signal` (a disconnect) aborts the handler. On the
 * initialize-based revisions a disconnect is not a cancellation (their transport spec says so):
 * the handler runs to its end or its deadline and its answer is dropped; `notifications/cancelled`
 * or DELETE of the session stops it.
 */
export async function execute(prepared: PreparedRequest): Promise<HttpResponse> {
  try {
    return await run(prepared);
  } catch (error) {
    if (isControlTimeout(error)) {
      const { work } = prepared;
      return controlTimeout(work.kind === 'request' ? work.message.id : null);
    }
    throw error;
  }
}

function isControlTimeout(error: unknown): boolean {
  return SnodoError.is(error) && error.code === 'SNODO_ERR_CONTROL_TIMEOUT';
}

/**
 * A control channel across instances could not reach the one holding the session's work in its
 * bounded wait: nothing was acknowledged, and the client may try again.
 */
function controlTimeout(id: RequestId | null): HttpResponse {
  return refusal(
    'SNODO_ERR_CONTROL_TIMEOUT',
    id,
    'The instance holding this session did not answer: try again',
    {
      rpcCode: ErrorCode.InternalError,
      headers: { ...JSON_HEADERS, 'retry-after': '1' },
    },
  );
}

function run(prepared: PreparedRequest): Promise<HttpResponse> | HttpResponse {
  const { work } = prepared;
  switch (work.kind) {
    case 'request':
      return runRequest(prepared, work);
    case 'initialize':
      return runInitialize(prepared, work);
    case 'notification':
      return runNotification(prepared, work);
    case 'batch':
      return runBatch(prepared, work);
    case 'delete':
      return runDelete(prepared, work);
    case 'listen':
      return runListen(prepared, work);
  }
}

function baseContext(
  request: HttpRequest,
  work: { session?: SessionRef | undefined; headerVersion?: string | undefined },
): DispatchContext {
  const context: DispatchContext = {};
  if (work.session) {
    context.session = work.session.session;
    context.connectionId = work.session.id;
  }
  if (work.headerVersion !== undefined) context.headerVersion = work.headerVersion;
  if (request.auth !== undefined) context.auth = request.auth;
  // HTTP checks requiredScopes: an anonymous caller has none.
  context.grantedScopes = new Set(request.auth?.scopes ?? []);
  if (request.url !== undefined) context.url = request.url;
  context.headers = request.headers;
  return context;
}

async function runRequest(prepared: PreparedRequest, work: Of<'request'>): Promise<HttpResponse> {
  const { runtime, config, request } = prepared;
  const { message, modern, session } = work;
  const { id } = message;
  if (!modern && session) return runLegacyRequest(prepared, work, session);
  const scope = request.cancellationScope;
  const scoped = scope === undefined ? undefined : trackInScope(config, scope, id, request.signal);
  const signal = scoped?.signal ?? request.signal;
  let slot: SubscriptionSlot | null | undefined;
  if (message.method === 'subscriptions/listen') {
    slot = config.executor.acquireSubscription();
    if (slot === null) {
      return tooManyStreams(id, 'Too many open subscriptions: try again later');
    }
  }
  const context = baseContext(request, work);

  // The task holds its executor slot until the handler is done, streamed or not: a stream's
  // messages are moved into `relay` (bounded like the source) while the host reads them.
  let handoff!: (relay: MessageStream) => void;
  const streamed = new Promise<MessageStream>((resolve) => {
    handoff = resolve;
  });
  const settled = config.executor.submit(
    async (taskSignal): Promise<Outcome> => {
      const outcome = await dispatch(runtime, message, { ...context, signal: taskSignal });
      if (outcome.type !== 'stream') return outcome;
      const relay = new MessageStream();
      handoff(relay);
      await relayAll(outcome.messages, relay);
      return outcome;
    },
    config.requestTimeout === undefined ? { signal } : { signal, timeout: config.requestTimeout },
  );
  if (scoped) settled.then(scoped.untrack, scoped.untrack);

  let first: Outcome | MessageStream;
  try {
    first = await Promise.race([settled, streamed]);
  } catch (error) {
    slot?.release();
    return failure(config, error, id);
  }

  if (!(first instanceof MessageStream)) {
    if (first.type === 'subscription') {
      if (!slot) slot = config.executor.acquireSubscription();
      if (!slot) {
        first.subscription.close();
        return tooManyStreams(id, 'Too many open subscriptions: try again later');
      }
      return serveSubscription(config, request, first.subscription, slot);
    }
    slot?.release();
    if (first.type === 'response') {
      if (first.session && session) await storeSession(config, session.id, first.session);
      return jsonResponse(statusOf(first.message, modern), first.message);
    }
    return emptyResponse(202);
  }

  const relay = first;
  slot?.release();
  settled.then(
    async (outcome) => {
      if (outcome.type === 'stream' && outcome.session && session)
        await storeSession(config, session.id, outcome.session);
    },
    (error) => {
      if (ExecutorError.is(error) && error.code === 'SNODO_ERR_REQUEST_TIMEOUT') relay.end(timedOut(id));
      else relay.abandon();
    },
  );
  const messages = relay[Symbol.asyncIterator]();
  const head = await messages.next();
  if (head.done) return emptyStream();
  if (isResponse(head.value)) return jsonResponse(statusOf(head.value, modern), head.value);
  return {
    status: 200,
    headers: SSE_HEADERS,
    events: sseFrames(
      messages,
      { keepAliveInterval: config.keepAliveInterval, disconnect: request.signal },
      head.value,
    ),
  };
}

/**
 * A request of an initialize-based session. Its messages go through `relay` from the start, since
 * a server-initiated request (sampling, elicitation) may come before the handler returns: the
 * first message decides JSON or SSE. The request is registered with the session's local state so
 * that `notifications/cancelled`, DELETE and the client's answers reach it; the disconnect signal
 * is not passed on (a disconnect is not a cancellation on these revisions).
 */
async function runLegacyRequest(
  prepared: PreparedRequest,
  work: Of<'request'>,
  session: NonNullable<Of<'request'>['session']>,
): Promise<HttpResponse> {
  const { runtime, config, request } = prepared;
  const { message } = work;
  const { id } = message;
  const controller = new AbortController();
  const relay = new MessageStream();
  const { channel, untrack } = config.local.track(session.id, requestKey(id), controller, relay);
  const context: DispatchContext = { ...baseContext(request, work), channel };
  const settled = config.executor.submit(
    async (signal): Promise<Outcome> => {
      const outcome = await dispatch(runtime, message, { ...context, signal });
      if (outcome.type === 'stream') await relayAll(outcome.messages, relay);
      else if (outcome.type === 'response') {
        // Stored, and delivered to the session's streams, before the client has the answer: its
        // next request (on any instance) sees the change (`resources/subscribe`, then updates).
        if (outcome.session) await storeSession(config, session.id, outcome.session);
        relay.end(outcome.message);
      } else relay.abandon();
      return outcome;
    },
    config.requestTimeout === undefined
      ? { signal: controller.signal }
      : { signal: controller.signal, timeout: config.requestTimeout },
  );
  let refused: unknown;
  settled.then(
    async (outcome) => {
      untrack();
      // A streamed answer is already sent: a failure to store is lost with it, never unhandled.
      if (outcome.type === 'stream' && outcome.session)
        await storeSession(config, session.id, outcome.session).catch(() => undefined);
    },
    (error) => {
      untrack();
      if (ExecutorError.is(error) && error.code === 'SNODO_ERR_REQUEST_TIMEOUT') {
        relay.end(timedOut(id));
      } else {
        refused = error;
        relay.abandon();
      }
    },
  );
  const messages = relay[Symbol.asyncIterator]();
  const head = await messages.next();
  if (head.done) return refused === undefined ? emptyStream() : failure(config, refused, id);
  if (isResponse(head.value)) return jsonResponse(200, head.value);
  return {
    status: 200,
    headers: SSE_HEADERS,
    events: sseFrames(
      messages,
      { keepAliveInterval: config.keepAliveInterval, disconnect: request.signal },
      head.value,
    ),
  };
}

/**
 * A subscription stream until the client leaves (its slot returns at once, even if the host never
 * reads the stream), the source ends, or the host shuts down; in the last two cases the graceful
 * listen result is the last event.
 */
function serveSubscription(
  config: HttpConfig,
  request: HttpRequest,
  subscription: OpenedSubscription,
  slot: SubscriptionSlot,
): HttpStreamResponse {
  return serveHeldStream(config, request, subscription, slot, () => subscription.close());
}

/**
 * An SSE stream that holds a subscription slot: the slot returns and `source` closes when the
 * client leaves (at once, even if the host never reads the stream), when the source drops its
 * reader (`dropped`: at once too, and the response's `cut` tells the host to close a connection
 * stuck on a full socket) or the stream ends; `final`, when given, is the last event after the
 * source ends or the host shuts down.
 */
function serveHeldStream(
  config: HttpConfig,
  request: HttpRequest,
  source: AsyncIterable<JsonRpcMessage> & { close(): unknown; readonly dropped?: AbortSignal },
  slot: SubscriptionSlot,
  final?: () => JsonRpcResponse,
): HttpStreamResponse {
  const disconnect = request.signal;
  const dropped = source.dropped;
  const cut = new AbortController();
  const release = () => {
    disconnect.removeEventListener('abort', release);
    dropped?.removeEventListener('abort', drop);
    source.close();
    slot.release();
  };
  const drop = () => {
    release();
    cut.abort(dropped?.reason);
  };
  disconnect.addEventListener('abort', release);
  dropped?.addEventListener('abort', drop);
  if (disconnect.aborted) release();
  else if (dropped?.aborted) drop();
  return {
    status: 200,
    headers: SSE_HEADERS,
    cut: cut.signal,
    events: sseFrames(source[Symbol.asyncIterator](), {
      keepAliveInterval: config.keepAliveInterval,
      disconnect,
      shutdown: config.shutdownSignal,
      ...(final ? { final } : {}),
      cleanup: release,
    }),
  };
}

async function runInitialize(prepared: PreparedRequest, work: Of<'initialize'>): Promise<HttpResponse> {
  const { runtime, config, request } = prepared;
  const context = baseContext(request, {});
  let outcome: Outcome;
  try {
    // No disconnect signal: on the initialize-based revisions a disconnect is not a cancellation.
    outcome = await config.executor.submit(
      (signal) => dispatch(runtime, work.message, { ...context, signal }),
      config.requestTimeout === undefined ? {} : { timeout: config.requestTimeout },
    );
  } catch (error) {
    return failure(config, error, work.message.id);
  }
  if (outcome.type !== 'response') return emptyResponse(202);
  if (!outcome.session) return jsonResponse(statusOf(outcome.message, true), outcome.message);
  const sessionId = mintSessionId();
  await config.sessions.set(sessionId, outcome.session);
  return jsonResponse(200, outcome.message, { ...JSON_HEADERS, 'mcp-session-id': sessionId });
}

async function runNotification(prepared: PreparedRequest, work: Of<'notification'>): Promise<HttpResponse> {
  const { runtime, config, request } = prepared;
  const { session } = work;
  const { control } = config.local;
  if (session && work.message.kind === 'response') {
    const { id, result, error } = work.message;
    const answered = await control.deliver(session.id, {
      kind: 'answer',
      response: error === undefined ? { id, result } : { id, error },
    });
    // An answer nobody waits for is not acknowledged: the client learns its answer went nowhere.
    if (!answered) return refusal('SNODO_ERR_NOT_DELIVERED', null, 'No pending request has this id');
    return emptyResponse(202);
  }
  const context = baseContext(request, work);
  // A relayed notification (roots changed) may lead to a request to this client outside its own.
  if (session) context.channel = config.local.outside(session.id);
  const outcome = await dispatch(runtime, work.message, context);
  if (session && outcome.type === 'none') {
    if (outcome.cancel !== undefined) {
      const cancelled = await control.deliver(session.id, {
        kind: 'cancel',
        requestKey: requestKey(outcome.cancel),
        reason: 'notifications/cancelled',
      });
      if (!cancelled)
        return refusal('SNODO_ERR_NOT_DELIVERED', null, 'No running request has this requestId', {
          rpcCode: ErrorCode.InvalidParams,
        });
    }
    if (outcome.session) await storeSession(config, session.id, outcome.session);
  } else if (
    outcome.type === 'none' &&
    outcome.cancel !== undefined &&
    request.cancellationScope !== undefined
  ) {
    config.scopes.cancel(request.cancellationScope, requestKey(outcome.cancel), 'notifications/cancelled');
  }
  return emptyResponse(202);
}

/**
 * A 2026-07-28 request whose host verified a cancellation scope: aborted by a disconnect as
 * always, and also by `notifications/cancelled` naming its id from a request of the same scope.
 * `untrack` must run once the handler is done.
 */
function trackInScope(
  config: HttpConfig,
  scope: string,
  id: RequestId,
  disconnect: AbortSignal,
): { signal: AbortSignal; untrack: () => void } {
  const controller = new AbortController();
  const abort = () => controller.abort(disconnect.reason);
  if (disconnect.aborted) abort();
  else disconnect.addEventListener('abort', abort, { once: true });
  const untrack = config.scopes.track(scope, requestKey(id), controller);
  return {
    signal: controller.signal,
    untrack: () => {
      disconnect.removeEventListener('abort', abort);
      untrack();
    },
  };
}

/**
 * A 2025-03-26 batch: each request item is admitted by the executor like a single request, with
 * its own deadline; an item over the executor's bounds gets its own -32000 in the array while
 * the others run. Like a single legacy request, a disconnect does not cancel the items.
 */
async function runBatch(prepared: PreparedRequest, work: Of<'batch'>): Promise<HttpResponse> {
  const { runtime, config, request } = prepared;
  const deadline = config.requestTimeout === undefined ? {} : { timeout: config.requestTimeout };
  const result = await dispatchBatch(runtime, work.items, baseContext(request, work), {
    maxBatchItems: config.maxBatchItems,
    admit: (task) => config.executor.submit(task, deadline),
  });
  if (result.session) await storeSession(config, work.session.id, result.session);
  return result.responses.length === 0 ? emptyResponse(202) : jsonResponse(200, result.responses);
}

/** Stores a changed session, and tells this instance's GET stream of it. */
async function storeSession(config: HttpConfig, id: string, session: Session): Promise<void> {
  await config.sessions.set(id, session);
  await config.local.control.deliver(id, { kind: 'update', session });
}

/**
 * The standalone GET stream of an initialize-based session, until the client leaves, the session
 * ends (DELETE) or the host shuts down. It holds a subscription slot like `subscriptions/listen`.
 */
function runListen(prepared: PreparedRequest, work: Of<'listen'>): HttpResponse {
  const { runtime, config, request } = prepared;
  const slot = config.executor.acquireSubscription();
  if (!slot) return tooManyStreams(null, 'Too many open streams: try again later');
  const stream = config.local.openStream(
    work.session.id,
    work.session.session,
    runtime,
    undefined,
    request.auth,
  );
  return serveHeldStream(config, request, stream, slot);
}

async function runDelete(prepared: PreparedRequest, work: Of<'delete'>): Promise<HttpResponse> {
  const { config } = prepared;
  await config.sessions.delete(work.session.id);
  await config.local.control.deliver(work.session.id, { kind: 'end', reason: 'session deleted' });
  return emptyResponse(204);
}

async function relayAll(source: AsyncIterable<JsonRpcMessage>, relay: MessageStream): Promise<void> {
  let ended = false;
  for await (const message of source) {
    if (isResponse(message)) {
      relay.end(message);
      ended = true;
    } else {
      relay.push(message);
    }
  }
  if (!ended) relay.abandon();
}

/**
 * An open stream refused over `maxSubscriptions`: 503 with `Retry-After`, as the reference design
 * says (a held stream is capacity a load balancer can find elsewhere).
 */
function tooManyStreams(id: RequestId | null, message: string): HttpResponse {
  return {
    ...refusal('SNODO_ERR_SUBSCRIPTION_LIMIT', id, message, { rpcCode: ErrorCode.ServerOverloaded }),
    headers: { ...JSON_HEADERS, 'retry-after': '1' },
  };
}

/**
 * A request the executor refused: -32000 in a 200, which the official clients read; a 503 with
 * `Retry-After` only when the host asked for it (`overloadRetryAfter`).
 */
function overloaded(config: HttpConfig, id: RequestId | null, message: string): HttpResponse {
  const retryAfter = config.overloadRetryAfter;
  if (retryAfter === undefined) return errorHttpResponse(200, id, ErrorCode.ServerOverloaded, message);
  return {
    ...refusal('SNODO_ERR_OVERLOADED', id, message, { rpcCode: ErrorCode.ServerOverloaded }),
    headers: { ...JSON_HEADERS, 'retry-after': String(retryAfter) },
  };
}

function timedOut(id: RequestId): JsonRpcResponse {
  return errorResponse(id, { code: ErrorCode.RequestTimeout, message: 'Request timed out' });
}

function emptyStream(): HttpStreamResponse {
  return { status: 200, headers: SSE_HEADERS, events: (async function* () {})() };
}

/** How an executor refusal reaches the client: a 200 with the JSON-RPC error, as every error but the edge's. */
function failure(config: HttpConfig, error: unknown, id: RequestId | null): HttpResponse {
  if (isControlTimeout(error)) return controlTimeout(id);
  if (ExecutorError.is(error)) {
    switch (error.code) {
      case 'SNODO_ERR_OVERLOADED':
        return overloaded(config, id, 'Server overloaded: try again later');
      case 'SNODO_ERR_EXECUTOR_CLOSED':
        return overloaded(config, id, 'Server is shutting down');
      case 'SNODO_ERR_REQUEST_TIMEOUT':
        return id === null
          ? errorHttpResponse(200, null, ErrorCode.RequestTimeout, 'Request timed out')
          : jsonResponse(200, timedOut(id));
      case 'SNODO_ERR_CANCELLED':
        // The client left (2026-07-28) or cancelled (notifications/cancelled): no answer is due.
        return emptyStream();
    }
  }
  return errorHttpResponse(200, id, ErrorCode.InternalError, 'Internal error');
}
