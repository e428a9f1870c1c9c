import { encodeJson } from '../json/encode.js';
import type { RequestId } from '../json/int.js';

export type { RequestId };

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcResultResponse {
  jsonrpc: '2.0';
  id: RequestId;
  result: Record<string, unknown>;
}

export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

export function resultResponse(id: RequestId, result: Record<string, unknown>): JsonRpcResultResponse {
  return { jsonrpc: '2.0', id, result };
}

export function errorResponse(id: RequestId | null, error: JsonRpcErrorObject): JsonRpcErrorResponse {
  return { jsonrpc: '2.0', id, error };
}

export function notification(method: string, params?: Record<string, unknown>): JsonRpcNotification {
  return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
}

export function isErrorResponse(message: JsonRpcResponse): message is JsonRpcErrorResponse {
  return 'error' in message;
}

/** Whether a message is a response (a result or an error), the one predicate every transport uses. */
export function isResponse(message: JsonRpcMessage): message is JsonRpcResponse {
  return !('method' in message) && ('result' in message || 'error' in message);
}

/**
 * A request id as a map key, the one scheme of every registry (running calls, pending requests,
 * cancellation): its JSON text, so `1` and `"1"` differ and big integers keep their digits.
 */
export function requestKey(id: RequestId): string {
  return encodeJson(id);
}
