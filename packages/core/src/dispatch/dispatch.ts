import type { Dialect } from '../dialects/dialect.js';
import { dialectFor } from '../dialects/registry.js';
import { ErrorCode } from '../errors/codes.js';
import { ProtocolError } from '../errors/protocol-error.js';
import { queueWait } from '../executor/observe.js';
import type { RequestId } from '../json/int.js';
import { classifyMessage, type DecodedSingle } from '../jsonrpc/decode.js';
import {
  errorResponse,
  type JsonRpcErrorObject,
  type JsonRpcResponse,
  resultResponse,
} from '../jsonrpc/types.js';
import { DEFAULT_SUBSCRIPTION_QUEUE } from '../limits/defaults.js';
import { initializeResult } from '../ops/discover.js';
import { OPERATIONS } from '../ops/table.js';
import { LOG_LEVELS, type LogLevel } from '../protocol/types.js';
import { extensionRefusal } from '../router/extension.js';
import type { Runtime } from '../router/runtime.js';
import { openExtensionFeeds } from '../subscriptions/extension-feeds.js';
import { honouredFilter, openListen, parseFilter } from '../subscriptions/listen.js';
import { type ErrorSource, reportError } from '../telemetry/hooks.js';
import { isObserved } from '../telemetry/instruments.js';
import { loadedOtel, loadOtel, type Otel } from '../telemetry/otel.js';
import { RequestTrace } from '../telemetry/request-trace.js';
import type { AuthInfo } from './context.js';
import { createHandlerContext, type HandlerContextInput, type InputRound } from './handler-context.js';
import type { ClientRequestChannel } from './input.js';
import { runWithInput } from './mrtr.js';
import type { Operation, OperationCall, OperationCalls } from './operation.js';
import type { Outcome } from './outcome.js';
import { type Selection, selectRevision } from './select.js';
import type { Session } from './session.js';
import { createSession, withSession } from './session.js';
import { MessageStream } from './stream.js';

/** What the transport knows about a message besides its body. */
export interface DispatchContext {
  /**
   * Aborts the handler (client cancel, disconnect, executor deadline). Read only when something
   * needs it (the handler reading `ctx.signal`), so it may be a getter that makes it then
   * (`withJobSignal`).
   */
  signal?: AbortSignal;
  /** The initialize-based session this message belongs to, if any. */
  session?: Session;
  /** The transport's MCP-Protocol-Version header. */
  headerVersion?: string;
  /** Verified identity from the host (never from unverified headers). */
  auth?: AuthInfo;
  /**
   * The client connection or initialize-based session this message came on, when the transport
   * has one (a stdio or in-process connection; an HTTP session): opaque, stable for its lifetime,
   * never shared with another client. Absent for stateless 2026-07-28 HTTP requests.
   */
  connectionId?: string;
  /**
   * The scopes the caller was granted, when the transport checks `requiredScopes` (HTTP): lists
   * then show only the tools, prompts and resources those scopes allow. Unset: no filtering.
   */
  grantedScopes?: ReadonlySet<string>;
  /** The URL the request arrived on (HTTP), as the client used it. */
  url?: string;
  /** Carries server-initiated requests (initialize-based revisions), when the transport can. */
  channel?: ClientRequestChannel;
  /** Bound of a subscription's unread notifications (default 64). */
  subscriptionQueue?: number;
  /** Notifications a request's stream buffers for a slow reader (default 1,024; further ones are dropped). */
  maxStreamBuffer?: number;
  /**
   * The HTTP request's headers (lower-case names), when the message came over HTTP: a `traceparent`
   * there is the request span's parent when neither `params._meta` nor the host's active span has one.
   */
  headers?: Readonly<Record<string, string | undefined>>;
  /**
   * The OpenTelemetry `network.transport` of the connection (`pipe` for stdio), for the request's
   * span and duration metric. Default: `tcp` when `headers` is set (HTTP), else none (in-process).
   */
  networkTransport?: 'pipe' | 'tcp' | 'unix';
}

/** The server capability each core method needs; without it the method does not exist (-32601). */
const NEEDS: Readonly<Record<string, (runtime: Runtime) => boolean>> = {
  'tools/list': (r) => r.capabilities.tools !== undefined,
  'tools/call': (r) => r.capabilities.tools !== undefined,
  'prompts/list': (r) => r.capabilities.prompts !== undefined,
  'prompts/get': (r) => r.capabilities.prompts !== undefined,
  'resources/list': (r) => r.capabilities.resources !== undefined,
  'resources/templates/list': (r) => r.capabilities.resources !== undefined,
  'resources/read': (r) => r.capabilities.resources !== undefined,
  'resources/subscribe': (r) => r.capabilities.resources?.subscribe === true,
  'resources/unsubscribe': (r) => r.capabilities.resources?.subscribe === true,
  'completion/complete': (r) => r.capabilities.completions !== undefined,
  'logging/setLevel': (r) => r.capabilities.logging !== undefined,
};

/**
 * The single entry of every transport: runs one decoded (or raw, already-parsed) JSON-RPC message
 * against the runtime and returns a protocol-neutral outcome. Never throws for bad input, and
 * performs no I/O: notifications travel in the outcome. Always a promise (a throw becomes its
 * rejection); a request's is the one its operation's run makes, not another async frame around it.
 */
export function dispatch(
  runtime: Runtime,
  message: unknown,
  context: DispatchContext = {},
): Promise<Outcome> {
  try {
    const decoded = isDecoded(message) ? message : classifyMessage(message);
    switch (decoded.kind) {
      case 'invalid':
        return Promise.resolve({ type: 'response', message: errorResponse(decoded.id, decoded.error) });
      case 'response':
        return Promise.resolve({ type: 'none' });
      case 'notification':
        return Promise.resolve(dispatchNotification(runtime, decoded.method, decoded.params, context));
      case 'request':
        return dispatchRequest(runtime, decoded.id, decoded.method, decoded.params, context);
    }
  } catch (error) {
    return Promise.reject(error);
  }
}

const DECODED_KINDS = new Set(['request', 'notification', 'response', 'invalid']);

function isDecoded(message: unknown): message is DecodedSingle {
  return (
    typeof message === 'object' &&
    message !== null &&
    DECODED_KINDS.has((message as { kind?: unknown }).kind as string) &&
    !('jsonrpc' in message)
  );
}

function dispatchNotification(
  runtime: Runtime,
  method: string,
  params: Record<string, unknown> | undefined,
  context: DispatchContext,
): Outcome {
  const { session } = context;
  if (method === 'notifications/initialized') {
    return session && !session.initialized
      ? { type: 'none', session: withSession(session, { initialized: true }) }
      : { type: 'none' };
  }
  if (method === 'notifications/cancelled') {
    const requestId = params?.requestId;
    if (
      typeof requestId === 'string' ||
      typeof requestId === 'number' ||
      (typeof requestId === 'object' && requestId !== null)
    ) {
      return { type: 'none', cancel: requestId as RequestId };
    }
    return { type: 'none' };
  }
  if (runtime.onClientNotification && method !== 'notifications/progress') {
    const { channel } = context;
    try {
      runtime.onClientNotification({
        method,
        params,
        auth: context.auth,
        connectionId: context.connectionId,
        clientCapabilities: session?.clientCapabilities,
        ...(channel ? { request: (m, p, signal) => channel.request(m, p, { signal }) } : {}),
      });
    } catch {
      // The notification is accepted whatever the hook does.
    }
  }
  return { type: 'none' };
}

/**
 * A request, traced when `@opentelemetry/api` is installed and something observes it (`isObserved`): a SERVER span (README, "Observability")
 * around the routing, active while the handler runs, ended when the response is known.
 */
function dispatchRequest(
  runtime: Runtime,
  id: RequestId,
  method: string,
  params: Record<string, unknown> | undefined,
  context: DispatchContext,
): Promise<Outcome> {
  const otel = loadedOtel();
  if (otel === null || (otel !== undefined && !isObserved(otel)))
    return settled(route(runtime, id, method, params, context, undefined));
  // Set only while the executor starts a task: read now, before the first await.
  return tracedRequest(runtime, id, method, params, context, otel, queueWait());
}

async function tracedRequest(
  runtime: Runtime,
  id: RequestId,
  method: string,
  params: Record<string, unknown> | undefined,
  context: DispatchContext,
  loaded: Otel | undefined,
  queueWaitMs: number | undefined,
): Promise<Outcome> {
  const otel = loaded ?? (await loadOtel());
  if (otel === null || !isObserved(otel)) return route(runtime, id, method, params, context, undefined);
  const trace = new RequestTrace(otel, {
    id,
    method,
    params,
    sessionId: context.connectionId,
    headers: context.headers,
    networkTransport: context.networkTransport ?? (context.headers === undefined ? undefined : 'tcp'),
    queueWaitMs,
  });
  let outcome: Outcome;
  try {
    outcome = await trace.run(() => route(runtime, id, method, params, context, trace));
  } catch (error) {
    trace.finish(undefined);
    throw error;
  }
  if (outcome.type === 'response') trace.finish(outcome.message);
  else if (outcome.type === 'subscription') trace.opened();
  else if (outcome.type === 'none') trace.finish(undefined);
  return outcome; // a stream: `run` finishes the trace with the response
}

/** A request's outcome: at once when it is known without running anything (a refusal). */
function route(
  runtime: Runtime,
  id: RequestId,
  method: string,
  params: Record<string, unknown> | undefined,
  context: DispatchContext,
  trace: RequestTrace | undefined,
): Outcome | Promise<Outcome> {
  const selected = selectRevision(runtime, {
    method,
    params,
    session: context.session,
    headerVersion: context.headerVersion,
  });
  if (ProtocolError.is(selected)) {
    const dialect = context.session ? dialectFor(context.session.protocolVersion) : undefined;
    return failed(id, dialect, selected);
  }
  const { dialect } = selected;
  trace?.version(dialect.version);
  const extension = runtime.extensionMethods.get(method);
  if (extension) {
    const refused = extensionRefusal(extension, method, selected);
    if (refused) return failed(id, dialect, refused);
    const handler = extension.methods.get(method) as NonNullable<ReturnType<typeof extension.methods.get>>;
    return run(runtime, id, method, params, context, selected, trace, (call) =>
      handler(call.params, call.context),
    );
  }
  const known = dialect.classify(method, 'request');
  if (known !== 'ok') {
    const error =
      known === 'invalid'
        ? ProtocolError.invalidRequest(`"${method}" is a notification, not a request`)
        : ProtocolError.methodNotFound(method, { protocolVersion: dialect.version });
    return failed(id, dialect, error);
  }
  if (NEEDS[method] && !NEEDS[method](runtime)) {
    return failed(
      id,
      dialect,
      ProtocolError.methodNotFound(method, { reason: 'this server does not offer it' }),
    );
  }
  if (SESSION_METHODS.has(method))
    return sessionMethod(runtime, id, method, params, context, selected, trace);
  const operation = runtime.operations?.get(method) ?? OPERATIONS.get(method);
  if (!operation) return failed(id, dialect, ProtocolError.methodNotFound(method));
  return run(runtime, id, method, params, context, selected, trace, operation);
}

/** `outcome` as a promise (dispatch's answer is always one). */
function settled(outcome: Outcome | Promise<Outcome>): Promise<Outcome> {
  return outcome instanceof Promise ? outcome : Promise.resolve(outcome);
}

const SESSION_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
  'subscriptions/listen',
]);

/** The session-changing methods settle like every operation: a throw is -32603 and reported. */
async function sessionMethod(
  runtime: Runtime,
  id: RequestId,
  method: string,
  params: Record<string, unknown> | undefined,
  context: DispatchContext,
  selected: Selection,
  trace: RequestTrace | undefined,
): Promise<Outcome> {
  try {
    switch (method) {
      case 'initialize':
        return initialize(runtime, id, params ?? {}, selected, context);
      case 'logging/setLevel':
        return setLevel(runtime, id, params, selected, context);
      case 'resources/subscribe':
      case 'resources/unsubscribe':
        return await subscribeLegacy(runtime, id, method, params, selected, context);
      default:
        return await listen(runtime, id, params ?? {}, selected, context);
    }
  } catch (error) {
    const source = errorSource(id, method, params, context, selected);
    return failed(id, selected.dialect, asProtocolError(runtime, error, source, trace));
  }
}

function failed(id: RequestId, dialect: Dialect | undefined, error: ProtocolError): Outcome {
  return {
    type: 'response',
    message: errorResponse(id, dialect ? dialect.shapeError(error) : plainError(error)),
  };
}

function plainError(error: ProtocolError): JsonRpcErrorObject {
  return error.data === undefined
    ? { code: error.code, message: error.message }
    : { code: error.code, message: error.message, data: error.data };
}

/** Runs an operation, as a plain response or, when it may notify, as a stream. */
function run(
  runtime: Runtime,
  id: RequestId,
  method: string,
  params: Record<string, unknown> | undefined,
  context: DispatchContext,
  selected: Selection,
  trace: RequestTrace | undefined,
  operation: Operation,
): Outcome | Promise<Outcome> {
  const request = new OperationRun(runtime, id, method, params, context, selected, trace);
  let response: JsonRpcResponse | Promise<JsonRpcResponse>;
  try {
    response = settle(
      request,
      method === 'tools/call' || method === 'prompts/get' || method === 'resources/read'
        ? runWithInput(runtime, method, params ?? {}, context, selected, operation, request, trace)
        : operation(request.call(undefined)),
    );
  } catch (error) {
    response = failure(request, error);
  }
  const { stream } = request;
  if (!stream)
    return response instanceof Promise ? response.then(responseOutcome) : responseOutcome(response);
  Promise.resolve(response).then(
    (message) => {
      trace?.finish(message);
      stream.end(message);
    },
    () => {
      trace?.finish(undefined);
      stream.abandon();
    },
  );
  return { type: 'stream', messages: stream };
}

/**
 * One request's run of an operation: what its calls, its answer and its error report read, in
 * one object instead of a closure for each and an error source made before anything failed.
 */
class OperationRun implements OperationCalls, HandlerContextInput {
  readonly progressToken: RequestId | undefined;
  readonly logThreshold: LogLevel | undefined;
  /** Set when the request may notify (a progress token, a log level): its messages, then its answer. */
  readonly stream: MessageStream | undefined;

  constructor(
    readonly runtime: Runtime,
    readonly requestId: RequestId,
    readonly method: string,
    readonly params: Record<string, unknown> | undefined,
    readonly context: DispatchContext,
    readonly selection: Selection,
    readonly trace: RequestTrace | undefined,
  ) {
    const meta = params?._meta as Record<string, unknown> | undefined;
    this.progressToken = meta?.progressToken as RequestId | undefined;
    this.logThreshold = runtime.capabilities.logging ? selection.logLevel : undefined;
    this.stream =
      this.progressToken !== undefined || this.logThreshold !== undefined
        ? new MessageStream(context.maxStreamBuffer)
        : undefined;
  }

  call(inputRound: InputRound | undefined): OperationCall {
    const { context, selection } = this;
    return {
      runtime: this.runtime,
      params: this.params ?? {},
      context: createHandlerContext(this, inputRound),
      selection,
      auth: context.auth,
      connectionId: context.connectionId,
      grantedScopes: context.grantedScopes,
    };
  }
}

function responseOutcome(message: JsonRpcResponse): Outcome {
  return { type: 'response', message };
}

/**
 * The response to `request` once its operation's result is known: at once for a result the
 * operation returned, when it settles for a promise (or any thenable).
 */
function settle(
  request: OperationRun,
  result: Record<string, unknown> | Promise<Record<string, unknown>>,
): JsonRpcResponse | Promise<JsonRpcResponse> {
  if (typeof (result as PromiseLike<unknown> | null)?.then !== 'function')
    return success(request, result as Record<string, unknown>);
  return Promise.resolve(result).then(
    (value) => success(request, value),
    (error: unknown) => failure(request, error),
  );
}

/** The shaped result, or the error response if shaping it threw. */
function success(request: OperationRun, result: Record<string, unknown>): JsonRpcResponse {
  const { runtime, requestId: id, method, selection } = request;
  try {
    return resultResponse(id, selection.dialect.shapeResult(method, result, runtime.shaping));
  } catch (error) {
    return failure(request, error);
  }
}

/** The error response to what the operation threw or rejected with. */
function failure(request: OperationRun, error: unknown): JsonRpcResponse {
  const { runtime, requestId: id, method, params, context, selection, trace } = request;
  const source = errorSource(id, method, params, context, selection);
  return errorResponse(id, selection.dialect.shapeError(asProtocolError(runtime, error, source, trace)));
}

/**
 * What the client sees of a thrown error: a ProtocolError as it is, anything else as -32603. An
 * internal error (that -32603, or a ProtocolError with its code) goes to `onError` (or the logger)
 * and on the request's span, once.
 */
function asProtocolError(
  runtime: Runtime,
  error: unknown,
  source: ErrorSource,
  trace: RequestTrace | undefined,
): ProtocolError {
  const known = ProtocolError.is(error);
  if (!known || error.code === ErrorCode.InternalError) {
    reportError(runtime, error, source);
    trace?.exception(error);
  }
  return known ? error : ProtocolError.internal();
}

function errorSource(
  id: RequestId,
  method: string,
  params: Record<string, unknown> | undefined,
  context: DispatchContext,
  selected: Selection,
): ErrorSource {
  return {
    method,
    requestId: id,
    params,
    auth: context.auth,
    protocolVersion: selected.dialect.version,
    connectionId: context.connectionId,
  };
}

function initialize(
  runtime: Runtime,
  id: RequestId,
  params: Record<string, unknown>,
  selected: Selection,
  context: DispatchContext,
): Outcome {
  const { dialect } = selected;
  const session = createSession(
    dialect.version,
    selected.clientCapabilities,
    selected.clientInfo,
    context.auth?.principal,
  );
  const call: OperationCall = {
    runtime,
    params,
    context: createHandlerContext(
      {
        requestId: id,
        method: 'initialize',
        selection: selected,
        context,
        stream: undefined,
        progressToken: undefined,
        logThreshold: undefined,
      },
      undefined,
    ),
    selection: selected,
    auth: context.auth,
    connectionId: context.connectionId,
    grantedScopes: context.grantedScopes,
  };
  const result = dialect.shapeResult('initialize', initializeResult(call, runtime), runtime.shaping);
  return { type: 'response', message: resultResponse(id, result), session };
}

function setLevel(
  runtime: Runtime,
  id: RequestId,
  params: Record<string, unknown> | undefined,
  selected: Selection,
  context: DispatchContext,
): Outcome {
  const level = params?.level;
  if (!LOG_LEVELS.includes(level as LogLevel)) {
    return failed(
      id,
      selected.dialect,
      ProtocolError.invalidParams(`level must be one of ${LOG_LEVELS.join(', ')}`),
    );
  }
  const response = resultResponse(id, selected.dialect.shapeResult('logging/setLevel', {}, runtime.shaping));
  const session = context.session ? withSession(context.session, { logLevel: level as LogLevel }) : undefined;
  return session ? { type: 'response', message: response, session } : { type: 'response', message: response };
}

async function subscribeLegacy(
  runtime: Runtime,
  id: RequestId,
  method: string,
  params: Record<string, unknown> | undefined,
  selected: Selection,
  context: DispatchContext,
): Promise<Outcome> {
  const uri = params?.uri;
  if (typeof uri !== 'string' || uri === '') {
    return failed(id, selected.dialect, ProtocolError.invalidParams(`${method} needs params.uri (a string)`));
  }
  if (method === 'resources/subscribe') {
    // Acknowledged only when updates of `uri` can come: what listen's acknowledgement would list.
    try {
      if (runtime.admitSubscribe) {
        const { auth, connectionId } = context;
        await runtime.admitSubscribe({ runtime, uri, auth, connectionId, selection: selected });
      } else if (!honouredFilter(runtime, { resourceSubscriptions: [uri] }).resourceSubscriptions) {
        throw ProtocolError.resourceNotFound(uri);
      }
    } catch (error) {
      const source = errorSource(id, method, params, context, selected);
      return failed(id, selected.dialect, asProtocolError(runtime, error, source, undefined));
    }
  }
  const response = resultResponse(id, selected.dialect.shapeResult(method, {}, runtime.shaping));
  const { session } = context;
  if (!session) return { type: 'response', message: response };
  const current = session.subscriptions.filter((item) => item !== uri);
  const subscriptions = Object.freeze(method === 'resources/subscribe' ? [...current, uri] : current);
  return { type: 'response', message: response, session: withSession(session, { subscriptions }) };
}

async function listen(
  runtime: Runtime,
  id: RequestId,
  params: Record<string, unknown>,
  selected: Selection,
  context: DispatchContext,
): Promise<Outcome> {
  let filter: ReturnType<typeof parseFilter>;
  try {
    filter = parseFilter(params);
  } catch (error) {
    return failed(id, selected.dialect, error as ProtocolError);
  }
  const queueSize = context.subscriptionQueue ?? DEFAULT_SUBSCRIPTION_QUEUE;
  if (runtime.openListen) {
    try {
      const subscription = await runtime.openListen({
        runtime,
        id,
        filter,
        auth: context.auth,
        connectionId: context.connectionId,
        selection: selected,
        queueSize,
      });
      return { type: 'subscription', subscription };
    } catch (error) {
      const source = errorSource(id, 'subscriptions/listen', params, context, selected);
      return failed(id, selected.dialect, asProtocolError(runtime, error, source, undefined));
    }
  }
  let feeds: Awaited<ReturnType<typeof openExtensionFeeds>>;
  try {
    feeds = await openExtensionFeeds(runtime, filter as Record<string, unknown>, selected, context.auth);
  } catch (error) {
    const source = errorSource(id, 'subscriptions/listen', params, context, selected);
    return failed(id, selected.dialect, asProtocolError(runtime, error, source, undefined));
  }
  const subscription = openListen(runtime, id, honouredFilter(runtime, filter), queueSize, feeds);
  return { type: 'subscription', subscription };
}
