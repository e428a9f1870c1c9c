/**
 * An integer literal kept byte for byte because it does not fit a JS number exactly
 * (|n| > 2^53 - 1). Ids and progress tokens are echoed back to the peer, so they must not
 * be rounded.
 *
 * The brand is a `Symbol.for` key so `JsonInt.is(v)` and `v instanceof JsonInt` hold for
 * instances made by another copy of core loaded in the same realm.
 */

const kJsonInt = Symbol.for('snodo.JsonInt');

/**
 * Global slot (shared by every copy of core) where `encodeJson` installs a hook while it runs
 * `JSON.stringify`. `toJSON` hands its literal to the hook, which returns a placeholder that
 * `encodeJson` then swaps for the raw literal. See encode.ts.
 */
export const kEncodeHook: unique symbol = Symbol.for('snodo.JsonInt.encodeHook') as any;

export type EncodeHook = (literal: string) => string;

// JSON integer grammar: optional minus, then 0 or a digit run without a leading zero.
const INTEGER_LITERAL = /^-?(?:0|[1-9][0-9]*)$/;

export function isIntegerLiteral(text: string): boolean {
  return INTEGER_LITERAL.test(text);
}

export class JsonInt {
  /** @throws TypeError when `literal` is not a JSON integer literal (it is written out raw). */
  constructor(readonly literal: string) {
    if (typeof literal !== 'string' || !INTEGER_LITERAL.test(literal)) {
      throw new TypeError(`JsonInt literal must be a JSON integer literal, got ${JSON.stringify(literal)}`);
    }
  }

  static is(value: unknown): value is JsonInt {
    return typeof value === 'object' && value !== null && (value as any)[kJsonInt] === true;
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return JsonInt.is(value);
  }

  toString(): string {
    return this.literal;
  }

  toBigInt(): bigint {
    return BigInt(this.literal);
  }

  /**
   * Inside `encodeJson` this yields a placeholder that becomes the raw literal. Plain
   * `JSON.stringify` cannot write a raw number in every runtime, so outside `encodeJson` the
   * literal is written as a string: the digits survive, the type does not.
   */
  toJSON(): string {
    const hook = (globalThis as any)[kEncodeHook] as EncodeHook | undefined;
    return hook === undefined ? this.literal : hook(this.literal);
  }
}

// On the prototype, not per instance: the brand costs nothing per value.
Object.defineProperty(JsonInt.prototype, kJsonInt, { value: true });

/** A JSON-RPC request id as decoded: big integers arrive as `JsonInt`. */
export type RequestId = string | number | JsonInt;
