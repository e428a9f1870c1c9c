import { ErrorCode } from '../errors/codes.js';
import { DEFAULT_MAX_INTEGER_DIGITS, type DecodeJsonOptions, decodeJson } from '../json/decode.js';
import { JsonInt, type RequestId } from '../json/int.js';
import type { JsonRpcErrorObject } from './types.js';

export type { JsonRpcErrorObject };

/** Longest string id or progress token, in UTF-8 bytes. */
export const DEFAULT_MAX_ID_BYTES = 256;

export type DecodeLimits = { maxIntegerDigits?: number; maxIdBytes?: number };

export type DecodedSingle =
  | {
      kind: 'request';
      id: RequestId;
      method: string;
      params: Record<string, unknown> | undefined;
      message: Record<string, unknown>;
    }
  | {
      kind: 'notification';
      method: string;
      params: Record<string, unknown> | undefined;
      message: Record<string, unknown>;
    }
  | {
      kind: 'response';
      id: RequestId;
      result?: unknown;
      error?: JsonRpcErrorObject;
      message: Record<string, unknown>;
    }
  | { kind: 'invalid'; id: RequestId | null; error: JsonRpcErrorObject };

export type Decoded = DecodedSingle | { kind: 'batch'; items: DecodedSingle[] };

const PARSE_ERROR = ErrorCode.ParseError;
const INVALID_REQUEST = ErrorCode.InvalidRequest;
const INVALID_PARAMS = ErrorCode.InvalidParams;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

const DEFAULT_DECODE: DecodeJsonOptions = Object.freeze({ maxIntegerDigits: DEFAULT_MAX_INTEGER_DIGITS });
const DEFAULT_NO_BOM: DecodeJsonOptions = Object.freeze({
  maxIntegerDigits: DEFAULT_MAX_INTEGER_DIGITS,
  leadingBom: false,
});

/**
 * Decodes and classifies one JSON-RPC message or batch (`options.leadingBom: false` when the
 * framing already stripped its stream's one BOM: see `decodeJson`). Never throws for bad input: every
 * refusal is a `kind: 'invalid'` item carrying the error to answer with. Throws RangeError only
 * for bad `limits`.
 */
export function decodeMessage(
  input: string | Uint8Array,
  limits?: DecodeLimits,
  options?: { readonly leadingBom?: boolean },
): Decoded {
  const maxIdBytes = checkMaxIdBytes(limits?.maxIdBytes);
  const maxIntegerDigits = limits?.maxIntegerDigits ?? DEFAULT_MAX_INTEGER_DIGITS;
  const noBom = options?.leadingBom === false;
  // The default limits (every stdio line, most HTTP bodies) share two option objects.
  const decoded = decodeJson(
    input,
    maxIntegerDigits === DEFAULT_MAX_INTEGER_DIGITS
      ? noBom
        ? DEFAULT_NO_BOM
        : DEFAULT_DECODE
      : noBom
        ? { maxIntegerDigits, leadingBom: false }
        : { maxIntegerDigits },
  );
  if (!decoded.ok) return invalid(null, PARSE_ERROR, `Parse error: ${decoded.message}`);
  const value = decoded.value;
  if (Array.isArray(value)) {
    if (value.length === 0) return invalid(null, INVALID_REQUEST, 'Invalid Request: empty batch');
    return { kind: 'batch', items: value.map((item) => classify(item, maxIdBytes)) };
  }
  return classify(value, maxIdBytes);
}

/**
 * Classifies one message that is already parsed (an array is not a message: -32600). Applies the
 * id and progress token bounds, but cannot restore big integers JSON.parse already rounded:
 * decode with `decodeJson` or `decodeMessage` to keep them.
 */
export function classifyMessage(message: unknown, limits?: Pick<DecodeLimits, 'maxIdBytes'>): DecodedSingle {
  return classify(message, checkMaxIdBytes(limits?.maxIdBytes));
}

function checkMaxIdBytes(value: number | undefined): number {
  const maxIdBytes = value ?? DEFAULT_MAX_ID_BYTES;
  if (!Number.isSafeInteger(maxIdBytes) || maxIdBytes < 1) {
    throw new RangeError(`maxIdBytes must be a positive integer, got ${String(maxIdBytes)}`);
  }
  return maxIdBytes;
}

function classify(value: unknown, maxIdBytes: number): DecodedSingle {
  if (!isObject(value)) {
    return invalid(
      null,
      INVALID_REQUEST,
      `Invalid Request: a message must be a JSON object, got ${describe(value)}`,
    );
  }
  const message = value;
  const hasId = Object.hasOwn(message, 'id');
  let id: RequestId | null = null;
  if (hasId) {
    const problem = idProblem(message.id, maxIdBytes);
    if (problem !== undefined) return invalid(null, INVALID_REQUEST, `Invalid Request: "id" ${problem}`);
    id = message.id as RequestId;
  }
  if (message.jsonrpc !== '2.0') {
    return invalid(id, INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be exactly "2.0"');
  }
  const hasResult = Object.hasOwn(message, 'result');
  const hasError = Object.hasOwn(message, 'error');

  if (Object.hasOwn(message, 'method')) {
    const method = message.method;
    if (typeof method !== 'string') {
      return invalid(
        id,
        INVALID_REQUEST,
        `Invalid Request: "method" must be a string, got ${describe(method)}`,
      );
    }
    if (hasResult || hasError) {
      return invalid(
        id,
        INVALID_REQUEST,
        'Invalid Request: a message with "method" must not have "result" or "error"',
      );
    }
    let params: Record<string, unknown> | undefined;
    if (Object.hasOwn(message, 'params')) {
      if (!isObject(message.params)) {
        return invalid(
          id,
          INVALID_REQUEST,
          `Invalid Request: "params" must be a JSON object, got ${describe(message.params)}`,
        );
      }
      params = message.params;
      const problem = metaProblem(params, maxIdBytes);
      if (problem !== undefined) return invalid(id, INVALID_PARAMS, `Invalid params: ${problem}`);
    }
    return id === null
      ? { kind: 'notification', method, params, message }
      : { kind: 'request', id, method, params, message };
  }

  if (id === null) {
    return invalid(
      null,
      INVALID_REQUEST,
      'Invalid Request: a message needs "method", or "id" with "result" or "error"',
    );
  }
  if (hasResult === hasError) {
    return invalid(
      id,
      INVALID_REQUEST,
      hasResult
        ? 'Invalid Request: a response must not have both "result" and "error"'
        : 'Invalid Request: a message with "id" needs "method", "result" or "error"',
    );
  }
  if (hasResult) return { kind: 'response', id, result: message.result, message };
  const error = message.error;
  if (!isObject(error) || !Number.isSafeInteger(error.code) || typeof error.message !== 'string') {
    return invalid(
      id,
      INVALID_REQUEST,
      'Invalid Request: "error" must be an object with an integer "code" and a string "message"',
    );
  }
  const errorObject: JsonRpcErrorObject = { code: error.code as number, message: error.message };
  if (Object.hasOwn(error, 'data')) errorObject.data = error.data;
  return { kind: 'response', id, error: errorObject, message };
}

function metaProblem(params: Record<string, unknown>, maxIdBytes: number): string | undefined {
  if (!Object.hasOwn(params, '_meta')) return undefined;
  const meta = params._meta;
  if (!isObject(meta)) return `"params._meta" must be a JSON object, got ${describe(meta)}`;
  if (!Object.hasOwn(meta, 'progressToken')) return undefined;
  const problem = idProblem(meta.progressToken, maxIdBytes);
  return problem === undefined ? undefined : `"params._meta.progressToken" ${problem}`;
}

/** Why `v` is not a valid id or progress token, or undefined when it is one. */
function idProblem(v: unknown, maxIdBytes: number): string | undefined {
  // The valid ids first, before any text is built: this runs for every message.
  if (typeof v === 'number' && Number.isSafeInteger(v)) return undefined;
  if (typeof v === 'string' && utf8ByteLength(v, maxIdBytes) <= maxIdBytes) return undefined;
  const rule = `must be a string of at most ${maxIdBytes} UTF-8 bytes or an integer in the int64 range`;
  if (typeof v === 'string') return `${rule}; got a string of more than ${maxIdBytes} bytes`;
  if (typeof v === 'number') {
    // An unsafe integer reaches here only as a non-integer literal (1e20, 2.0e19): JsonInt
    // carries every integer literal out of the safe range, so this value cannot be echoed exactly.
    return Number.isInteger(v) ? `${rule}; got ${v}, which is not exact` : `${rule}; got ${describe(v)}`;
  }
  if (JsonInt.is(v)) {
    const n = v.toBigInt();
    return n >= INT64_MIN && n <= INT64_MAX ? undefined : `${rule}; got ${v.literal}`;
  }
  return `${rule}; got ${describe(v)}`;
}

/** UTF-8 length of `s`, counting no further than just past `limit`. */
function utf8ByteLength(s: string, limit: number): number {
  // Each code unit is 1 to 3 bytes (a surrogate pair is 4 for 2 units).
  if (s.length > limit) return s.length;
  if (s.length * 3 <= limit) return s.length;
  let bytes = 0;
  for (let i = 0; i < s.length && bytes <= limit; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && isTrail(s.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3; // BMP, or a lone surrogate (encoded as U+FFFD)
  }
  return bytes;
}

function isTrail(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (JsonInt.is(v)) return `integer ${v.literal}`;
  switch (typeof v) {
    case 'string':
      return 'a string';
    case 'number':
      return Number.isInteger(v) ? `integer ${v}` : `number ${v}`;
    case 'boolean':
      return `${v}`;
    case 'object':
      return 'an object';
    default:
      return typeof v;
  }
}

function invalid(id: RequestId | null, code: number, message: string): DecodedSingle {
  return { kind: 'invalid', id, error: { code, message } };
}
