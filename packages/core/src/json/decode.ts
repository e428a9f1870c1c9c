import { JsonInt } from './int.js';

/** Longest integer part (sign excluded) a number token may have; a longer one is refused. */
export const DEFAULT_MAX_INTEGER_DIGITS = 64;

export type DecodeJsonOptions = {
  maxIntegerDigits?: number;
  /**
   * Whether one leading BOM is ignored (default true: the input is a whole stream, an HTTP body).
   * A framing that strips its stream's BOM itself (stdio's line reader) passes false, so a BOM at
   * the start of a later line is content (a syntax error), as the stream's only BOM is the first.
   */
  leadingBom?: boolean;
};

export type DecodeJsonResult =
  | { ok: true; value: unknown }
  | { ok: false; reason: 'syntax' | 'integer-too-long'; message: string };

/*
 * Cost model. The common path is: UTF-8 decode (bytes only), JSON.parse, a walk of the parsed
 * value for a number of magnitude 10^maxIntegerDigits or more, a look at the few identity paths
 * for a number out of the safe range, and a memchr-speed search for a negative exponent. Only
 * when one of them hits does the exact scan of the text run: a char loop over the structure
 * that skips string bodies with indexOf. It (a) applies the digit limit to number tokens only,
 * never to string content, and (b) recovers the source literal of unsafe integers at the
 * identity paths.
 *
 * Why this misses nothing: JSON.parse rounds correctly, and rounding is monotonic, so a token
 * whose integer part has more than d digits parses to at least Number(`1e${d}`) unless its
 * exponent is negative; negative exponents are searched for in the text. An unsafe integer
 * literal (>= 2^53) parses to more than 2^53 - 1. A float such as 1e300 only costs the scan.
 *
 * Why not a regex over the text (`/\d{16}/`): floats from JS carry 16-17 fraction digits, so it
 * hits on most numeric payloads, and any regex is a pass over every string byte (a fifth of
 * JSON.parse's time on prose, measured with `pnpm bench`'s decoder scenario). The walk visits
 * parsed values only: a string costs one typeof. The one regex pass left runs only on text with
 * many hyphens, where the exact scan would cost more.
 */
function hasHugeNumber(value: unknown, threshold: number): boolean {
  if (typeof value !== 'object' || value === null) {
    return typeof value === 'number' && (value >= threshold || value <= -threshold);
  }
  // An explicit stack: JSON.parse accepts nesting deeper than the call stack.
  const stack: object[] = [value];
  while (stack.length > 0) {
    const node = stack.pop() as Record<string, unknown> | unknown[];
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const v = node[i];
        if (typeof v === 'number') {
          if (v >= threshold || v <= -threshold) return true;
        } else if (typeof v === 'object' && v !== null) stack.push(v);
      }
    } else {
      for (const key in node) {
        const v = node[key];
        if (typeof v === 'number') {
          if (v >= threshold || v <= -threshold) return true;
        } else if (typeof v === 'object' && v !== null) stack.push(v);
      }
    }
  }
  return false;
}

function isUnsafeNumber(v: unknown): boolean {
  return typeof v === 'number' && (v > Number.MAX_SAFE_INTEGER || v < -Number.MAX_SAFE_INTEGER);
}

function messageHasUnsafeIdentity(message: unknown): boolean {
  if (isUnsafeNumber(ownObject(message, 'id'))) return true;
  const params = ownObject(message, 'params');
  return (
    isUnsafeNumber(ownObject(params, 'requestId')) ||
    isUnsafeNumber(ownObject(ownObject(params, '_meta'), 'progressToken'))
  );
}

function hasUnsafeIdentity(value: unknown): boolean {
  if (!Array.isArray(value)) return messageHasUnsafeIdentity(value);
  for (let i = 0; i < value.length; i++) if (messageHasUnsafeIdentity(value[i])) return true;
  return false;
}

const UNSAFE_MIN_DIGITS = 16; // 2^53 - 1 has 16 digits

/** Whether the hyphen at `at` ends `<digits>[.<digits>]e` with an integer part over `maxDigits` digits. */
function longExponentTokenAt(text: string, at: number, maxDigits: number): boolean {
  const e = text.charCodeAt(at - 1);
  if (e !== LOWER_E && e !== UPPER_E) return false;
  let i = at - 2;
  while (i >= 0 && isDigit(text.charCodeAt(i))) i--;
  let end = at - 2;
  if (text.charCodeAt(i) === DOT) {
    end = --i;
    while (i >= 0 && isDigit(text.charCodeAt(i))) i--;
  }
  return end - i > maxDigits;
}

/** A digit, an exponent mark and a minus: where a negative exponent can start. */
const NEGATIVE_EXPONENT = /[0-9][eE]-/g;
/**
 * Looking at one hyphen found by indexOf costs about 15 ns; the regex pass about 0.4 ns per
 * character: hyphens are looked at one by one while they are sparser than one in this many
 * characters (after the first 64), and the regex takes over from there when they are denser.
 */
const SPARSE_HYPHENS = 40;

/**
 * Whether a number token with a negative exponent may have an integer part over `maxDigits`
 * digits (its value says nothing about its length: `1000…0e-70`). Few hyphens (most messages):
 * each '-' is looked at. Many (prose, markdown rules, negative numbers): one regex pass over the
 * rest finds only those after a digit and an `e`. Past a budget of such candidates (a payload of
 * small floats) it answers yes and lets the exact scan decide.
 */
function mayHaveLongNegativeExponentToken(text: string, maxDigits: number): boolean {
  let seen = 0;
  let at = text.indexOf('-');
  for (; at !== -1; at = text.indexOf('-', at + 1)) {
    if (++seen > 64 && seen * SPARSE_HYPHENS > at) break;
    if (longExponentTokenAt(text, at, maxDigits)) return true;
  }
  if (at === -1) return false;
  let candidates = 64 + (text.length >>> 6);
  NEGATIVE_EXPONENT.lastIndex = Math.max(0, at - 2);
  try {
    for (let m = NEGATIVE_EXPONENT.exec(text); m !== null; m = NEGATIVE_EXPONENT.exec(text)) {
      if (--candidates < 0 || longExponentTokenAt(text, m.index + 2, maxDigits)) return true;
    }
    return false;
  } finally {
    NEGATIVE_EXPONENT.lastIndex = 0;
  }
}

// ignoreBOM: keep a BOM in the text so exactly one leading BOM is stripped, by us, for both
// input kinds. fatal: invalid UTF-8 is a syntax error, not U+FFFD.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * `JSON.parse` with Snodo's limits. Ignores one leading BOM; bytes must be valid UTF-8. Refuses a
 * number token whose integer part has more than `maxIntegerDigits` digits (digits in strings do
 * not count). At the identity paths of a message, or of each message of a top-level array
 * (`id`, `params.requestId`, `params._meta.progressToken`), an integer literal out of the safe
 * range comes back as a `JsonInt` holding the exact source literal; elsewhere numbers are what
 * `JSON.parse` gives. Throws only for a bad option.
 */
export function decodeJson(input: string | Uint8Array, options?: DecodeJsonOptions): DecodeJsonResult {
  const maxDigits = options?.maxIntegerDigits ?? DEFAULT_MAX_INTEGER_DIGITS;
  if (!Number.isSafeInteger(maxDigits) || maxDigits < 1) {
    throw new RangeError(`maxIntegerDigits must be a positive integer, got ${String(maxDigits)}`);
  }
  const stripBom = options?.leadingBom !== false;
  let text: string;
  if (typeof input === 'string') {
    text = stripBom && input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  } else {
    const hasBom =
      stripBom && input.length >= 3 && input[0] === 0xef && input[1] === 0xbb && input[2] === 0xbf;
    try {
      text = utf8.decode(hasBom ? input.subarray(3) : input);
    } catch {
      return { ok: false, reason: 'syntax', message: 'Message is not valid UTF-8' };
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, reason: 'syntax', message: `Message is not valid JSON: ${(err as Error).message}` };
  }
  if (
    !hasHugeNumber(value, hugeThreshold(maxDigits)) &&
    !hasUnsafeIdentity(value) &&
    !mayHaveLongNegativeExponentToken(text, maxDigits)
  ) {
    return { ok: true, value };
  }

  const scan = scanNumbers(text, maxDigits);
  if (scan instanceof TooLong) {
    return {
      ok: false,
      reason: 'integer-too-long',
      message: `Integer literal at character ${scan.offset} has ${scan.digits} digits; the limit is ${maxDigits}`,
    };
  }
  if (scan !== undefined) applyLiterals(value, scan);
  return { ok: true, value };
}

/** Number(`1e${d}`) for the default limit, computed once: every message of every transport needs it. */
const DEFAULT_HUGE_THRESHOLD = Number(`1e${DEFAULT_MAX_INTEGER_DIGITS}`);

function hugeThreshold(maxDigits: number): number {
  // Number(`1e${d}`), not 10 ** d: string conversion is correctly rounded, Math.pow need not be.
  return maxDigits === DEFAULT_MAX_INTEGER_DIGITS ? DEFAULT_HUGE_THRESHOLD : Number(`1e${maxDigits}`);
}

class TooLong {
  constructor(
    readonly digits: number,
    readonly offset: number,
  ) {}
}

/*
 * Identity paths, relative to one message (the top value, or each element of a top array):
 *   id                        -> 'id'
 *   params.requestId          -> 'requestId'
 *   params._meta.progressToken -> 'progressToken'
 * Found literals are keyed `${element}:${name}` (element -1 outside a batch). Every value at an
 * identity path is noted, not only unsafe integers, and a later one replaces an earlier one:
 * JSON.parse keeps the last of duplicate keys, so must we.
 */
type Found = Map<string, string | null>;
const MAX_TRACKED_DEPTH = 4; // [element].params._meta.progressToken

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
const PLUS = 0x2b;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

function isDigit(c: number): boolean {
  return c >= DIGIT_0 && c <= DIGIT_9;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Exact number scan of text already accepted by JSON.parse. */
function scanNumbers(text: string, maxDigits: number): TooLong | Found | undefined {
  const n = text.length;
  // keys[d]: the key (object) or index (array) at depth d, tracked for d <= MAX_TRACKED_DEPTH.
  const keys: (string | number)[] = [];
  const isArray: boolean[] = [];
  let found: Found | undefined;
  let depth = 0;
  let i = 0;

  const note = (literal: string | null): void => {
    const name = identityName(keys, isArray, depth);
    if (name === undefined) return;
    found ??= new Map();
    found.set(name, literal);
  };

  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      let j = end;
      while (j < n && isSpace(text.charCodeAt(j))) j++;
      if (text.charCodeAt(j) === COLON) {
        if (depth <= MAX_TRACKED_DEPTH) keys[depth] = keyText(text, i, end);
        i = j + 1;
      } else {
        if (depth <= MAX_TRACKED_DEPTH) note(null);
        i = end;
      }
    } else if (c === MINUS || isDigit(c)) {
      const start = i;
      if (c === MINUS) i++;
      const intStart = i;
      while (i < n && isDigit(text.charCodeAt(i))) i++;
      const digits = i - intStart;
      if (digits > maxDigits) return new TooLong(digits, start);
      let integer = true;
      if (text.charCodeAt(i) === DOT) {
        integer = false;
        i++;
        while (i < n && isDigit(text.charCodeAt(i))) i++;
      }
      const e = text.charCodeAt(i);
      if (e === LOWER_E || e === UPPER_E) {
        integer = false;
        i++;
        const sign = text.charCodeAt(i);
        if (sign === PLUS || sign === MINUS) i++;
        while (i < n && isDigit(text.charCodeAt(i))) i++;
      }
      if (depth <= MAX_TRACKED_DEPTH) {
        const literal = text.slice(start, i);
        const unsafe = integer && digits >= UNSAFE_MIN_DIGITS && !Number.isSafeInteger(Number(literal));
        note(unsafe ? literal : null);
      }
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (depth <= MAX_TRACKED_DEPTH) note(null);
      depth++;
      if (depth <= MAX_TRACKED_DEPTH) {
        isArray[depth] = c === OPEN_ARRAY;
        keys[depth] = c === OPEN_ARRAY ? 0 : '';
      }
      i++;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
      i++;
    } else if (c === COMMA) {
      if (depth <= MAX_TRACKED_DEPTH && isArray[depth]) keys[depth] = (keys[depth] as number) + 1;
      i++;
    } else if (c === 0x74 /* t */ || c === 0x6e /* n */ || c === 0x66 /* f */) {
      if (depth <= MAX_TRACKED_DEPTH) note(null);
      i += c === 0x66 ? 5 : 4;
    } else {
      i++; // whitespace
    }
  }
  return found;
}

/** Index just past the closing quote of the string opening at `start`. */
function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const q = text.indexOf('"', from);
    if (q === -1) return text.length; // unreachable for text JSON.parse accepted
    let b = q - 1;
    while (text.charCodeAt(b) === BACKSLASH) b--;
    if (((q - 1 - b) & 1) === 0) return q + 1; // an even run of backslashes escapes nothing
    from = q + 1;
  }
}

function keyText(text: string, start: number, end: number): string {
  const raw = text.slice(start + 1, end - 1);
  return raw.includes('\\') ? (JSON.parse(text.slice(start, end)) as string) : raw;
}

function identityName(keys: (string | number)[], isArray: boolean[], depth: number): string | undefined {
  // A value at `depth` sits at path keys[1..depth]; object keys are strings, array indexes numbers.
  let base = 1;
  let element = -1;
  if (isArray[1] === true) {
    base = 2;
    element = keys[1] as number;
  }
  switch (depth - base + 1) {
    case 1:
      return keys[base] === 'id' ? `${element}:id` : undefined;
    case 2:
      return keys[base] === 'params' && keys[base + 1] === 'requestId' ? `${element}:requestId` : undefined;
    case 3:
      return keys[base] === 'params' && keys[base + 1] === '_meta' && keys[base + 2] === 'progressToken'
        ? `${element}:progressToken`
        : undefined;
    default:
      return undefined;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function ownObject(holder: unknown, key: string): unknown {
  return isObject(holder) && Object.hasOwn(holder, key) ? holder[key] : undefined;
}

function applyLiterals(value: unknown, found: Found): void {
  for (const [name, literal] of found) {
    if (literal === null) continue;
    const sep = name.indexOf(':');
    const element = Number(name.slice(0, sep));
    const which = name.slice(sep + 1);
    const message = element < 0 ? value : Array.isArray(value) ? value[element] : undefined;
    let holder: unknown = message;
    let prop = 'id';
    if (which === 'requestId') {
      holder = ownObject(message, 'params');
      prop = 'requestId';
    } else if (which === 'progressToken') {
      holder = ownObject(ownObject(message, 'params'), '_meta');
      prop = 'progressToken';
    }
    // The scan noted the last value at this path; JSON.parse kept the same one. Replace it only
    // if it is the lossy number we expect.
    if (isObject(holder) && Object.hasOwn(holder, prop) && typeof holder[prop] === 'number') {
      holder[prop] = new JsonInt(literal);
    }
  }
}
