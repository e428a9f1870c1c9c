import {
  type DispatchContext,
  dispatch,
  type JsonRpcMessage,
  type Outcome,
  type Runtime,
} from '../../src/index.js';

export interface Ran {
  outcome: Outcome;
  /** Notifications the request streamed before its response. */
  notifications: JsonRpcMessage[];
  /** The final response (undefined for notifications). */
  response: any;
}

/** Dispatches one message and collects what it produced. */
export async function run(runtime: Runtime, message: unknown, context: DispatchContext = {}): Promise<Ran> {
  const outcome = await dispatch(runtime, message, context);
  if (outcome.type === 'response') return { outcome, notifications: [], response: outcome.message };
  if (outcome.type === 'stream') {
    const all: JsonRpcMessage[] = [];
    for await (const item of outcome.messages) all.push(item);
    const response = all.pop();
    return { outcome, notifications: all, response };
  }
  return { outcome, notifications: [], response: undefined };
}
