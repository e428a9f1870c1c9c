import { defineErrors, SnodoError } from '@snodo/core';
import { branded, optionError as coreOptionError, isBranded, rowMessage } from '@snodo/core/internal';

/**
 * Every local error code of the client, declared once with what it means. Errors the server sent
 * are core's `ProtocolError` (numeric JSON-RPC code, message, data); these are never on the wire.
 * A bad option is core's `SNODO_ERR_INVALID_OPTION`, as in every package. `test/units.test.ts` pins
 * this table and the README lists every code.
 */
export const CLIENT_ERRORS = defineErrors({
  SNODO_ERR_CONNECTION_REFUSED: ['The server could not be reached'],
  SNODO_ERR_CONNECTION_CLOSED: ['The connection closed before the response arrived'],
  SNODO_ERR_HTTP_STATUS: ['The server answered an HTTP status without a JSON-RPC body'],
  SNODO_ERR_UNAUTHORIZED: ['OAuth authorization failed (metadata, registration, the flow or the token)'],
  SNODO_ERR_SESSION_EXPIRED: ['The server no longer knows the session (HTTP 404): connect again'],
  SNODO_ERR_INVALID_MESSAGE: ['The server sent something that is not a JSON-RPC response'],
  SNODO_ERR_MESSAGE_TOO_LARGE: [
    'The answer is larger than the client accepts (maxMessageBytes, maxLineBytes)',
  ],
  SNODO_ERR_SPAWN: ['The stdio server could not be started'],
  SNODO_ERR_TIMEOUT: ['The call did not complete within its timeout'],
  SNODO_ERR_ABORTED: ["The call was aborted by the caller's signal"],
  SNODO_ERR_CLOSED: ['The client is closed'],
  SNODO_ERR_NEGOTIATION: ['No protocol revision both sides speak'],
  SNODO_ERR_INVALID_RESULT: ['The result is not valid for the method (e.g. an unknown resultType)'],
  SNODO_ERR_INPUT_ROUNDS: ['The server asked for input more rounds than allowed'],
  SNODO_ERR_NO_INPUT_HANDLER: ['The server asked for input the client has no handler for'],
  SNODO_ERR_PAGE_LIMIT: ['A list has more pages than allowed'],
  SNODO_ERR_SUBSCRIPTION_OVERFLOW: ['A subscription fell too far behind its notifications'],
  SNODO_ERR_NOT_SUPPORTED: ['The negotiated revision or transport does not offer this'],
  SNODO_ERR_TASK_CANCELLED: ['The task the call became was cancelled (tasks/cancel, by any client)'],
});

export type ClientErrorCode = keyof typeof CLIENT_ERRORS;

const TRANSPORT_BRAND = Symbol.for('snodo.client.TransportError');
const TIMEOUT_BRAND = Symbol.for('snodo.client.TimeoutError');

/** Details of a transport failure, when known. */
export interface TransportErrorDetails {
  /** HTTP status of the response (SNODO_ERR_HTTP_STATUS). */
  status?: number;
  /** The size limit the answer exceeded (SNODO_ERR_MESSAGE_TOO_LARGE). */
  limit?: number;
  /** The start of the response body or of the offending output. */
  body?: string;
  /** stdio: the server's exit code or signal, and the end of its stderr. */
  exitCode?: number | null;
  signal?: string | null;
  stderr?: string;
  cause?: unknown;
}

/**
 * The transport failed: the server could not be reached, the connection closed mid-call, an HTTP
 * status came without a JSON-RPC body, the output was not JSON-RPC, or the answer was larger than
 * the client accepts (that one fails its call alone: the connection stays usable). Distinct from `ProtocolError`
 * (the server answered with a JSON-RPC error). `TransportError.is` works across copies of the package.
 */
export class TransportError extends SnodoError {
  override readonly status: number | undefined;
  readonly limit: number | undefined;
  readonly body: string | undefined;
  readonly exitCode: number | null | undefined;
  readonly signal: string | null | undefined;
  readonly stderr: string | undefined;

  constructor(code: ClientErrorCode, message: string, details: TransportErrorDetails = {}) {
    super(code, message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'TransportError';
    this.status = details.status;
    this.limit = details.limit;
    this.body = details.body;
    this.exitCode = details.exitCode;
    this.signal = details.signal;
    this.stderr = details.stderr;
  }

  static override is(value: unknown): value is TransportError {
    return isBranded(value, TRANSPORT_BRAND);
  }

  static {
    branded(TransportError, TRANSPORT_BRAND);
  }
}

/** A call passed its deadline (`timeout`, or the stdio probe's). Code SNODO_ERR_TIMEOUT. */
export class TimeoutError extends SnodoError {
  readonly timeout: number;

  constructor(message: string, timeout: number) {
    super(CLIENT_ERRORS.SNODO_ERR_TIMEOUT.code, message);
    this.name = 'TimeoutError';
    this.timeout = timeout;
  }

  static override is(value: unknown): value is TimeoutError {
    return isBranded(value, TIMEOUT_BRAND);
  }

  static {
    branded(TimeoutError, TIMEOUT_BRAND);
  }
}

/** A local client error (not transport, not timeout) with its table message and a detail. */
export function clientError(code: ClientErrorCode, detail: string, cause?: unknown): SnodoError {
  return new SnodoError(
    code,
    rowMessage(CLIENT_ERRORS[code], detail),
    cause === undefined ? undefined : { cause },
  );
}

export function transportError(
  code: ClientErrorCode,
  detail: string,
  details?: TransportErrorDetails,
): TransportError {
  return new TransportError(code, rowMessage(CLIENT_ERRORS[code], detail), details);
}

/** Core's `SNODO_ERR_INVALID_OPTION`, the one code of a bad option in every package. */
export function optionError(detail: string): SnodoError {
  return coreOptionError(detail);
}
