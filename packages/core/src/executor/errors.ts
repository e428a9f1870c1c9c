/**
 * Every executor failure code, declared once: code → message. A test pins this table, so adding a
 * code means adding a row here and a line to that test. Mapping a code to a JSON-RPC error or an
 * HTTP status is the transports' business (see core's errors/ table), not the executor's.
 */
export const EXECUTOR_ERROR_MESSAGES = Object.freeze({
  SNODO_ERR_OVERLOADED: 'Executor is at capacity: every worker is busy and the queue is full',
  SNODO_ERR_REQUEST_TIMEOUT: 'Request did not finish before its deadline',
  SNODO_ERR_CANCELLED: 'Request was cancelled',
  SNODO_ERR_EXECUTOR_CLOSED: 'Executor is closed',
} as const);

export type ExecutorErrorCode = keyof typeof EXECUTOR_ERROR_MESSAGES;

// Symbol.for, not Symbol(): two loaded copies of core (a proxy and a client, say) share the brand,
// so `ExecutorError.is` and `instanceof` recognise each other's errors.
const kExecutorError = Symbol.for('snodo.ExecutorError');

export interface ExecutorErrorOptions {
  cause?: unknown;
}

export class ExecutorError extends Error {
  override readonly name = 'ExecutorError';
  readonly code: ExecutorErrorCode;

  constructor(code: ExecutorErrorCode, options?: ExecutorErrorOptions) {
    // `cause` is set only when given, so `'cause' in err` tells a reasonless cancel apart.
    super(
      EXECUTOR_ERROR_MESSAGES[code],
      options !== undefined && 'cause' in options ? { cause: options.cause } : undefined,
    );
    this.code = code;
  }

  get [kExecutorError](): true {
    return true;
  }

  static is(value: unknown): value is ExecutorError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as { [kExecutorError]?: unknown })[kExecutorError] === true
    );
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return ExecutorError.is(value);
  }
}
