import type { AuthInfo } from '../dispatch/context.js';
import { definitionError } from '../errors/table.js';
import type { RequestId } from '../json/int.js';
import { type Logger, loggerProblem, safely } from './log.js';

/** What `onError` is told about the request whose error became -32603 or an `isError` tool result. */
export interface ErrorContext {
  readonly method: string;
  readonly requestId: RequestId;
  /** The tool (tools/call), prompt (prompts/get) or resource URI (resources/read) the request named. */
  readonly tool?: string;
  readonly prompt?: string;
  readonly resource?: string;
  /** `auth.principal` of the caller, when the transport verified one. */
  readonly principal?: string;
  readonly protocolVersion?: string;
  /** The connection or HTTP session (`DispatchContext.connectionId`), when there is one. */
  readonly sessionId?: string;
}

/** Called once for each error a handler threw that the client sees only as -32603 or an `isError` result. */
export type ErrorHook = (error: unknown, context: ErrorContext) => void;

/** The request a reported error belongs to, as the code that caught it knows it. */
export interface ErrorSource {
  readonly method: string;
  readonly requestId: RequestId;
  readonly params: Record<string, unknown> | undefined;
  readonly auth: AuthInfo | undefined;
  readonly protocolVersion: string | undefined;
  readonly connectionId: string | undefined;
}

export interface Observers {
  readonly onError?: ErrorHook | undefined;
  readonly logger?: Logger | undefined;
}

/**
 * Tells the application about an internal error: `onError`, else the logger's `error`. Neither may
 * break the request: what they throw is dropped (a hook that throws is logged when a logger exists).
 */
export function reportError(observers: Observers, error: unknown, source: ErrorSource): void {
  const { onError, logger } = observers;
  if (!onError && !logger) return;
  const context = errorContext(source);
  if (onError) {
    try {
      onError(error, context);
    } catch (hookError) {
      safely(() => logger?.error({ err: hookError, ...context }, 'onError threw'));
    }
    return;
  }
  safely(() => logger?.error({ err: error, ...context }, `${source.method} failed`));
}

function errorContext(source: ErrorSource): ErrorContext {
  const { method, requestId, params } = source;
  const context: { -readonly [K in keyof ErrorContext]: ErrorContext[K] } = { method, requestId };
  const name = typeof params?.name === 'string' ? params.name : undefined;
  const uri = typeof params?.uri === 'string' ? params.uri : undefined;
  if (method === 'tools/call' && name !== undefined) context.tool = name;
  if (method === 'prompts/get' && name !== undefined) context.prompt = name;
  if (uri !== undefined) context.resource = uri;
  if (source.auth?.principal !== undefined) context.principal = source.auth.principal;
  if (source.protocolVersion !== undefined) context.protocolVersion = source.protocolVersion;
  if (source.connectionId !== undefined) context.sessionId = source.connectionId;
  return context;
}

/** Checks `onError` and `logger` of a server definition (once, in createServer). */
export function checkObservers(onError: unknown, logger: unknown): void {
  if (onError !== undefined && typeof onError !== 'function')
    throw definitionError('onError must be a function');
  const problem = loggerProblem('logger', logger);
  if (problem !== undefined) throw definitionError(problem);
}
