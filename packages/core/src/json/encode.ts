import { type EncodeHook, isIntegerLiteral, kEncodeHook } from './int.js';

export type EncodeJsonOptions = {
  /** Escape every non-ASCII UTF-16 code unit as `\uXXXX`, so the bytes do not depend on an encoding. */
  ascii?: boolean;
};

/*
 * How JsonInt values are written raw, anywhere in the value, at no cost when there are none.
 *
 * The common path is one JSON.stringify call with no replacer. JSON.stringify calls toJSON on
 * every JsonInt it writes, so toJSON is where presence is detected: while encodeJson runs it
 * installs a hook in a Symbol.for slot on globalThis (shared with other copies of core), and
 * toJSON passes its literal to the hook, which returns a placeholder string. No hook call
 * means no JsonInt, and the output is JSON.stringify's, untouched.
 *
 * When the hook was called, each placeholder (a quoted string carrying a per-call random nonce
 * and an index) is replaced by its literal. The replacement must account for every placeholder
 * exactly once; otherwise a value held the same text by chance, or a nested JSON.stringify in a
 * user toJSON swallowed one, and we retry with a new nonce or throw rather than write a wrong
 * literal.
 *
 * Output never contains a raw newline: JSON.stringify without `space` emits no whitespace and
 * escapes control characters in strings, and literals are digits. The stdio transport frames
 * messages by newline and relies on this. (U+2028 and U+2029 are written raw unless `ascii`.)
 */

const PLACEHOLDER_PREFIX = '@@snodo_JsonInt_';
const INDEX = /^(?:0|[1-9][0-9]*)$/;
const MAX_ATTEMPTS = 3;

export function encodeJson(value: unknown, options?: EncodeJsonOptions): string {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const out = encodeOnce(value);
    if (out !== undefined) return options?.ascii === true ? escapeNonAscii(out) : out;
  }
  throw new Error(
    'encodeJson could not place JsonInt literals: a JSON.stringify nested in toJSON consumed them',
  );
}

/** The encoded text, or undefined when the placeholders did not come out exactly once each. */
function encodeOnce(value: unknown): string | undefined {
  const literals: string[] = [];
  let nonce = '';
  const hook: EncodeHook = (literal) => {
    // The literal is written raw, so it must be an integer literal even if this JsonInt came
    // from a copy of core that was tampered with.
    if (!isIntegerLiteral(literal)) {
      throw new TypeError(`Not a JSON integer literal: ${JSON.stringify(literal)}`);
    }
    if (nonce === '') nonce = Math.random().toString(36).slice(2, 12);
    literals.push(literal);
    return `${PLACEHOLDER_PREFIX}${nonce}:${literals.length - 1}`;
  };

  const slots = globalThis as unknown as Record<symbol, EncodeHook | undefined>;
  const previous = slots[kEncodeHook];
  slots[kEncodeHook] = hook;
  let out: string | undefined;
  try {
    out = JSON.stringify(value);
  } finally {
    slots[kEncodeHook] = previous;
  }
  if (out === undefined) throw new TypeError(`encodeJson cannot encode a value of type ${typeof value}`);
  if (literals.length === 0) return out;

  // indexOf on the marker, not a regex: the output can be megabytes and the marker is literal.
  const marker = `"${PLACEHOLDER_PREFIX}${nonce}:`;
  const seen = new Uint8Array(literals.length);
  let result = '';
  let copied = 0;
  let placed = 0;
  for (let at = out.indexOf(marker); at !== -1; at = out.indexOf(marker, copied)) {
    const close = out.indexOf('"', at + marker.length);
    const index = out.slice(at + marker.length, close);
    const k = INDEX.test(index) ? Number(index) : -1;
    // A clash: a value or key held the marker by chance (the nonce makes this unlikely).
    if (k < 0 || k >= literals.length || seen[k] === 1) return undefined;
    seen[k] = 1;
    placed++;
    result += out.slice(copied, at) + literals[k]!;
    copied = close + 1;
  }
  return placed === literals.length ? result + out.slice(copied) : undefined;
}

// Each UTF-16 code unit on its own: a surrogate pair becomes two escapes, as JSON requires.
// JSON.stringify already writes lone surrogates as lowercase \udxxx; we use lowercase too.
// One match per run of non-ASCII units and plain concatenation: measured faster than a
// replace callback per unit, by about 2x on output with long CJK runs.
const NON_ASCII_RUN = /[\u0080-\uffff]+/g;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * `json` with every non-ASCII UTF-16 code unit written as a `\uXXXX` escape: what `encodeJson`
 * does with `ascii`. Valid on any text made of JSON values (and ASCII separators between them, such
 * as the newlines of a batch of lines): outside strings JSON has no non-ASCII character.
 */
export function escapeNonAscii(json: string): string {
  NON_ASCII_RUN.lastIndex = 0;
  let result = '';
  let copied = 0;
  for (let m = NON_ASCII_RUN.exec(json); m !== null; m = NON_ASCII_RUN.exec(json)) {
    const run = m[0];
    result += json.slice(copied, m.index);
    for (let i = 0; i < run.length; i++) {
      const unit = run.charCodeAt(i);
      result += '\\u' + HEX[unit >> 8]! + HEX[unit & 0xff]!;
    }
    copied = m.index + run.length;
  }
  return copied === 0 ? json : result + json.slice(copied);
}
