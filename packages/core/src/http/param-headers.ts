import { definitionError } from '../errors/table.js';
import { JsonInt } from '../json/int.js';
import type { Runtime } from '../router/runtime.js';
import { decodeHeaderValue } from './header-values.js';

/** One `x-mcp-header` argument of a tool: the client mirrors it in `Mcp-Param-<name>`. */
export interface ParamHeader {
  /** The annotation's value, as written (`Region`). */
  readonly name: string;
  /** The request header carrying it, lower-case (`mcp-param-region`). */
  readonly header: string;
  /** Property names from the root of `inputSchema` to the argument. */
  readonly path: readonly string[];
  readonly type: 'string' | 'integer' | 'boolean';
}

type Table = ReadonlyMap<string, readonly ParamHeader[]>;

// Computed once per runtime (runtimes are immutable); a failure is kept too, so a broken
// definition throws the same error every time instead of being walked again.
const TABLES = new WeakMap<Runtime, Table | Error>();

/**
 * The `x-mcp-header` arguments of every tool of `runtime`, validated once (SEP-2243 rules: a token
 * name, unique case-insensitively within the tool, on a `string`, `integer` or `boolean` property
 * reachable from the root through `properties` only). Throws `SNODO_ERR_INVALID_DEFINITION` naming
 * the tool and the rule when one is invalid: clients drop such a tool, so it is a server bug.
 */
export function paramHeadersOf(runtime: Runtime): Table {
  let table = TABLES.get(runtime);
  if (table === undefined) {
    try {
      table = buildTable(runtime);
    } catch (error) {
      table = error as Error;
    }
    TABLES.set(runtime, table);
  }
  if (table instanceof Error) throw table;
  return table;
}

function buildTable(runtime: Runtime): Table {
  const table = new Map<string, readonly ParamHeader[]>();
  for (const [name, tool] of runtime.tools) {
    const found: ParamHeader[] = [];
    walk(name, tool.input.json, [], true, found);
    if (found.length > 0) table.set(name, Object.freeze(found));
  }
  return table;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);
// Keywords whose values are data, not subschemas: an "x-mcp-header" key inside them is not an annotation.
const DATA_KEYWORDS = new Set(['default', 'const', 'enum', 'examples']);

function walk(tool: string, schema: unknown, path: string[], reachable: boolean, found: ParamHeader[]): void {
  if (typeof schema !== 'object' || schema === null) return;
  if (Array.isArray(schema)) {
    for (const item of schema) walk(tool, item, path, false, found);
    return;
  }
  const node = schema as Record<string, unknown>;
  if ('x-mcp-header' in node) annotation(tool, node, path, reachable, found);
  for (const [key, value] of Object.entries(node)) {
    if (DATA_KEYWORDS.has(key) || key === 'x-mcp-header') continue;
    if (key === 'properties' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const [property, sub] of Object.entries(value))
        walk(tool, sub, [...path, property], reachable, found);
    } else {
      walk(tool, value, path, false, found);
    }
  }
}

function annotation(
  tool: string,
  node: Record<string, unknown>,
  path: string[],
  reachable: boolean,
  found: ParamHeader[],
): void {
  const name = node['x-mcp-header'];
  const where = `tool "${tool}": x-mcp-header ${JSON.stringify(name)}${path.length > 0 ? ` at /${path.join('/')}` : ''}`;
  if (!reachable || path.length === 0) {
    throw definitionError(
      `${where} must annotate a property reached from the root through "properties" only`,
    );
  }
  if (typeof name !== 'string' || !TOKEN.test(name)) {
    throw definitionError(`${where} must be a non-empty HTTP token (letters, digits, !#$%&'*+-.^_\`|~)`);
  }
  const type = headerType(node.type);
  if (type === undefined) {
    throw definitionError(
      `${where} must annotate a property of type string, integer or boolean (not number)`,
    );
  }
  const header = `mcp-param-${name.toLowerCase()}`;
  if (found.some((other) => other.header === header)) {
    throw definitionError(`${where} is not unique (names compare case-insensitively)`);
  }
  found.push(Object.freeze({ name, header, path: Object.freeze([...path]), type }));
}

function headerType(type: unknown): ParamHeader['type'] | undefined {
  if (typeof type === 'string') return HEADER_TYPES.has(type) ? (type as ParamHeader['type']) : undefined;
  // ["string", "null"]: nullable; a null value simply sends no header.
  if (Array.isArray(type) && type.length === 2 && type.includes('null')) {
    const other = type.find((t) => t !== 'null');
    return typeof other === 'string' && HEADER_TYPES.has(other) ? (other as ParamHeader['type']) : undefined;
  }
  return undefined;
}

/**
 * Checks the `Mcp-Param-*` headers of one `tools/call` against its arguments. Returns the problem
 * (for a -32020 HeaderMismatch) or undefined. An argument that is absent or null must have no
 * header; a present one must have its header, equal after decoding (integers compared as numbers).
 * Arguments of the wrong type are left to argument validation (-32602).
 */
export function paramHeaderProblem(
  params: readonly ParamHeader[],
  args: unknown,
  headers: Readonly<Record<string, string | undefined>>,
): string | undefined {
  for (const param of params) {
    const value = valueAt(args, param.path);
    const raw = headers[param.header];
    const label = `Mcp-Param-${param.name}`;
    if (value === undefined || value === null) {
      if (raw !== undefined) return `${label} header is present but argument /${param.path.join('/')} is not`;
      continue;
    }
    if (raw === undefined) return `${label} header is required: argument /${param.path.join('/')} is present`;
    const text = decodeHeaderValue(raw);
    if (text === undefined) return `${label} header is not valid =?base64?…?= (canonical base64 of UTF-8)`;
    if (!sameValue(text, value)) return `${label} header does not match argument /${param.path.join('/')}`;
  }
  return undefined;
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
    node = Object.hasOwn(node, key) ? (node as Record<string, unknown>)[key] : undefined;
  }
  return node;
}

function sameValue(text: string, value: unknown): boolean {
  switch (typeof value) {
    case 'string':
      return text === value;
    case 'boolean':
      return text === (value ? 'true' : 'false');
    case 'number':
      // "42.0" and "42" both name 42; "" and "0x2a" name nothing.
      return (
        /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/.test(text) && Number(text) === value
      );
    default:
      if (JsonInt.is(value)) return /^[+-]?[0-9]+$/.test(text) && BigInt(text) === value.toBigInt();
      return true; // an object or array: not a header type, argument validation refuses it
  }
}
