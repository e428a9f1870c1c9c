import type { ConnectionOutput } from '../../src/engine/connection.js';
import {
  type DispatchContext,
  dispatch,
  type JsonRpcMessage,
  type Outcome,
  type Runtime,
} from '../../src/index.js';
import { expectResponse } from './wire-schema.js';

export interface Ran {
  outcome: Outcome;
  /** Notifications the request streamed before its response. */
  notifications: JsonRpcMessage[];
  /** The final response (undefined for notifications). */
  response: any;
}

/**
 * Dispatches one message and collects what it produced. Every response to a request whose revision
 * is known (its `_meta` version, the session's, or the one `initialize` negotiated) is checked
 * against that revision's official schema, so no test can pass on a wire-invalid answer.
 */
export async function run(runtime: Runtime, message: unknown, context: DispatchContext = {}): Promise<Ran> {
  const outcome = await dispatch(runtime, message, context);
  let ran: Ran;
  if (outcome.type === 'response') ran = { outcome, notifications: [], response: outcome.message };
  else if (outcome.type === 'stream') {
    const all: JsonRpcMessage[] = [];
    for await (const item of outcome.messages) all.push(item);
    const response = all.pop();
    ran = { outcome, notifications: all, response };
  } else ran = { outcome, notifications: [], response: undefined };
  checkWire(message, context, ran.response);
  return ran;
}

const REVISIONS = new Set(['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26']);

function checkWire(message: unknown, context: DispatchContext, response: any): void {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return;
  const { method, params } = message as { method?: unknown; params?: any };
  if (typeof method !== 'string' || typeof response !== 'object' || response === null) return;
  if (Array.isArray(response)) return; // batches are checked by their own tests
  // Unattributable errors (id null), and int64 ids held exactly in process (JsonInt, not yet JSON).
  if (typeof response.id !== 'string' && typeof response.id !== 'number') return;
  // initialize is initialize-based whatever its _meta says: the revision is the negotiated one.
  const revision =
    (method === 'initialize' ? response.result?.protocolVersion : undefined) ??
    params?._meta?.['io.modelcontextprotocol/protocolVersion'] ??
    (context.session as { protocolVersion?: string } | undefined)?.protocolVersion;
  if (typeof revision === 'string' && REVISIONS.has(revision)) expectResponse(revision, method, response);
}

/** A connection's output that never blocks and records every message it is given (a batch's one by one). */
export function recordingOutput(): { output: ConnectionOutput; written: JsonRpcMessage[] } {
  const written: JsonRpcMessage[] = [];
  const output: ConnectionOutput = {
    write: (message) => {
      written.push(...(Array.isArray(message) ? message : [message]));
      return true;
    },
    ready: () => Promise.resolve(),
    blocked: false,
  };
  return { output, written };
}
