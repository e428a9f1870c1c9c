import { JsonInt } from '@snodo/core';

/** One `x-mcp-header` argument of a tool: its value travels in `Mcp-Param-<name>` on 2026-07-28 HTTP. */
export interface ParamHeader {
  /** The annotation as written (`Region`). */
  readonly name: string;
  /** Property names from the root of `inputSchema` to the argument. */
  readonly path: readonly string[];
}

export type ToolHeaders =
  | { readonly ok: true; readonly params: readonly ParamHeader[] }
  | { readonly ok: false; readonly problem: string };

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);
// Values of these keywords are data, not subschemas: an "x-mcp-header" key inside is not an annotation.
const DATA_KEYWORDS = new Set(['default', 'const', 'enum', 'examples']);

/**
 * The `x-mcp-header` arguments of a tool's `inputSchema`, or why the tool must be dropped (SEP-2243):
 * each annotation is a non-empty RFC 9110 token, unique case-insensitively within the tool, on a
 * property of type string, integer or boolean, reached from the root through `properties` only
 * (not `items`, composition, conditionals or `$ref`).
 */
export function toolHeaders(inputSchema: unknown): ToolHeaders {
  const found: ParamHeader[] = [];
  const seen = new Set<string>();
  let problem: string | undefined;
  const walk = (schema: unknown, path: string[], reachable: boolean): void => {
    if (problem !== undefined || typeof schema !== 'object' || schema === null) return;
    if (Array.isArray(schema)) {
      for (const item of schema) walk(item, path, false);
      return;
    }
    const node = schema as Record<string, unknown>;
    if (Object.hasOwn(node, 'x-mcp-header')) {
      const name = node['x-mcp-header'];
      const where = `x-mcp-header ${JSON.stringify(name)}${path.length > 0 ? ` at /${path.join('/')}` : ''}`;
      if (!reachable || path.length === 0) {
        problem = `${where} is not on a property reached through "properties" only`;
        return;
      }
      if (typeof name !== 'string' || !TOKEN.test(name)) {
        problem = `${where} is not a non-empty HTTP token`;
        return;
      }
      if (!isHeaderType(node.type)) {
        problem = `${where} is on a property whose type is not string, integer or boolean`;
        return;
      }
      const lower = name.toLowerCase();
      if (seen.has(lower)) {
        problem = `${where} is not unique (case-insensitively)`;
        return;
      }
      seen.add(lower);
      found.push(Object.freeze({ name, path: Object.freeze([...path]) }));
    }
    for (const [key, value] of Object.entries(node)) {
      if (DATA_KEYWORDS.has(key) || key === 'x-mcp-header') continue;
      if (key === 'properties' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
        for (const [property, sub] of Object.entries(value)) walk(sub, [...path, property], reachable);
      } else walk(value, path, false);
    }
  };
  walk(inputSchema, [], true);
  return problem === undefined ? { ok: true, params: Object.freeze(found) } : { ok: false, problem };
}

function isHeaderType(type: unknown): boolean {
  if (typeof type === 'string') return HEADER_TYPES.has(type);
  if (Array.isArray(type) && type.length === 2 && type.includes('null')) {
    const other = type.find((t) => t !== 'null');
    return typeof other === 'string' && HEADER_TYPES.has(other);
  }
  return false;
}

const SENTINEL = /^=\?base64\?.*\?=$/s;

/**
 * A header value as SEP-2243 requires: the text itself when it is visible ASCII or inner spaces,
 * otherwise (non-ASCII, control characters, leading or trailing whitespace, or text that looks like
 * the sentinel) `=?base64?<base64 of UTF-8>?=`.
 */
export function encodeHeaderValue(text: string): string {
  let safe = !SENTINEL.test(text);
  if (safe && text.length > 0) {
    const first = text.charCodeAt(0);
    const last = text.charCodeAt(text.length - 1);
    if (first === 0x20 || first === 0x09 || last === 0x20 || last === 0x09) safe = false;
  }
  for (let i = 0; safe && i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) safe = false;
  }
  return safe ? text : `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}

/** The `Mcp-Param-*` headers of one call: one per annotated argument whose value is present and not null. */
export function paramHeaderValues(params: readonly ParamHeader[], args: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const param of params) {
    let value: unknown = args;
    for (const key of param.path) {
      value =
        typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, key)
          ? (value as Record<string, unknown>)[key]
          : undefined;
    }
    if (value === undefined || value === null) continue;
    let text: string;
    if (typeof value === 'string') text = value;
    else if (typeof value === 'boolean') text = value ? 'true' : 'false';
    else if (typeof value === 'number' || typeof value === 'bigint') text = String(value);
    else if (JsonInt.is(value)) text = value.literal;
    else continue; // objects and arrays are not header types; the server's validation answers
    headers[`Mcp-Param-${param.name}`] = encodeHeaderValue(text);
  }
  return headers;
}
