import type { Dialect } from '../dialects/dialect.js';
import { dialectFor } from '../dialects/registry.js';
import { ProtocolError } from '../errors/protocol-error.js';
import type { RequestId } from '../json/int.js';
import { classifyMessage, type DecodedSingle } from '../jsonrpc/decode.js';
import {
  errorResponse,
  type JsonRpcNotification,
  type JsonRpcResponse,
  notification,
  resultResponse,
} from '../jsonrpc/types.js';
import { OPERATIONS } from '../ops/table.js';
import { initializeResult } from '../ops/discover.js';
import { LOG_LEVELS, type LogLevel } from '../protocol/types.js';
import type { Runtime } from '../router/runtime.js';
import type { AuthInfo, HandlerContext } from './context.js';
import type { OperationCall } from './operation.js';
import type { Outcome } from './outcome.js';
import { type Selection, selectRevision } from './select.js';
import { createSession, type Session, withSession } from './session.js';
import { MessageStream } from './stream.js';

/** What the transport knows about a message besides its body. */
export interface DispatchContext {
  /** Aborts the handler (client cancel, disconnect, executor deadline). */
  signal?: AbortSignal;
  /** The initialize-based session this message belongs to, if any. */
  session?: Session;
  /** The transport's MCP-Protocol-Version header. */
  headerVersion?: string;
  /** Verified identity from the host (never from unverified headers). */
  auth?: AuthInfo;
}

const NEVER_ABORTED = new AbortController().signal;

/**
 * The single entry of every transport: runs one decoded (or raw, already-parsed) JSON-RPC message
 * against the runtime and returns a protocol-neutral outcome. Never throws for bad input, and
 * performs no I/O: notifications travel in the outcome.
 */
export async function dispatch(runtime: Runtime, message: unknown, context: DispatchContext = {}): Promise<Outcome> {
  const decoded = isDecoded(message) ? message : classifyMessage(message);
  switch (decoded.kind) {
    case 'invalid':
      return { type: 'response', message: errorResponse(decoded.id, decoded.error) };
    case 'response':
      return { type: 'none' };
    case 'notification':
      return dispatchNotification(decoded.method, decoded.params, context);
    case 'request':
      return dispatchRequest(runtime, decoded.id, decoded.method, decoded.params, context);
  }
}

function isDecoded(message: unknown): message is DecodedSingle {
  return (
    typeof message === 'object' &&
    message !== null &&
    DECODED_KINDS.has((message as { kind?: unknown }).kind as string) &&
    !('jsonrpc' in message)
  );
}
const DECODED_KINDS = new Set(['request', 'notification', 'response', 'invalid']);

function dispatchNotification(
  method: string,
  params: Record<string, unknown> | undefined,
  context: DispatchContext,
): Outcome {
  const { session } = context;
  if (method === 'notifications/initialized') {
    return session && !session.initialized ? { type: 'none', session: withSession(session, { initialized: true }) } : { type: 'none' };
  }
  if (method === 'notifications/cancelled') {
    const requestId = params?.requestId;
    if (typeof requestId === 'string' || typeof requestId === 'number' || (typeof requestId === 'object' && requestId !== null)) {
      return { type: 'none', cancel: requestId as RequestId };
    }
  }
  return { type: 'none' };
}

async function dispatchRequest(
  runtime: Runtime,
  id: RequestId,
  method: string,
  params: Record<string, unknown> | undefined,
  context: DispatchContext,
): Promise<Outcome> {
  const selected = selectRevision(runtime, {
    method,
    params,
    session: context.session,
    headerVersion: context.headerVersion,
  });
  if (ProtocolError.is(selected)) {
    const dialect = context.session ? dialectFor(context.session.protocolVersion) : undefined;
    return { type: 'response', message: errorResponse(id, dialect ? dialect.shapeError(selected) : errorObjectOf(selected)) };
  }
  const { dialect } = selected;
  const known = dialect.classify(method, 'request');
  if (known !== 'ok') {
    const error =
      known === 'invalid'
        ? ProtocolError.invalidRequest(`"${method}" is a notification, not a request`)
        : ProtocolError.methodNotFound(method, { protocolVersion: dialect.version });
    return { type: 'response', message: errorResponse(id, dialect.shapeError(error)) };
  }
  if (method === 'initialize') return initialize(runtime, id, params ?? {}, selected, context);
  if (method === 'logging/setLevel') return setLevel(runtime, id, params, selected, context);

  const operation = OPERATIONS.get(method);
  if (!operation) {
    return {
      type: 'response',
      message: errorResponse(id, dialect.shapeError(ProtocolError.methodNotFound(method))),
    };
  }

  const meta = params?._meta as Record<string, unknown> | undefined;
  const progressToken = meta?.progressToken as RequestId | undefined;
  const logThreshold = runtime.capabilities.logging ? selected.logLevel : undefined;
  const streaming = progressToken !== undefined || logThreshold !== undefined;
  const stream = streaming ? new MessageStream() : undefined;
  const handlerContext = createHandlerContext(id, method, selected, context, stream, progressToken, logThreshold);
  const call: OperationCall = {
    runtime,
    params: params ?? {},
    context: handlerContext,
    selection: selected,
    auth: context.auth,
  };
  const run = runOperation(operation, call, id, method, dialect, runtime);
  if (!stream) return { type: 'response', message: await run };
  run.then(
    (response) => stream.end(response),
    () => stream.abandon(),
  );
  return { type: 'stream', messages: stream };
}

async function runOperation(
  operation: (call: OperationCall) => Record<string, unknown> | Promise<Record<string, unknown>>,
  call: OperationCall,
  id: RequestId,
  method: string,
  dialect: Dialect,
  runtime: Runtime,
): Promise<JsonRpcResponse> {
  try {
    const result = await operation(call);
    return resultResponse(id, dialect.shapeResult(method, result, runtime.shaping));
  } catch (error) {
    return errorResponse(id, dialect.shapeError(toProtocolError(error)));
  }
}

function toProtocolError(error: unknown): ProtocolError {
  if (ProtocolError.is(error)) return error;
  return ProtocolError.internal();
}

function errorObjectOf(error: ProtocolError) {
  return error.data === undefined ? { code: error.code, message: error.message } : { code: error.code, message: error.message, data: error.data };
}

function initialize(
  runtime: Runtime,
  id: RequestId,
  params: Record<string, unknown>,
  selected: Selection,
  context: DispatchContext,
): Outcome {
  const { dialect } = selected;
  const session = createSession(dialect.version, selected.clientCapabilities, selected.clientInfo);
  const call: OperationCall = {
    runtime,
    params,
    context: createHandlerContext(id, 'initialize', selected, context, undefined, undefined, undefined),
    selection: selected,
    auth: context.auth,
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
    const error = ProtocolError.invalidParams(`level must be one of ${LOG_LEVELS.join(', ')}`);
    return { type: 'response', message: errorResponse(id, selected.dialect.shapeError(error)) };
  }
  const response = resultResponse(id, selected.dialect.shapeResult('logging/setLevel', {}, runtime.shaping));
  const session = context.session ? withSession(context.session, { logLevel: level as LogLevel }) : undefined;
  return session ? { type: 'response', message: response, session } : { type: 'response', message: response };
}

function createHandlerContext(
  requestId: RequestId,
  method: string,
  selected: Selection,
  context: DispatchContext,
  stream: MessageStream | undefined,
  progressToken: RequestId | undefined,
  logThreshold: LogLevel | undefined,
): HandlerContext {
  let lastProgress = Number.NEGATIVE_INFINITY;
  const { dialect } = selected;
  const send = (message: JsonRpcNotification) => {
    stream?.push(message);
  };
  return {
    signal: context.signal ?? NEVER_ABORTED,
    requestId,
    method,
    protocolVersion: dialect.version,
    clientCapabilities: selected.clientCapabilities,
    clientInfo: selected.clientInfo,
    auth: context.auth,
    canReportProgress: progressToken !== undefined,
    progress(progress, total, message) {
      if (progressToken === undefined) return;
      if (typeof progress !== 'number' || !(progress > lastProgress)) {
        throw new RangeError(`progress must strictly increase: ${progress} after ${lastProgress}`);
      }
      lastProgress = progress;
      const params: Record<string, unknown> = { progressToken, progress };
      if (total !== undefined) params.total = total;
      if (message !== undefined) params.message = message;
      send(notification('notifications/progress', params));
    },
    log(level, data, logger) {
      if (logThreshold === undefined || LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(logThreshold)) return;
      const params: Record<string, unknown> = { level, data };
      if (logger !== undefined) params.logger = logger;
      send(notification('notifications/message', params));
    },
  };
}

