import { defineErrors, errorFromRow } from './define.js';
import { SnodoError } from './snodo-error.js';

/**
 * Every local error code of core, one row each: code, meaning, and the HTTP status for those that
 * are an HTTP answer. Every HTTP host takes a refusal's status from here by its reason
 * (`refusal()` in http/responses.ts), never from the call site. Wire errors (numeric JSON-RPC
 * codes) are `ERROR_TABLE` in codes.ts. `test/errors.test.ts` pins this table; the README lists it.
 */
export const CORE_ERRORS = defineErrors({
  SNODO_ERR_INVALID_OPTION: ['Invalid option'],
  SNODO_ERR_INVALID_DEFINITION: ['A server definition is invalid'],
  SNODO_ERR_UNSUPPORTED_TEMPLATE: ['A URI template is outside the supported RFC 6570 subset'],
  SNODO_ERR_AUTH_CONFIG: ['The auth options leave no way to check a token'],
  SNODO_ERR_AUTH_METADATA: ['The issuer has no usable authorization server metadata'],
  SNODO_ERR_AUTH_JWKS: ['The JWKS cannot be fetched or is empty'],
  // The executor's refusals; 503 where an HTTP host answers them with a status (`overloadRetryAfter`).
  SNODO_ERR_OVERLOADED: ['Executor is at capacity: every worker is busy and the queue is full', 503],
  SNODO_ERR_EXECUTOR_CLOSED: ['Executor is closed', 503],
  SNODO_ERR_REQUEST_TIMEOUT: ['Request did not finish before its deadline'],
  SNODO_ERR_CANCELLED: ['Request was cancelled'],
  // HTTP refusals, before or instead of a JSON-RPC answer.
  SNODO_ERR_NOT_FOUND: ['The path is not the MCP endpoint', 404],
  SNODO_ERR_REPEATED_FIELD: ['Host, Content-Length or Content-Type came more than once', 400],
  SNODO_ERR_HOST_FORBIDDEN: ['Host is not allowed', 403],
  SNODO_ERR_ORIGIN_FORBIDDEN: ['Origin is not allowed', 403],
  SNODO_ERR_METHOD_NOT_ALLOWED: ['The HTTP method is not allowed here', 405],
  SNODO_ERR_NOT_ACCEPTABLE: ['Accept does not list the media types of the answer', 406],
  SNODO_ERR_UNSUPPORTED_MEDIA_TYPE: ['Content-Type must be application/json', 415],
  SNODO_ERR_BODY_TOO_LARGE: ['Request body exceeds maxBodyBytes', 413],
  SNODO_ERR_BODY_TIMEOUT: ['Request body not complete within bodyTimeout', 408],
  SNODO_ERR_BODY_ABORTED: ['Request body aborted by the client', 400],
  SNODO_ERR_HEAD_TOO_LARGE: ['Request head exceeds maxHeaderBytes', 431],
  SNODO_ERR_MALFORMED_HEAD: ['The request head is not valid HTTP/1.1', 400],
  SNODO_ERR_MALFORMED_MESSAGE: ['The body is not a valid JSON-RPC message', 400],
  SNODO_ERR_MESSAGE_REFUSED: ['The message is not accepted on this revision (a batch, or a response)', 400],
  SNODO_ERR_BATCH_TOO_LARGE: ['A batch holds more than maxBatchItems items', 400],
  SNODO_ERR_HEADER_MISMATCH: ['A 2026-07-28 header is missing, or differs from the body', 400],
  SNODO_ERR_REVISION_REFUSED: ['The request names no revision served here, or lacks what it needs', 400],
  SNODO_ERR_NO_INITIALIZE: ['initialize does not exist on 2026-07-28', 404],
  SNODO_ERR_SESSION_REQUIRED: ['Mcp-Session-Id is required: initialize first', 400],
  SNODO_ERR_SESSION_NOT_FOUND: ["The session is unknown, expired, or another principal's", 404],
  // The control seam (engine/control.ts): a cancel or an answer reached no request waiting for it,
  // or the instance holding the session did not answer a channel's bounded wait.
  SNODO_ERR_NOT_DELIVERED: ['A cancel or an answer reached no request waiting for it', 400],
  SNODO_ERR_CONTROL_TIMEOUT: ['The instance holding the session did not answer within controlTimeout', 503],
  SNODO_ERR_SUBSCRIPTION_LIMIT: ['Open subscription streams are at maxSubscriptions', 503],
  SNODO_ERR_UNAVAILABLE: ['The server is starting or closing', 503],
  SNODO_ERR_INTERNAL: ['The host failed while answering', 500],
});

export type CoreErrorCode = keyof typeof CORE_ERRORS;

/** The HTTP status of a core refusal, by its reason; 500 for a code that is not an HTTP answer. */
export function statusFor(code: CoreErrorCode): number {
  return CORE_ERRORS[code].status ?? 500;
}

/** A `SnodoError` with core's row for `code` and `detail` after its message. */
export function coreError(code: CoreErrorCode, detail?: string, options?: { cause?: unknown }): SnodoError {
  return errorFromRow(CORE_ERRORS[code], detail, options);
}

/**
 * Thrown by `createServer` and the definition helpers when a server definition is invalid; the
 * message is the rule broken alone (it names the definition and the field).
 */
export function definitionError(message: string): SnodoError {
  return new SnodoError(CORE_ERRORS.SNODO_ERR_INVALID_DEFINITION.code, message);
}

/** Thrown when an option value breaks its rule; the message names the option and the rule. */
export function optionError(message: string): SnodoError {
  return coreError('SNODO_ERR_INVALID_OPTION', message);
}
