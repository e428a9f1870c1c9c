/**
 * Every JSON-RPC error code Snodo emits, declared once: code, name, default message and the
 * HTTP status a Streamable HTTP response carries for it. `test/errors.test.ts` pins this table.
 *
 * -32000..-32019 are implementation-defined (MCP leaves them to servers); -32020..-32022 are the
 * 2026-07-28 codes; -32002 is the resource-not-found code of the initialize-based revisions.
 */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  ServerOverloaded: -32000,
  RequestTimeout: -32001,
  ResourceNotFoundLegacy: -32002,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;

export type ErrorCodeName = keyof typeof ErrorCode;
export type ErrorCodeValue = (typeof ErrorCode)[ErrorCodeName];

export interface ErrorCodeRow {
  readonly code: ErrorCodeValue;
  readonly name: ErrorCodeName;
  readonly message: string;
  /**
   * Status of a 2026-07-28 Streamable HTTP response whose body is this error. That transport names
   * 400, 404 (-32601) and the edge statuses only; every other error is a 200 with the JSON-RPC body,
   * the only status the official clients read an error from besides 400.
   */
  readonly httpStatus: number;
}

function row(name: ErrorCodeName, message: string, httpStatus: number): ErrorCodeRow {
  return Object.freeze({ code: ErrorCode[name], name, message, httpStatus });
}

export const ERROR_TABLE: Readonly<Record<ErrorCodeValue, ErrorCodeRow>> = Object.freeze({
  [ErrorCode.ParseError]: row('ParseError', 'Parse error', 400),
  [ErrorCode.InvalidRequest]: row('InvalidRequest', 'Invalid request', 400),
  [ErrorCode.MethodNotFound]: row('MethodNotFound', 'Method not found', 404),
  [ErrorCode.InvalidParams]: row('InvalidParams', 'Invalid params', 200),
  [ErrorCode.InternalError]: row('InternalError', 'Internal error', 200),
  [ErrorCode.ServerOverloaded]: row('ServerOverloaded', 'Server overloaded', 200),
  [ErrorCode.RequestTimeout]: row('RequestTimeout', 'Request timed out', 200),
  [ErrorCode.ResourceNotFoundLegacy]: row('ResourceNotFoundLegacy', 'Resource not found', 200),
  [ErrorCode.HeaderMismatch]: row('HeaderMismatch', 'Header mismatch', 400),
  [ErrorCode.MissingRequiredClientCapability]: row(
    'MissingRequiredClientCapability',
    'Missing required client capability',
    400,
  ),
  [ErrorCode.UnsupportedProtocolVersion]: row(
    'UnsupportedProtocolVersion',
    'Unsupported protocol version',
    400,
  ),
});

/** HTTP status for a JSON-RPC error code; unknown codes are ordinary results (200). */
export function httpStatusForCode(code: number): number {
  return (ERROR_TABLE as Record<number, ErrorCodeRow | undefined>)[code]?.httpStatus ?? 200;
}
