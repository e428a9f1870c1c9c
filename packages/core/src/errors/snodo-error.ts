import { branded, brandedInstance, isBranded } from './brand.js';

const BRAND = Symbol.for('snodo.SnodoError');

export interface SnodoErrorOptions {
  cause?: unknown;
  /** HTTP status of the answer this failure stands for, where it has one (its table row's). */
  status?: number;
}

/**
 * The root of every local failure (bad option, definition error, executor refusal, transport
 * problem), never a wire error (`ProtocolError`). Codes are strings `SNODO_ERR_*`, each declared
 * once as a row of its package's table (`defineErrors`). The brand (`Symbol.for`) makes `is` and
 * `instanceof` hold across two loaded copies of core, for this class and each branded subclass.
 */
export class SnodoError extends Error {
  readonly code: string;
  /** HTTP status, for failures that are an HTTP answer (`SNODO_ERR_BODY_TOO_LARGE`: 413, …). */
  readonly status: number | undefined;

  constructor(code: string, message: string, options?: SnodoErrorOptions) {
    super(message, options !== undefined && 'cause' in options ? { cause: options.cause } : undefined);
    this.name = 'SnodoError';
    this.code = code;
    this.status = options?.status;
  }

  /** Fastify's error handling reads `statusCode`. */
  get statusCode(): number | undefined {
    return this.status;
  }

  static is(value: unknown): value is SnodoError {
    return isBranded(value, BRAND);
  }

  /** `instanceof` reads the brand: a subclass checks its own, an unbranded subclass its prototype chain. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class `instanceof` asks about (a subclass too)
    return brandedInstance(this, value);
  }

  static {
    branded(SnodoError, BRAND);
  }
}
