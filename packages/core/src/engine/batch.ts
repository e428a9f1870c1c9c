import { dialectFor } from '../dialects/registry.js';
import { type DispatchContext, dispatch } from '../dispatch/dispatch.js';
import type { Outcome } from '../dispatch/outcome.js';
import type { Session } from '../dispatch/session.js';
import { ERROR_TABLE, ErrorCode } from '../errors/codes.js';
import { ProtocolError } from '../errors/protocol-error.js';
import type { SubmitOptions } from '../executor/executor.js';
import type { RequestId } from '../json/int.js';
import type { DecodedSingle } from '../jsonrpc/decode.js';
import { errorResponse, type JsonRpcErrorObject, type JsonRpcResponse } from '../jsonrpc/types.js';
import { DEFAULT_MAX_BATCH_ITEMS } from '../limits/defaults.js';
import type { Runtime } from '../router/runtime.js';
import { type Admission, type RunnableRequest, runRequest } from './run.js';

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
  const batch: BatchRun = { runtime, context, session: context.session, admission: { submit: admit } };
  const responses = await Promise.all(
    items.map((item): Promise<JsonRpcResponse | undefined> | JsonRpcResponse | undefined => {
      if (item.kind !== 'request') return runOther(batch, item);
      if (item.method === 'initialize') {
        return errorResponse(item.id, {
          code: ErrorCode.InvalidRequest,
          message: 'initialize must not be part of a JSON-RPC batch',
        });
      }
      const run = new BatchItem(batch, item);
      return runRequest(batch.admission, run, NO_OPTIONS).then(() => run.response);
    }),
  );
  const kept = responses.filter((response): response is JsonRpcResponse => response !== undefined);
  const { session } = batch;
  return session === context.session ? { responses: kept } : { responses: kept, session };
}

/** What the items of one batch share: the session as the items before them left it. */
interface BatchRun {
  readonly runtime: Runtime;
  readonly context: DispatchContext;
  session: Session | undefined;
  readonly admission: Admission;
}

/** A notification (or a client's response) in a batch: dispatched at once, answered by nothing. */
async function runOther(batch: BatchRun, item: DecodedSingle): Promise<undefined> {
  const outcome = await dispatch(batch.runtime, item, { ...batch.context, session: batch.session });
  if ('session' in outcome && outcome.session) batch.session = outcome.session;
  return undefined;
}

/**
 * One request item of a batch, run by the engine like a single request. The notifications it
 * streams (progress) are dropped, since a JSON batch response has no place for them.
 */
class BatchItem implements RunnableRequest {
  response: JsonRpcResponse | undefined;

  constructor(
    readonly batch: BatchRun,
    readonly item: Extract<DecodedSingle, { kind: 'request' }>,
  ) {}

  get id(): RequestId {
    return this.item.id;
  }

  dispatch(signal: AbortSignal): Promise<Outcome> {
    const { batch } = this;
    // The session as the items before it left it when it starts.
    return dispatch(batch.runtime, this.item, { ...batch.context, session: batch.session, signal });
  }

  adopt(outcome: Outcome): void {
    if ('session' in outcome && outcome.session) this.batch.session = outcome.session;
  }

  push(): void {}

  end(response: JsonRpcResponse): void {
    this.response ??= response;
  }

  abandon(): void {}

  settled(): void {}
}

/** A batch item's deadline and signal are the host's `admit`'s to give. */
const NO_OPTIONS: SubmitOptions = Object.freeze({});
const NEVER_ABORTED = new AbortController().signal;
