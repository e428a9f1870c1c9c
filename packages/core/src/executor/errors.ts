import { branded, isBranded } from '../errors/brand.js';
import { rowMessage } from '../errors/define.js';
import { SnodoError } from '../errors/snodo-error.js';
import { CORE_ERRORS } from '../errors/table.js';

/**
 * The executor's failure codes; their rows (message, status) are in core's one table
 * (errors/table.ts). Mapping a code to a JSON-RPC error is the transports' business, not the
 * executor's.
 */
export type ExecutorErrorCode =
  | 'SNODO_ERR_OVERLOADED'
  | 'SNODO_ERR_REQUEST_TIMEOUT'
  | 'SNODO_ERR_CANCELLED'
  | 'SNODO_ERR_EXECUTOR_CLOSED';

// Symbol.for, not Symbol(): two loaded copies of core (a proxy and a client, say) share the brand,
// so `ExecutorError.is` and `instanceof` recognise each other's errors.
const kExecutorError = Symbol.for('snodo.ExecutorError');

export interface ExecutorErrorOptions {
  cause?: unknown;
}

export class ExecutorError extends SnodoError {
  declare readonly code: ExecutorErrorCode;

  constructor(code: ExecutorErrorCode, options?: ExecutorErrorOptions) {
    // `cause` is set only when given, so `'cause' in err` tells a reasonless cancel apart.
    const row = CORE_ERRORS[code];
    super(code, rowMessage(row), {
      ...(row.status === undefined ? {} : { status: row.status }),
      ...(options !== undefined && 'cause' in options ? { cause: options.cause } : {}),
    });
    this.name = 'ExecutorError';
  }

  static override is(value: unknown): value is ExecutorError {
    return isBranded(value, kExecutorError);
  }

  static {
    branded(ExecutorError, kExecutorError);
  }
}
