import { dialectFor } from '../dialects/registry.js';
import { ERROR_TABLE, ErrorCode } from '../errors/codes.js';
import { executorWireError } from '../errors/executor-errors.js';
import { ProtocolError } from '../errors/protocol-error.js';
import type { DecodedSingle } from '../jsonrpc/decode.js';
import {
  errorResponse,
  type JsonRpcErrorObject,
  type JsonRpcMessage,
  type JsonRpcResponse,
} from '../jsonrpc/types.js';
import { DEFAULT_MAX_BATCH_ITEMS } from '../limits/defaults.js';
import type { Runtime } from '../router/runtime.js';
import { type DispatchContext, dispatch } from './dispatch.js';
import type { Session } from './session.js';

export interface BatchOutcome {
  /** One response per request of the batch, in order; empty when the batch held only notifications and responses. */
  readonly responses: JsonRpcResponse[];
  readonly session?: Session;
  /**
   * The batch as a whole was refused (a revision without batches, no session, over
   * `maxBatchItems`): `responses` holds its one -32600 error, to be sent alone, not in an array
   * (JSON-RPC answers an invalid batch with a single response).
   */
  readonly refused?: true;
}

/**
 * Runs `task` for one request item of a batch, with the signal to hand to its handler, and settles
 * with the task's result; rejects (an `ExecutorError`) when the item is refused, times out or is
 * cancelled. Hosts pass their executor's `submit`.
 */
export type BatchAdmit = <T>(task: (signal: AbortSignal) => Promise<T>) => Promise<T>;

export interface BatchOptions {
  /** Items the batch may hold, notifications included; over it the batch gets one -32600 and nothing runs. Default 100. */
  readonly maxBatchItems?: number;
  /**
   * Admits each request item like a single request (`(task) => executor.submit(task, ...)`): an
   * item over the executor's bounds is answered with its own error (-32000, -32001) while the
   * others go on. Called for the request items in order, before `dispatchBatch` first awaits, so
   * a host that waits for room in `admit` holds the whole batch back. Default: every item runs at
   * once, bounded only by `maxBatchItems`.
   */
  readonly admit?: BatchAdmit;
}

/** The -32600 error for a batch of `count` items over `maxBatchItems`, or undefined when it fits. */
export function oversizedBatchError(count: number, maxBatchItems: number): JsonRpcErrorObject | undefined {
  if (count <= maxBatchItems) return undefined;
  return {
    code: ErrorCode.InvalidRequest,
    message: `${ERROR_TABLE[ErrorCode.InvalidRequest].message}: batch of ${count} items exceeds maxBatchItems (${maxBatchItems})`,
    data: { maxBatchItems },
  };
}

/**
 * Runs a JSON-RPC batch. Batches exist only in 2025-03-26: a batch on any other revision (or with no
 * session) is answered with one -32600 error, and `initialize` inside a batch is refused.
 * Request items run concurrently, each admitted through `options.admit`; notifications in the
 * batch produce no response; notifications a request streams (progress) are dropped, since a JSON
 * batch response has no place for them. An item's handler sees the session as the items before it
 * left it when it starts.
 */
export async function dispatchBatch(
  runtime: Runtime,
  items: readonly DecodedSingle[],
  context: DispatchContext = {},
  options: BatchOptions = {},
): Promise<BatchOutcome> {
  const dialect = context.session ? dialectFor(context.session.protocolVersion) : undefined;
  if (!dialect?.batches || !runtime.versions.includes(dialect.version)) {
    const error = ProtocolError.invalidRequest(
      'JSON-RPC batches are accepted only on protocol revision 2025-03-26',
    );
    return { responses: [errorResponse(null, { code: error.code, message: error.message })], refused: true };
  }
  const tooMany = oversizedBatchError(items.length, options.maxBatchItems ?? DEFAULT_MAX_BATCH_ITEMS);
  if (tooMany) return { responses: [errorResponse(null, tooMany)], refused: true };
  const admit: BatchAdmit = options.admit ?? ((task) => task(context.signal ?? NEVER_ABORTED));
  let session = context.session;

  const run = async (item: DecodedSingle, signal?: AbortSignal): Promise<JsonRpcResponse | undefined> => {
    const itemContext = { ...context, session };
    if (signal !== undefined) itemContext.signal = signal;
    const outcome = await dispatch(runtime, item, itemContext);
    if ('session' in outcome && outcome.session) session = outcome.session;
    if (outcome.type === 'response') return outcome.message;
    if (outcome.type === 'stream') return lastResponse(outcome.messages);
    return undefined;
  };
  const responses = await Promise.all(
    items.map((item): Promise<JsonRpcResponse | undefined> => {
      if (item.kind !== 'request') return run(item);
      if (item.method === 'initialize') {
        return Promise.resolve(
          errorResponse(item.id, {
            code: ErrorCode.InvalidRequest,
            message: 'initialize must not be part of a JSON-RPC batch',
          }),
        );
      }
      return admit((signal) => run(item, signal)).catch((error: unknown) => {
        const wire = executorWireError(error);
        return wire === undefined ? undefined : errorResponse(item.id, wire);
      });
    }),
  );
  const kept = responses.filter((response): response is JsonRpcResponse => response !== undefined);
  return session === context.session ? { responses: kept } : { responses: kept, session };
}

const NEVER_ABORTED = new AbortController().signal;

async function lastResponse(messages: AsyncIterable<JsonRpcMessage>): Promise<JsonRpcResponse | undefined> {
  let last: JsonRpcMessage | undefined;
  for await (const message of messages) last = message;
  return last && 'id' in last ? (last as JsonRpcResponse) : undefined;
}
