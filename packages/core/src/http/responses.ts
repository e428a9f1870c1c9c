import type { RefusalReason } from '../engine/refusal.js';
import { ErrorCode, httpStatusForCode } from '../errors/codes.js';
import { type CoreErrorCode, statusFor } from '../errors/table.js';
import { encodeJson } from '../json/index.js';
import type { RequestId } from '../json/int.js';
import type { JsonRpcErrorObject, JsonRpcResponse } from '../jsonrpc/types.js';
import type { HttpJsonResponse } from './types.js';

export const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json',
});

export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
});

/** A JSON body; every body goes through `encodeJson`, so big-integer ids are echoed exactly. */
export function jsonResponse(
  status: number,
  message: unknown,
  headers: Readonly<Record<string, string>> = JSON_HEADERS,
): HttpJsonResponse {
  return { status, headers, body: encodeJson(message) };
}

/** A JSON-RPC error as a complete HTTP response. */
export function errorHttpResponse(
  status: number,
  id: RequestId | null,
  code: number,
  message: string,
  data?: unknown,
  headers?: Readonly<Record<string, string>>,
): HttpJsonResponse {
  const error: JsonRpcErrorObject = data === undefined ? { code, message } : { code, message, data };
  return jsonResponse(status, { jsonrpc: '2.0', id, error }, headers);
}

/**
 * A refusal as a complete HTTP response: its status comes from core's error table by `reason`
 * (never from the call site), its body is a JSON-RPC error (`rpcCode`, -32600 unless given).
 */
export function refusal(
  reason: CoreErrorCode,
  id: RequestId | null,
  message: string,
  options: { rpcCode?: number; data?: unknown; headers?: Readonly<Record<string, string>> } = {},
): HttpJsonResponse {
  const { rpcCode = ErrorCode.InvalidRequest, data, headers } = options;
  return errorHttpResponse(statusFor(reason), id, rpcCode, message, data, headers);
}

/**
 * The refusals HTTP answers with an HTTP error, by reason: the status of the reason's row in core's
 * error table (503) and this `Retry-After`, for load balancers that route on status. Overload does
 * so only when the host set `overloadRetryAfter`.
 */
const RETRY_AFTER: {
  readonly [R in RefusalReason]?: (overloadRetryAfter: number | undefined) => number | undefined;
} = {
  SNODO_ERR_OVERLOADED: (seconds) => seconds,
  SNODO_ERR_EXECUTOR_CLOSED: (seconds) => seconds,
  SNODO_ERR_SUBSCRIPTION_LIMIT: () => 1,
  SNODO_ERR_CONTROL_TIMEOUT: () => 1,
};

/**
 * A request the engine answered instead of its handler (`response` carries the error the engine's
 * refusal mapping gave): an HTTP error where `RETRY_AFTER` says so, otherwise a 200 carrying the
 * JSON-RPC error, the form the official clients read.
 */
export function refusedResponse(
  reason: RefusalReason,
  response: JsonRpcResponse,
  overloadRetryAfter: number | undefined,
): HttpJsonResponse {
  const retryAfter = RETRY_AFTER[reason]?.(overloadRetryAfter);
  if (retryAfter === undefined) return jsonResponse(200, response);
  return jsonResponse(statusFor(reason), response, { ...JSON_HEADERS, 'retry-after': String(retryAfter) });
}

export function emptyResponse(
  status: number,
  headers: Readonly<Record<string, string>> = {},
): HttpJsonResponse {
  return { status, headers, body: '' };
}

/**
 * The status of a JSON-RPC response. 2026-07-28 maps error codes (`httpStatusForCode`: -32601 → 404,
 * -32020/-32021/-32022 → 400, ...). The initialize-based revisions define no such mapping, and there a
 * 404 means "session gone", so every JSON-RPC answer is 200.
 */
export function statusOf(message: JsonRpcResponse, modern: boolean): number {
  if (!modern || !('error' in message)) return 200;
  return httpStatusForCode(message.error.code);
}
