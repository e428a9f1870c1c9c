/** Reading header values: media types, and the `=?base64?…?=` encoding of `Mcp-Name` / `Mcp-Param-*`. */

const SENTINEL_START = '=?base64?';
const SENTINEL_END = '?=';
// Canonical base64 only: padded to a multiple of four, standard alphabet. "SGVsbG8" (no padding)
// and "SGVs!!!bG8=" are malformed and refused, as SEP-2243's test table requires.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The value a client meant: the text of a `=?base64?…?=` value (UTF-8), otherwise the value itself,
 * without the optional whitespace HTTP allows around it. `undefined` when the encoded form is malformed.
 */
export function decodeHeaderValue(raw: string): string | undefined {
  const value = trimOws(raw);
  if (!(value.startsWith(SENTINEL_START) && value.endsWith(SENTINEL_END))) return value;
  if (value.length < SENTINEL_START.length + SENTINEL_END.length) return value;
  const encoded = value.slice(SENTINEL_START.length, value.length - SENTINEL_END.length);
  if (!BASE64.test(encoded)) return undefined;
  const binary = atob(encoded);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** RFC 9110 §5.5: optional whitespace (SP, HTAB) around a field value is not part of it. */
export function trimOws(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && (value.charCodeAt(start) === 0x20 || value.charCodeAt(start) === 0x09)) start++;
  while (end > start && (value.charCodeAt(end - 1) === 0x20 || value.charCodeAt(end - 1) === 0x09)) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

/** The media type of a Content-Type value, lower-case, parameters dropped. */
export function mediaType(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const semicolon = value.indexOf(';');
  return trimOws(semicolon < 0 ? value : value.slice(0, semicolon)).toLowerCase();
}

/** Whether an `Accept` header admits `text/event-stream` (the standalone GET stream). */
export function acceptsEventStream(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  return accept.split(',').some((part) => {
    const [range = '', ...params] = part.split(';');
    if (excluded(params)) return false;
    const type = trimOws(range).toLowerCase();
    return type === '*/*' || type === 'text/*' || type === 'text/event-stream';
  });
}

// The last Accept value read and its answer: a client sends the same one on every request.
let lastAccept: string | undefined;
let lastAcceptsBoth = false;

/**
 * Whether an Accept value admits both `application/json` and `text/event-stream`, which every
 * Streamable HTTP POST must list. Wildcards count (`*\/*`, `text/*`), `q=0` excludes.
 */
export function acceptsJsonAndEventStream(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  if (accept !== lastAccept) {
    lastAcceptsBoth = listsJsonAndEventStream(accept);
    lastAccept = accept;
  }
  return lastAcceptsBoth;
}

function listsJsonAndEventStream(accept: string): boolean {
  let json = false;
  let events = false;
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.split(';');
    if (excluded(params)) continue;
    const type = trimOws(range).toLowerCase();
    if (type === '*/*') return true;
    if (type === 'application/json' || type === 'application/*') json = true;
    if (type === 'text/event-stream' || type === 'text/*') events = true;
  }
  return json && events;
}

const Q_ZERO = /^\s*q\s*=\s*0(?:\.0{0,3})?\s*$/i;

/** A media range whose parameters say `q=0`: not acceptable. */
function excluded(params: readonly string[]): boolean {
  return params.some((param) => Q_ZERO.test(param));
}
