/**
 * The RFC 6570 subset used by resource templates: level 1 `{var}` and level 2 `{+var}`, one
 * variable per expression, literal text between expressions. Anything else is refused by
 * `parseUriTemplate`, so an unsupported template fails when it is registered rather than by
 * silently never matching.
 *
 * Matching rules (anchored to the whole URI):
 * - `{var}` matches one or more unreserved characters or `%XX` triplets, i.e. only what its
 *   expansion can produce; it never spans `/`, `?` or `#`.
 * - `{+var}` also matches reserved characters, so it may span `/`. It is GREEDY: it takes the
 *   longest value that still lets the rest match, so `file:///{+path}` on `file:///a/b/c` gives
 *   `a/b/c`, and `demo://{+a}/x/{+b}` on `demo://p/x/q/x/r` gives `a` = `p/x/q`, `b` = `r`. The same
 *   holds for `{var}` where the literal after it can occur in its value (`{a}-{b}` on `p-q-r`).
 * - Matched values are percent-decoded, every triplet included: `%2F` gives '/', so a `{var}` value
 *   may hold '/', '?' or '..' once decoded. A value that is not valid UTF-8 once decoded means no match.
 *
 * Cost: no RegExp and no backtracking (uri-template-match.ts); the work is linear in the URI's
 * length, at most 3 × (variables + 1) × (URI length + 1) + template length steps.
 */

import { branded, isBranded } from '../errors/brand.js';
import { SnodoError } from '../errors/snodo-error.js';
import {
  isHexDigit,
  type MatchMeter,
  type MatchPlan,
  matchPlan,
  planMatch,
  RESERVED_CHARACTERS,
  UNRESERVED,
} from './uri-template-match.js';

// Symbol.for, not Symbol(): two loaded copies of core share the brand, so `is` and `instanceof` agree.
const kUriTemplateError = Symbol.for('snodo.UriTemplateError');

/** Thrown by `parseUriTemplate`; `reason` names the offending expression and why it is refused. */
export class UriTemplateError extends SnodoError {
  declare readonly code: 'SNODO_ERR_UNSUPPORTED_TEMPLATE';
  readonly template: string;
  readonly reason: string;

  constructor(template: string, reason: string) {
    super('SNODO_ERR_UNSUPPORTED_TEMPLATE', `Unsupported URI template "${template}": ${reason}`);
    this.name = 'UriTemplateError';
    this.template = template;
    this.reason = reason;
  }

  static override is(value: unknown): value is UriTemplateError {
    return isBranded(value, kUriTemplateError);
  }

  static {
    branded(UriTemplateError, kUriTemplateError);
  }
}

export interface UriTemplate {
  readonly template: string;
  /** Variable names in order of appearance. */
  readonly variables: readonly string[];
  /** Number of literal characters (code points) outside expressions; used for precedence. */
  readonly literalLength: number;
  /**
   * Anchored match, in time linear in the URI's length; values are percent-decoded, every triplet
   * included (`%2F` gives '/'). `null` when the URI does not match.
   */
  match(uri: string): Record<string, string> | null;
  /** Missing variables expand to '' (RFC 6570 §3.2.1). */
  expand(values: Record<string, string>): string;
}

/** RFC 6570 §2.3 varname: varchar *( ["."] varchar ), varchar = ALPHA / DIGIT / "_" / pct-encoded. */
const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(?:\.(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*$/;

const OPERATOR_NAMES: Readonly<Record<string, string>> = {
  '#': 'fragment expansion',
  '.': 'label expansion',
  '/': 'path segment expansion',
  ';': 'path-style parameter expansion',
  '?': 'form-style query expansion',
  '&': 'form-style query continuation',
};
const RESERVED_OPERATORS = '=,!@|';

interface Expression {
  readonly name: string;
  readonly reserved: boolean;
}

type Part = string | Expression;

function pct(byte: number): string {
  return `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
}

/** UTF-8 percent-encoding of one code point; lone surrogates become U+FFFD, as TextEncoder does. */
function encodeCodePoint(codePoint: number): string {
  const cp = codePoint >= 0xd800 && codePoint <= 0xdfff ? 0xfffd : codePoint;
  if (cp < 0x80) return pct(cp);
  if (cp < 0x800) return pct(0xc0 | (cp >> 6)) + pct(0x80 | (cp & 0x3f));
  if (cp < 0x10000) {
    return pct(0xe0 | (cp >> 12)) + pct(0x80 | ((cp >> 6) & 0x3f)) + pct(0x80 | (cp & 0x3f));
  }
  return (
    pct(0xf0 | (cp >> 18)) +
    pct(0x80 | ((cp >> 12) & 0x3f)) +
    pct(0x80 | ((cp >> 6) & 0x3f)) +
    pct(0x80 | (cp & 0x3f))
  );
}

function encodeValue(value: string, reserved: boolean): string {
  let out = '';
  let i = 0;
  while (i < value.length) {
    const ch = value[i] as string;
    if (
      reserved &&
      ch === '%' &&
      isHexDigit(value.charCodeAt(i + 1)) &&
      isHexDigit(value.charCodeAt(i + 2))
    ) {
      out += value.slice(i, i + 3);
      i += 3;
      continue;
    }
    if (UNRESERVED.includes(ch) || (reserved && RESERVED_CHARACTERS.includes(ch))) {
      out += ch;
      i += 1;
      continue;
    }
    const cp = value.codePointAt(i) as number;
    out += encodeCodePoint(cp);
    i += cp > 0xffff ? 2 : 1;
  }
  return out;
}

/** Validates one expression body (text between the braces); returns the reason it is refused, if any. */
function checkExpression(body: string): string | undefined {
  const expr = `'{${body}}'`;
  if (body === '') return `empty expression ${expr}; an expression needs a variable name`;
  const op = body[0] as string;
  const opName = OPERATOR_NAMES[op];
  if (opName !== undefined) {
    return `expression ${expr} uses operator '${op}' (${opName}); only '{var}' and '{+var}' are supported`;
  }
  if (RESERVED_OPERATORS.includes(op)) {
    return `expression ${expr} uses operator '${op}', which RFC 6570 reserves for future extensions; only '{var}' and '{+var}' are supported`;
  }
  const name = op === '+' ? body.slice(1) : body;
  if (name === '') return `expression ${expr} has no variable name`;
  if (name.includes(',')) {
    return `expression ${expr} lists several variables; only one variable per expression is supported`;
  }
  const prefix = name.indexOf(':');
  if (prefix !== -1) {
    return `expression ${expr} uses the prefix modifier '${name.slice(prefix)}'; modifiers are not supported`;
  }
  if (name.endsWith('*')) {
    return `expression ${expr} uses the explode modifier '*'; modifiers are not supported`;
  }
  if (!VARNAME.test(name)) {
    return `expression ${expr} has an invalid variable name '${name}'; a name is ALPHA, DIGIT, '_' or %XX characters, with single '.' between them`;
  }
  return undefined;
}

function parseParts(template: string): Part[] {
  const fail = (reason: string): never => {
    throw new UriTemplateError(template, reason);
  };
  const parts: Part[] = [];
  const seen = new Map<string, string>();
  let literal = '';
  let previousExpression: string | undefined;
  let i = 0;
  while (i < template.length) {
    const ch = template[i] as string;
    if (ch === '}') fail(`unbalanced braces: '}' at offset ${i} has no matching '{'`);
    if (ch !== '{') {
      literal += ch;
      i += 1;
      continue;
    }
    const close = template.indexOf('}', i + 1);
    const nestedOpen = template.indexOf('{', i + 1);
    if (close === -1) fail(`unbalanced braces: '{' at offset ${i} is never closed`);
    if (nestedOpen !== -1 && nestedOpen < close) {
      fail(
        `unbalanced braces: '{' at offset ${nestedOpen} opens inside the expression started at offset ${i}`,
      );
    }
    const body = template.slice(i + 1, close);
    const text = `{${body}}`;
    const refused = checkExpression(body);
    if (refused !== undefined) fail(refused);
    if (literal === '' && previousExpression !== undefined) {
      fail(
        `expressions '${previousExpression}' and '${text}' have no literal text between them, so a match would be ambiguous`,
      );
    }
    const reserved = body.startsWith('+');
    const name = reserved ? body.slice(1) : body;
    const first = seen.get(name);
    if (first !== undefined) fail(`variable '${name}' is used twice ('${first}' and '${text}')`);
    seen.set(name, text);
    if (literal !== '') parts.push(literal);
    parts.push({ name, reserved });
    literal = '';
    previousExpression = text;
    i = close + 1;
  }
  if (literal !== '') parts.push(literal);
  return parts;
}

class ParsedUriTemplate implements UriTemplate {
  readonly template: string;
  readonly variables: readonly string[];
  readonly literalLength: number;
  readonly #parts: readonly Part[];
  readonly #plan: MatchPlan;

  constructor(template: string, parts: readonly Part[]) {
    this.template = template;
    this.#parts = parts;
    const variables: string[] = [];
    const expressions: { reserved: boolean; after: string }[] = [];
    let head = '';
    let literalLength = 0;
    for (const part of parts) {
      if (typeof part === 'string') {
        literalLength += [...part].length;
        const previous = expressions[expressions.length - 1];
        if (previous) previous.after = part;
        else head = part;
      } else {
        variables.push(part.name);
        expressions.push({ reserved: part.reserved, after: '' });
      }
    }
    this.variables = Object.freeze(variables);
    this.literalLength = literalLength;
    this.#plan = planMatch(head, expressions);
  }

  match(uri: string, meter: MatchMeter = { steps: 0 }): Record<string, string> | null {
    const values = matchPlan(this.#plan, uri, meter);
    if (values === null) return null;
    const entries: [string, string][] = [];
    for (const [index, name] of this.variables.entries()) {
      try {
        entries.push([name, decodeURIComponent(values[index] as string)]);
      } catch {
        return null; // not valid UTF-8 once decoded, e.g. a lone '%E9'
      }
    }
    // fromEntries defines own properties, so a variable named '__proto__' is kept as data.
    return Object.fromEntries(entries);
  }

  expand(values: Record<string, string>): string {
    let out = '';
    for (const part of this.#parts) {
      if (typeof part === 'string') out += part;
      else if (Object.hasOwn(values, part.name)) out += encodeValue(values[part.name] ?? '', part.reserved);
    }
    return out;
  }
}

/** Parses a template of the supported subset; throws `UriTemplateError` naming the refused expression. */
export function parseUriTemplate(template: string): UriTemplate {
  return new ParsedUriTemplate(template, parseParts(template));
}

/** The result of matching `uri` against `template`, and the steps the match took (for tests and benchmarks). */
export function countMatchSteps(
  template: string,
  uri: string,
): { variables: Record<string, string> | null; steps: number } {
  const meter: MatchMeter = { steps: 0 };
  const variables = new ParsedUriTemplate(template, parseParts(template)).match(uri, meter);
  return { variables, steps: meter.steps };
}

// A valid template has no literal braces, so each '{+' opens a reserved expression.
const countReserved = (template: string): number => template.split('{+').length - 1;

/**
 * Precedence between two templates that match the same URI; negative when `a` wins.
 *  1. more literal characters wins (the more specific template);
 *  2. then fewer `{+var}` expressions (they match more);
 *  3. then fewer variables;
 *  4. then the template string in code-unit order,
 * so sorting with this comparator never depends on the order templates were defined in.
 */
export function compareTemplatePrecedence(a: UriTemplate, b: UriTemplate): number {
  if (a.literalLength !== b.literalLength) return b.literalLength - a.literalLength;
  const reservedA = countReserved(a.template);
  const reservedB = countReserved(b.template);
  if (reservedA !== reservedB) return reservedA - reservedB;
  if (a.variables.length !== b.variables.length) return a.variables.length - b.variables.length;
  if (a.template === b.template) return 0;
  return a.template < b.template ? -1 : 1;
}
