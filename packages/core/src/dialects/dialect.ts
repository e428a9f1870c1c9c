import type { ProtocolError } from '../errors/protocol-error.js';
import type { JsonRpcErrorObject } from '../jsonrpc/types.js';
import type { CacheScope, Implementation, ProtocolVersion } from '../protocol/types.js';

export type Era = 'modern' | 'legacy';

export interface MethodSpec {
  readonly kind: 'request' | 'notification';
  /** Complete results carry `ttlMs`/`cacheScope` (2026-07-28). */
  readonly cacheable?: boolean;
  /** The method may answer `resultType: "input_required"` (2026-07-28 MRTR). */
  readonly inputRequired?: boolean;
}

export type ToolArgumentFailure = 'tool-error' | 'protocol-error';

/** The three outcomes of asking a revision about a method. */
export type MethodClass = 'ok' | 'absent' | 'invalid';

/** What a dialect needs from the runtime to shape a result. */
export interface Shaping {
  readonly serverInfo: Implementation;
  readonly ttlMs: number;
  readonly cacheScope: CacheScope;
}

/**
 * One protocol revision: which methods exist, how requests of that revision are checked, and how
 * protocol-neutral results and errors are shaped for its wire. Adding a revision means adding one
 * module that implements this interface and registering it.
 */
export interface Dialect {
  readonly version: ProtocolVersion;
  readonly era: Era;
  /** JSON-RPC batches are accepted (2025-03-26 only). */
  readonly batches: boolean;
  /** The server-to-client requests a handler may make on this revision (2025-03-26 has no elicitation). */
  readonly inputMethods: ReadonlySet<string>;
  /**
   * How `tools/call` answers arguments that fail the tool's input schema: a `CallToolResult` with
   * `isError: true` and the validation message as text, which a model can read and retry on
   * (SEP-1303, 2025-11-25 on), or the protocol error -32602 (2025-06-18 and 2025-03-26).
   */
  readonly invalidToolArguments: ToolArgumentFailure;
  readonly methods: ReadonlyMap<string, MethodSpec>;
  classify(method: string, kind: 'request' | 'notification'): MethodClass;
  /** Shapes a neutral result of `method` for this wire. Never mutates its input. */
  shapeResult(method: string, result: Record<string, unknown>, shaping: Shaping): Record<string, unknown>;
  shapeError(error: ProtocolError): JsonRpcErrorObject;
}

export const ALL_INPUT_METHODS: ReadonlySet<string> = new Set([
  'elicitation/create',
  'sampling/createMessage',
  'roots/list',
]);

export function classifyWith(
  methods: ReadonlyMap<string, MethodSpec>,
  method: string,
  kind: 'request' | 'notification',
): MethodClass {
  const spec = methods.get(method);
  if (!spec) return 'absent';
  return spec.kind === kind ? 'ok' : 'invalid';
}

export function errorObject(error: ProtocolError, code = error.code): JsonRpcErrorObject {
  return error.data === undefined
    ? { code, message: error.message }
    : { code, message: error.message, data: error.data };
}
