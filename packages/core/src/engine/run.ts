import type { Outcome } from '../dispatch/outcome.js';
import { type Executor, type JobOptions, type JobSignal, submitJob } from '../executor/executor.js';
import type { RequestId } from '../json/int.js';
import { errorResponse, isResponse, type JsonRpcMessage, type JsonRpcResponse } from '../jsonrpc/types.js';
import { type RefusalReason, refusalReason, refusalWireError } from './refusal.js';

/**
 * Where one request's messages go, in order: its notifications (progress, log messages,
 * server→client requests), then one answer, or none. The connection engine writes them to its
 * output; HTTP answers the response alone as JSON, or opens a bounded `MessageStream` at the first
 * notification and serves it as SSE.
 */
export interface RequestSink {
  /** A notification of the request. A returned promise holds the request back until it settles (backpressure). */
  push(message: JsonRpcMessage): void | boolean | Promise<void>;
  /**
   * The request's answer; `refused` is set when the engine answers instead of the handler (HTTP
   * picks the status by it). Calls after the first answer or `abandon` are ignored.
   */
  end(response: JsonRpcResponse, refused?: RefusalReason): void | Promise<void>;
  /** No answer is due: the client cancelled or left (or the handler produced none). */
  abandon(): void;
}

/**
 * One request as the engine runs it: the adapter's context and session, the engine's admission and
 * delivery. `S` is what the admission hands the task for its cancellation (an AbortSignal from an
 * `Executor`); the engine reads only its `aborted`.
 */
export interface RunnableRequest<S extends Aborted = AbortSignal> extends RequestSink {
  readonly id: RequestId;
  /** Dispatches the request with the task's signal (the adapter's context: session, auth, channel). */
  dispatch(signal: S): Promise<Outcome>;
  /**
   * The outcome is known, before any of it is delivered: adopt or store its session here (awaited,
   * so a changed session is stored before the answer is released), take a subscription.
   */
  adopt(outcome: Outcome, signal: S): void | Promise<void>;
  /**
   * The run is over: with its outcome once the task returned, or with the error the executor (or
   * the run) failed with, after the sink got the answer the refusal mapping gives.
   */
  settled(outcome: Outcome | undefined, error: unknown): void;
}

/** What admits a task with its deadline and outside signal: an `Executor`, or a connection that paces. */
export interface Admission<S extends Aborted = AbortSignal> {
  submit<T>(task: (signal: S) => Promise<T>, options: JobOptions): Promise<T>;
}

const admissions = new WeakMap<Executor, Admission<JobSignal>>();

/**
 * An executor as an admission whose tasks get their job (`JobSignal`): its AbortSignal is made
 * only when something reads it (`submitJob`). One per executor.
 */
export function executorAdmission(executor: Executor): Admission<JobSignal> {
  let admission = admissions.get(executor);
  if (admission === undefined) {
    admission = { submit: (task, options) => submitJob(executor, task, options) };
    admissions.set(executor, admission);
  }
  return admission;
}

/** What delivery reads of a request's cancellation (its job, a LazySignal): never the AbortSignal itself. */
export interface Aborted {
  readonly aborted: boolean;
}

/**
 * Runs one request: admitted with `options` (deadline, outside signal, owner), dispatched,
 * adopted, and delivered to its sink; resolves once it has settled (never rejects).
 *
 *   admit ─► dispatch ─► adopt ─► response ──────────────────────► end(response)
 *                                 stream: push(n)… ─► end(response)        (the task holds its slot
 *                                 subscription / none: the adapter's       until the handler is done)
 *   refused / deadline / cancel / failure ─► refusal mapping ─► end(error, reason) | abandon()
 *
 * After the task's signal aborted (cancel, deadline, teardown) nothing more of the handler's
 * messages reaches the sink: the deadline's -32001 (or the refusal's error) is its last word, and a
 * cancel leaves it without one.
 */
export async function runRequest<S extends Aborted>(
  admission: Admission<S>,
  request: RunnableRequest<S>,
  options: JobOptions,
): Promise<void> {
  let outcome: Outcome;
  try {
    outcome = await admission.submit((signal) => execute(request, signal), options);
  } catch (error) {
    refuse(request, request.id, refusalReason(error));
    request.settled(undefined, error);
    return;
  }
  request.settled(outcome, undefined);
}

/** The task: dispatch, then adopt and deliver, waiting only on what returns a promise. */
function execute<S extends Aborted>(request: RunnableRequest<S>, signal: S): Promise<Outcome> {
  return request.dispatch(signal).then((outcome) => {
    const adopted = request.adopt(outcome, signal);
    if (adopted !== undefined) return adopted.then(() => delivered(outcome, request, signal));
    return delivered(outcome, request, signal);
  });
}

function delivered<S extends Aborted>(
  outcome: Outcome,
  request: RunnableRequest<S>,
  signal: S,
): Outcome | Promise<Outcome> {
  const delivery = deliver(outcome, request, signal);
  return delivery === undefined ? outcome : delivery.then(() => outcome);
}

/**
 * Delivers a response or stream outcome to `sink`, in order; nothing once `signal` aborted. A
 * stream is read to its end even then: whoever awaits this holds the request's executor slot until
 * the handler is done.
 */
export function deliver(outcome: Outcome, sink: RequestSink, signal: Aborted): void | Promise<void> {
  if (outcome.type === 'response') return signal.aborted ? undefined : sink.end(outcome.message);
  if (outcome.type === 'stream') return relay(outcome.messages, sink, signal);
}

async function relay(
  messages: AsyncIterable<JsonRpcMessage>,
  sink: RequestSink,
  signal: Aborted,
): Promise<void> {
  let answered = false;
  for await (const message of messages) {
    if (signal.aborted) continue;
    let written: void | boolean | Promise<void>;
    if (isResponse(message)) {
      answered = true;
      written = sink.end(message);
    } else written = sink.push(message);
    if (typeof written === 'object') await written;
  }
  if (!answered && !signal.aborted) sink.abandon();
}

/** Ends `sink` with the error `reason` maps to, or leaves it unanswered (a cancel): the one refusal mapping. */
export function refuse(sink: RequestSink, id: RequestId, reason: RefusalReason): void {
  const wire = refusalWireError(reason);
  if (wire === undefined) sink.abandon();
  else void sink.end(errorResponse(id, wire), reason);
}
