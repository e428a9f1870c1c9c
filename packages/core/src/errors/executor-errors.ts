import { ExecutorError } from '../executor/errors.js';
import type { JsonRpcErrorObject } from '../jsonrpc/types.js';
import { ERROR_TABLE, ErrorCode } from './codes.js';

/**
 * The JSON-RPC error a request gets when the executor gave up on it, or undefined when no answer
 * is due (SNODO_ERR_CANCELLED: the client cancelled or left). Anything that is not an
 * ExecutorError is an internal error.
 */
export function executorWireError(error: unknown): JsonRpcErrorObject | undefined {
  if (!ExecutorError.is(error)) return tableError(ErrorCode.InternalError);
  switch (error.code) {
    case 'SNODO_ERR_CANCELLED':
      return undefined;
    case 'SNODO_ERR_REQUEST_TIMEOUT':
      return tableError(ErrorCode.RequestTimeout);
    case 'SNODO_ERR_EXECUTOR_CLOSED':
      return tableError(ErrorCode.ServerOverloaded, 'the executor is closed');
    case 'SNODO_ERR_OVERLOADED':
      return tableError(ErrorCode.ServerOverloaded);
  }
}

function tableError(code: keyof typeof ERROR_TABLE, detail?: string): JsonRpcErrorObject {
  const { message } = ERROR_TABLE[code];
  return { code, message: detail === undefined ? message : `${message}: ${detail}` };
}
