import { type DispatchContext, dispatch } from '../dispatch/dispatch.js';
import { contextForJob } from '../dispatch/job-signal.js';
import type { OpenedSubscription } from '../dispatch/outcome.js';
import { dispatchBatch } from '../engine/batch.js';
import { type RefusalReason, refusalReason, refusalWireError } from '../engine/refusal.js';
import { executorAdmission, runRequest as runOnEngine } from '../engine/run.js';
import { ErrorCode } from '../errors/codes.js';
import type { JobOptions, SubscriptionSlot } from '../executor/executor.js';
import { type AbortSignalLike, LazySignal } from '../executor/lazy-signal.js';
import type { RequestId } from '../json/int.js';
import { errorResponse, type JsonRpcMessage, type JsonRpcResponse, requestKey } from '../jsonrpc/types.js';
import type { HttpConfig } from './config.js';
import type { PreparedRequest, SessionRef, Work } from './prepare.js';
import {
  emptyResponse,
  JSON_HEADERS,
  jsonResponse,
  refusal,
  refusedResponse,
  SSE_HEADERS,
  statusOf,
} from './responses.js';
import { HttpRun, InitializeRun, SessionRun, storeSession } from './run.js';
import { mintSessionId } from './sessions.js';
import { sseFrames } from './sse.js';
import type { HttpJsonResponse, HttpRequest, HttpResponse, HttpStreamResponse } from './types.js';

type Of<K extends Work['kind']> = Extract<Work, { kind: K }>;

const NO_SCOPES: ReadonlySet<string> = new Set();

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
    // A control channel across instances could not reach the one holding the session's work in
    // its bounded wait: nothing was acknowledged, and the client may try again.
    if (refusalReason(error) === 'SNODO_ERR_CONTROL_TIMEOUT') {
      const { work } = prepared;
      return refused(
        prepared.config,
        'SNODO_ERR_CONTROL_TIMEOUT',
        work.kind === 'request' ? work.message.id : null,
      );
    }
    throw error;
  }
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
  const context: DispatchContext = contextForJob();
  if (work.session) {
    context.session = work.session.session;
    context.connectionId = work.session.id;
  }
  if (work.headerVersion !== undefined) context.headerVersion = work.headerVersion;
  if (request.auth !== undefined) context.auth = request.auth;
  // HTTP checks requiredScopes: an anonymous caller has none.
  context.grantedScopes = request.auth === undefined ? NO_SCOPES : new Set(request.auth.scopes ?? []);
  if (request.url !== undefined) context.url = request.url;
  context.headers = request.headers;
  return context;
}

function runRequest(prepared: PreparedRequest, work: Of<'request'>): Promise<HttpResponse> | HttpResponse {
  const { runtime, config, request } = prepared;
  const { message, modern, session } = work;
  if (!modern && session) return runSessionRequest(prepared, work, session);
  let slot: SubscriptionSlot | null | undefined;
  if (message.method === 'subscriptions/listen') {
    slot = config.executor.acquireSubscription();
    if (slot === null) return refused(config, 'SNODO_ERR_SUBSCRIPTION_LIMIT', message.id);
  }
  const run = new HttpRun(runtime, message, baseContext(request, work), modern);
  const scope = request.cancellationScope;
  let signal = request.signal;
  if (scope !== undefined) {
    const scoped = trackInScope(config, scope, message.id, signal);
    signal = scoped.signal;
    run.untrack = scoped.untrack;
  }
  void runOnEngine(executorAdmission(config.executor), run, submitOptions(config, signal));
  return answer(config, request, run, slot);
}

/**
 * A request of an initialize-based session. It is registered with the session's local state so
 * that `notifications/cancelled`, DELETE and the client's answers reach it, and a server-initiated
 * request (sampling, elicitation) made while it runs goes on its own stream: the first message
 * decides JSON or SSE. The disconnect signal is not passed on (a disconnect is not a cancellation
 * on these revisions).
 */
function runSessionRequest(
  prepared: PreparedRequest,
  work: Of<'request'>,
  session: SessionRef,
): Promise<HttpResponse> {
  const { runtime, config, request } = prepared;
  const { message } = work;
  const run = new SessionRun(runtime, message, baseContext(request, work), config, session.id);
  const cancel = new LazySignal();
  const { channel, untrack } = config.local.track(session.id, requestKey(message.id), cancel, run);
  run.context.channel = channel;
  run.untrack = untrack;
  void runOnEngine(executorAdmission(config.executor), run, submitOptions(config, cancel));
  return answer(config, request, run);
}

/** The request's deadline (the executor's unless `requestTimeout` is set) and outside signal. */
function submitOptions(config: HttpConfig, signal: AbortSignalLike | undefined): JobOptions {
  const { requestTimeout } = config;
  if (signal === undefined) return requestTimeout === undefined ? {} : { timeout: requestTimeout };
  return requestTimeout === undefined ? { signal } : { signal, timeout: requestTimeout };
}

/**
 * The HTTP answer of a run, in the form its first message decided (see `HttpRun`). A held
 * subscription slot goes to a subscription stream, and returns otherwise.
 */
async function answer(
  config: HttpConfig,
  request: HttpRequest,
  run: HttpRun,
  slot?: SubscriptionSlot | null,
): Promise<HttpResponse> {
  await run.decided;
  const { relay, response, outcome } = run;
  if (outcome?.type === 'subscription' && response === undefined) {
    const held = slot ?? config.executor.acquireSubscription();
    if (!held) {
      outcome.subscription.close();
      return refused(config, 'SNODO_ERR_SUBSCRIPTION_LIMIT', run.id);
    }
    return serveSubscription(config, request, outcome.subscription, held);
  }
  slot?.release();
  // A subscription the engine answered for instead (its deadline passed first) is not served.
  if (outcome?.type === 'subscription') outcome.subscription.close();
  if (response !== undefined) {
    if (run.refused !== undefined) return refusedResponse(run.refused, response, config.overloadRetryAfter);
    return jsonResponse(statusOf(response, run.modern), response, run.headers);
  }
  if (relay === undefined) return outcome?.type === 'none' ? emptyResponse(202) : emptyStream();
  const messages = relay[Symbol.asyncIterator]();
  const head = await messages.next();
  if (head.done) return emptyStream();
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
  const run = new InitializeRun(runtime, work.message, baseContext(request, {}));
  // No disconnect signal: on the initialize-based revisions a disconnect is not a cancellation.
  void runOnEngine(executorAdmission(config.executor), run, submitOptions(config, undefined));
  await run.decided;
  if (run.created !== undefined && run.response !== undefined && run.refused === undefined) {
    const sessionId = mintSessionId();
    await config.sessions.set(sessionId, run.created);
    run.headers = { ...JSON_HEADERS, 'mcp-session-id': sessionId };
  }
  return answer(config, request, run);
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
  disconnect: AbortSignalLike,
): { signal: AbortSignalLike; untrack: () => void } {
  const cancel = new LazySignal();
  const abort = () => cancel.abort(disconnect.reason);
  if (disconnect.aborted) abort();
  else disconnect.addEventListener('abort', abort, { once: true });
  const untrack = config.scopes.track(scope, requestKey(id), cancel);
  return {
    signal: cancel,
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

/**
 * The standalone GET stream of an initialize-based session, until the client leaves, the session
 * ends (DELETE) or the host shuts down. It holds a subscription slot like `subscriptions/listen`.
 */
function runListen(prepared: PreparedRequest, work: Of<'listen'>): HttpResponse {
  const { runtime, config, request } = prepared;
  const slot = config.executor.acquireSubscription();
  if (!slot) return refused(config, 'SNODO_ERR_SUBSCRIPTION_LIMIT', null);
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

/** A request the engine refused (see engine/refusal.ts), as HTTP answers it. */
function refused(
  config: HttpConfig,
  reason: Exclude<RefusalReason, 'SNODO_ERR_CANCELLED'>,
  id: RequestId | null,
): HttpJsonResponse {
  return refusedResponse(reason, errorResponse(id, refusalWireError(reason)), config.overloadRetryAfter);
}

function emptyStream(): HttpStreamResponse {
  return { status: 200, headers: SSE_HEADERS, events: (async function* () {})() };
}
