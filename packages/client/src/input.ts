import { type JsonRpcErrorObject, type JsonRpcRequest, ProtocolError, type RequestId } from '@snodo/core';
import { clientError } from './errors.js';
import type { Settings } from './options.js';
import type { InputContext } from './types.js';

const HANDLERS = {
  'elicitation/create': 'onElicit',
  'sampling/createMessage': 'onSample',
  'roots/list': 'onRoots',
} as const;

type InputMethod = keyof typeof HANDLERS;

function handlerFor(settings: Settings, method: string) {
  const name = (HANDLERS as Record<string, (typeof HANDLERS)[InputMethod] | undefined>)[method];
  return name === undefined ? undefined : settings[name];
}

/** A result object for the wire: a plain object, without `resultType` (input responses carry none). */
function plain(method: string, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw clientError(
      'SNODO_ERR_INVALID_RESULT',
      `the ${method} handler returned ${typeof value}, not an object`,
    );
  }
  const { resultType: _, ...rest } = value as Record<string, unknown>;
  return rest;
}

/**
 * Answers the `inputRequests` of an `input_required` result (2026-07-28) or of a task waiting for
 * input, all at once, keyed as asked. An input request the client has no handler for fails the call (the server should not
 * have asked: the capability was not declared).
 */
export async function fulfilInputRequests(
  requests: unknown,
  settings: Settings,
  signal: AbortSignal | undefined,
  via: 'mrtr' | 'task' = 'mrtr',
): Promise<Record<string, Record<string, unknown>>> {
  if (typeof requests !== 'object' || requests === null || Array.isArray(requests)) {
    throw clientError('SNODO_ERR_INVALID_RESULT', 'inputRequests is not an object');
  }
  const context: InputContext = { signal: signal ?? new AbortController().signal, via };
  const entries = await Promise.all(
    Object.entries(requests as Record<string, unknown>).map(async ([key, request]) => {
      const { method, params } = (request ?? {}) as { method?: unknown; params?: unknown };
      if (typeof method !== 'string' || !(method in HANDLERS)) {
        throw clientError(
          'SNODO_ERR_INVALID_RESULT',
          `input request ${JSON.stringify(key)} has an unknown method`,
        );
      }
      const handler = handlerFor(settings, method);
      if (!handler) {
        throw clientError(
          'SNODO_ERR_NO_INPUT_HANDLER',
          `the server asked for ${method} (input ${JSON.stringify(key)})`,
        );
      }
      const answer = await handler((params ?? {}) as Record<string, unknown>, context);
      return [key, plain(method, answer)] as const;
    }),
  );
  return Object.fromEntries(entries);
}

/** The answer to a server-initiated request (initialize-based revisions): `{ result }` or `{ error }`. */
export async function serverRequestAnswer(
  request: JsonRpcRequest,
  settings: Settings,
  signal: AbortSignal,
  relatedRequestId: RequestId | undefined,
): Promise<{ result: Record<string, unknown> } | { error: JsonRpcErrorObject }> {
  if (request.method === 'ping') return { result: {} };
  const handler = handlerFor(settings, request.method);
  if (!handler) return { error: { code: -32601, message: `Method not found: ${request.method}` } };
  try {
    const answer = await handler((request.params ?? {}) as Record<string, unknown>, {
      signal,
      via: 'request',
      ...(relatedRequestId === undefined ? {} : { relatedRequestId }),
    });
    return { result: plain(request.method, answer) };
  } catch (error) {
    if (ProtocolError.is(error)) {
      return {
        error:
          error.data === undefined
            ? { code: error.code, message: error.message }
            : { code: error.code, message: error.message, data: error.data },
      };
    }
    return { error: { code: -32603, message: error instanceof Error ? error.message : String(error) } };
  }
}
