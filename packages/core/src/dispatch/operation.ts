import type { Runtime } from '../router/runtime.js';
import type { AuthInfo, HandlerContext } from './context.js';
import type { InputRound } from './handler-context.js';
import type { Selection } from './select.js';

/** One call of a core operation: the neutral side of a request, after selection and inspection. */
export interface OperationCall {
  readonly runtime: Runtime;
  /** The request's params (`{}` when absent). */
  readonly params: Record<string, unknown>;
  readonly context: HandlerContext;
  readonly selection: Selection;
  readonly auth: AuthInfo | undefined;
  /** `DispatchContext.connectionId`: the connection or session the request came on, if any. */
  readonly connectionId: string | undefined;
  /** The scopes list results are filtered by (`DispatchContext.grantedScopes`); undefined: no filtering. */
  readonly grantedScopes: ReadonlySet<string> | undefined;
}

/** A core operation returns a protocol-neutral result; the selected dialect shapes it for the wire. */
export type Operation = (call: OperationCall) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** Makes a request's call of its operation, for one round of input (2026-07-28 MRTR) or none. */
export interface OperationCalls {
  call(inputRound: InputRound | undefined): OperationCall;
}
