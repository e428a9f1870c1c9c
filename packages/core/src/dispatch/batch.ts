import { dialectFor } from '../dialects/registry.js';
import { ProtocolError } from '../errors/protocol-error.js';
import type { DecodedSingle } from '../jsonrpc/decode.js';
import { errorResponse, type JsonRpcMessage, type JsonRpcResponse } from '../jsonrpc/types.js';
import type { Runtime } from '../router/runtime.js';
import { type DispatchContext, dispatch } from './dispatch.js';
import type { Session } from './session.js';

export interface BatchOutcome {
  /** One response per request of the batch, in order; empty when the batch held only notifications and responses. */
  readonly responses: JsonRpcResponse[];
  readonly session?: Session;
}

/**
 * Runs a JSON-RPC batch. Batches exist only in 2025-03-26: a batch on any other revision (or with no
 * session) is answered with one -32600 error, and `initialize` inside a batch is refused.
 * Requests run concurrently; notifications in the batch produce no response; notifications a
 * request streams (progress) are dropped, since a JSON batch response has no place for them.
 */
export async function dispatchBatch(
  runtime: Runtime,
  items: readonly DecodedSingle[],
  context: DispatchContext = {},
): Promise<BatchOutcome> {
  const dialect = context.session ? dialectFor(context.session.protocolVersion) : undefined;
  if (!dialect?.batches || !runtime.versions.includes(dialect.version)) {
    const error = ProtocolError.invalidRequest(
      'JSON-RPC batches are accepted only on protocol revision 2025-03-26',
    );
    return { responses: [errorResponse(null, { code: error.code, message: error.message })] };
  }
  let session = context.session;
  const responses = await Promise.all(
    items.map(async (item): Promise<JsonRpcResponse | undefined> => {
      if (item.kind === 'request' && item.method === 'initialize') {
        return errorResponse(item.id, {
          code: -32600,
          message: 'initialize must not be part of a JSON-RPC batch',
        });
      }
      const outcome = await dispatch(runtime, item, { ...context, session });
      if ('session' in outcome && outcome.session) session = outcome.session;
      if (outcome.type === 'response') return outcome.message;
      if (outcome.type === 'stream') return lastResponse(outcome.messages);
      return undefined;
    }),
  );
  const kept = responses.filter((response): response is JsonRpcResponse => response !== undefined);
  return session === context.session ? { responses: kept } : { responses: kept, session };
}

async function lastResponse(messages: AsyncIterable<JsonRpcMessage>): Promise<JsonRpcResponse | undefined> {
  let last: JsonRpcMessage | undefined;
  for await (const message of messages) last = message;
  return last && 'id' in last ? (last as JsonRpcResponse) : undefined;
}
