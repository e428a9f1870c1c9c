import { branded, brandedInstance, isBranded } from './brand.js';
import { ErrorCode } from './codes.js';

const BRAND = Symbol.for('snodo.ProtocolError');

/**
 * Why a protocol error happened, when a dialect must shape it differently per revision
 * (resource not found is -32602 in 2026-07-28 and -32002 before it).
 */
export type ProtocolErrorKind = 'resource-not-found';

/**
 * A JSON-RPC error that goes on the wire: numeric code, message, optional data. Local failures
 * (options, transports) are `SnodoError`s with string codes instead. Branded like them: `is` and
 * `instanceof` hold for one made by another loaded copy of core.
 */
export class ProtocolError extends Error {
  readonly code: number;
  readonly data: unknown;
  readonly kind: ProtocolErrorKind | undefined;

  constructor(code: number, message: string, data?: unknown, kind?: ProtocolErrorKind) {
    super(message);
    this.name = 'ProtocolError';
    this.code = code;
    this.data = data;
    this.kind = kind;
  }

  static is(value: unknown): value is ProtocolError {
    return isBranded(value, BRAND);
  }

  /** `instanceof` reads the brand: a subclass checks its own, an unbranded subclass its prototype chain. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class `instanceof` asks about (a subclass too)
    return brandedInstance(this, value);
  }

  static {
    branded(ProtocolError, BRAND);
  }

  static invalidParams(message: string, data?: unknown): ProtocolError {
    return new ProtocolError(ErrorCode.InvalidParams, message, data);
  }

  static invalidRequest(message: string, data?: unknown): ProtocolError {
    return new ProtocolError(ErrorCode.InvalidRequest, message, data);
  }

  static methodNotFound(method: string, data?: unknown): ProtocolError {
    return new ProtocolError(ErrorCode.MethodNotFound, `Method not found: ${method}`, data);
  }

  static resourceNotFound(uri: string): ProtocolError {
    return new ProtocolError(
      ErrorCode.InvalidParams,
      `Resource not found: ${uri}`,
      { uri },
      'resource-not-found',
    );
  }

  static missingCapability(requiredCapabilities: Record<string, unknown>): ProtocolError {
    return new ProtocolError(
      ErrorCode.MissingRequiredClientCapability,
      `Missing required client capability: ${Object.keys(requiredCapabilities).join(', ')}`,
      { requiredCapabilities },
    );
  }

  static unsupportedVersion(requested: string, supported: readonly string[]): ProtocolError {
    return new ProtocolError(ErrorCode.UnsupportedProtocolVersion, 'Unsupported protocol version', {
      supported: [...supported],
      requested,
    });
  }

  static internal(message = 'Internal error'): ProtocolError {
    return new ProtocolError(ErrorCode.InternalError, message);
  }
}
