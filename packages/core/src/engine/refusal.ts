import { ERROR_TABLE, ErrorCode, type ErrorCodeValue } from '../errors/codes.js';
import { SnodoError } from '../errors/snodo-error.js';
import { ExecutorError, type ExecutorErrorCode } from '../executor/errors.js';
import type { JsonRpcErrorObject } from '../jsonrpc/types.js';

/**
 * Why the engine answers a request instead of its handler: an executor refusal (full, closed, the
 * deadline, a cancel; no subscription slot left), the control seam's bounded wait, or anything
 * else that made the run fail (a bug: SNODO_ERR_INTERNAL). Each is a row of core's error table (errors/table.ts), which carries
 * the HTTP status of those an HTTP host may answer with a status.
 */
export type RefusalReason =
  | ExecutorErrorCode
  | 'SNODO_ERR_SUBSCRIPTION_LIMIT'
  | 'SNODO_ERR_CONTROL_TIMEOUT'
  | 'SNODO_ERR_INTERNAL';

export function refusalReason(error: unknown): RefusalReason {
  if (ExecutorError.is(error)) return error.code;
  if (SnodoError.is(error) && error.code === 'SNODO_ERR_CONTROL_TIMEOUT') return error.code;
  return 'SNODO_ERR_INTERNAL';
}

/**
 * The JSON-RPC error of each reason, the one mapping every transport answers with; undefined: no
 * answer is due (the client cancelled or left).
 */
const WIRE: { readonly [R in RefusalReason]: readonly [ErrorCodeValue, string] | undefined } = {
  SNODO_ERR_CANCELLED: undefined,
  SNODO_ERR_REQUEST_TIMEOUT: [ErrorCode.RequestTimeout, ERROR_TABLE[ErrorCode.RequestTimeout].message],
  SNODO_ERR_OVERLOADED: [ErrorCode.ServerOverloaded, ERROR_TABLE[ErrorCode.ServerOverloaded].message],
  SNODO_ERR_EXECUTOR_CLOSED: [
    ErrorCode.ServerOverloaded,
    `${ERROR_TABLE[ErrorCode.ServerOverloaded].message}: the executor is closed`,
  ],
  SNODO_ERR_SUBSCRIPTION_LIMIT: [
    ErrorCode.ServerOverloaded,
    `${ERROR_TABLE[ErrorCode.ServerOverloaded].message}: too many open subscriptions`,
  ],
  // Nothing was acknowledged, and the client may try again (another instance holds the session).
  SNODO_ERR_CONTROL_TIMEOUT: [
    ErrorCode.InternalError,
    'The instance holding this session did not answer: try again',
  ],
  SNODO_ERR_INTERNAL: [ErrorCode.InternalError, ERROR_TABLE[ErrorCode.InternalError].message],
};

/** The JSON-RPC error a request gets for `reason`, or undefined when no answer is due. A new object each time. */
export function refusalWireError(reason: Exclude<RefusalReason, 'SNODO_ERR_CANCELLED'>): JsonRpcErrorObject;
export function refusalWireError(reason: RefusalReason): JsonRpcErrorObject | undefined;
export function refusalWireError(reason: RefusalReason): JsonRpcErrorObject | undefined {
  const row = WIRE[reason];
  return row === undefined ? undefined : { code: row[0], message: row[1] };
}
