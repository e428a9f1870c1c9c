const BRAND = Symbol.for('snodo.SnodoError');

/**
 * A local failure (bad option, definition error, transport problem), never a wire error.
 * Codes are strings `SNODO_ERR_*`; the brand keeps `SnodoError.is` working across two copies of core.
 */
export class SnodoError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SnodoError';
    this.code = code;
    Object.defineProperty(this, BRAND, { value: true });
  }

  static is(value: unknown): value is SnodoError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }
}

/** Thrown by `createServer` and the definition helpers when a server definition is invalid. */
export function definitionError(message: string): SnodoError {
  return new SnodoError('SNODO_ERR_INVALID_DEFINITION', message);
}

/** Thrown when an option value breaks its rule; the message names the option and the rule. */
export function optionError(message: string): SnodoError {
  return new SnodoError('SNODO_ERR_INVALID_OPTION', message);
}
