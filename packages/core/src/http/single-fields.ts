import type { HttpRequest } from './types.js';

/**
 * Fields a request carries once, with one value. RFC 9112 §3.2: a second Host is 400. Content-Length
 * (RFC 9110 §8.6) and Content-Type (§8.3) are single values too: two make the body's length or type
 * ambiguous, which is where request smuggling starts. Origin (RFC 6454 §7.3) is the Origin rule's.
 */
const SINGLE_FIELDS = {
  host: 'Host',
  'content-length': 'Content-Length',
  'content-type': 'Content-Type',
  origin: 'Origin',
} as const;

export type SingleField = keyof typeof SINGLE_FIELDS;
const FIELDS = Object.keys(SINGLE_FIELDS) as SingleField[];
const LENGTHS = new Set(FIELDS.map((field) => field.length));

/** How a field is spelled in a message (`Content-Length`). */
export function fieldName(field: SingleField): string {
  return SINGLE_FIELDS[field];
}

/**
 * The first single field the request repeats, or undefined. A repetition shows in two ways: in
 * `rawHeaders`, the fields as received, when the host has them (Node keeps only the first Host or
 * Content-Type in its header object); and as a list in the value, since hosts join repeated fields
 * with ", " (a fetch `Headers` does): no comma belongs in these fields' values, except inside a
 * quoted Content-Type parameter.
 */
export function repeatedField(request: HttpRequest): SingleField | undefined {
  const raw = request.rawHeaders;
  if (raw !== undefined) {
    let seen = 0;
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i] as string;
      // Only a name as long as a single field's can be one: most are never lower-cased.
      if (!LENGTHS.has(name.length)) continue;
      const index = FIELDS.indexOf(name.toLowerCase() as SingleField);
      if (index < 0) continue;
      if ((seen & (1 << index)) !== 0) return FIELDS[index];
      seen |= 1 << index;
    }
  }
  for (const field of FIELDS) {
    const value = request.headers[field];
    if (value !== undefined && hasListComma(value, field === 'content-type')) return field;
  }
  return undefined;
}

/** A comma outside a quoted string (RFC 9110 §5.6.4: a backslash escapes the next character there). */
function hasListComma(value: string, quotedStrings: boolean): boolean {
  if (!quotedStrings) return value.includes(',');
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const char = value.charCodeAt(i);
    if (quoted && char === 0x5c) i++;
    else if (char === 0x22) quoted = !quoted;
    else if (char === 0x2c && !quoted) return true;
  }
  return false;
}
