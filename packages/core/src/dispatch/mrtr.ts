import { ErrorCode } from '../errors/codes.js';
import { ProtocolError } from '../errors/protocol-error.js';
import type { Runtime } from '../router/runtime.js';
import type { RequestTrace } from '../telemetry/request-trace.js';
import type { DispatchContext } from './dispatch.js';
import { InputRequiredSignal } from './input.js';
import type { Operation, OperationCalls } from './operation.js';
import { canonicalJson, digest, originalParams, signState, verifyState } from './request-state.js';
import type { Selection } from './select.js';

/**
 * Runs a method that may ask for input. On 2026-07-28 (MRTR) it verifies a retry's `requestState`,
 * merges the answers of earlier rounds with this retry's `inputResponses`, runs the handler, and
 * turns an input request into `resultType: "input_required"` with a freshly signed `requestState`.
 * On the initialize-based revisions input goes through the transport's channel instead.
 */
export function runWithInput(
  runtime: Runtime,
  method: string,
  params: Record<string, unknown>,
  context: DispatchContext,
  selected: Selection,
  operation: Operation,
  calls: OperationCalls,
  trace?: RequestTrace,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  if (selected.dialect.era !== 'modern') return operation(calls.call({ responses: {}, state: undefined }));
  if (params.requestState !== undefined || params.inputResponses !== undefined) {
    return retry(runtime, method, params, context, operation, calls, trace);
  }
  // A first round, the commonest request: nothing to verify or merge, so no async frame or
  // closures beyond the one that turns an input request into `input_required`.
  const responses: Record<string, unknown> = {};
  const asked = (error: unknown) =>
    inputRequired(runtime, method, params, context, error, 0, responses, undefined, trace);
  try {
    const result = operation(calls.call({ responses, state: undefined }));
    return typeof (result as PromiseLike<unknown>).then === 'function'
      ? Promise.resolve(result).catch(asked)
      : result;
  } catch (error) {
    return asked(error);
  }
}

/** A retry carrying a `requestState` or `inputResponses`. */
async function retry(
  runtime: Runtime,
  method: string,
  params: Record<string, unknown>,
  context: DispatchContext,
  operation: Operation,
  calls: OperationCalls,
  trace: RequestTrace | undefined,
): Promise<Record<string, unknown>> {
  const { mrtr } = runtime;
  let round = 0;
  let gathered: Record<string, unknown> = {};
  let state: unknown;
  let binding: Binding | undefined;
  if (params.requestState !== undefined) {
    binding = await bindingOf(method, params, context);
    const verified = await verifyState(await mrtr.keys, params.requestState, {
      method,
      ...binding,
      now: Date.now(),
    });
    if (typeof verified === 'string') throw ProtocolError.invalidParams(`Invalid requestState: ${verified}`);
    round = verified.n;
    gathered = verified.r;
    state = verified.s;
  }
  const answers = params.inputResponses;
  if (answers !== undefined && (typeof answers !== 'object' || answers === null || Array.isArray(answers))) {
    throw ProtocolError.invalidParams('inputResponses must be an object');
  }
  const responses = answers ? { ...gathered, ...(answers as Record<string, unknown>) } : gathered;
  try {
    const result = await operation(calls.call({ responses, state }));
    // A result computed from input answers is not cacheable (the client must not cache it either).
    // A task handle is no such result: its ttlMs is the task's lifetime (Tasks extension).
    const fromAnswers = (round > 0 || answers !== undefined) && result.resultType !== 'task';
    return fromAnswers ? { ...result, ttlMs: 0, cacheScope: 'private' } : result;
  } catch (error) {
    return inputRequired(runtime, method, params, context, error, round, responses, binding, trace);
  }
}

interface Binding {
  digest: string;
  principal: string;
}

/** What a requestState is bound to: the original request's digest and the caller's principal. */
async function bindingOf(
  method: string,
  params: Record<string, unknown>,
  context: DispatchContext,
): Promise<Binding> {
  return {
    digest: await digest(`${method}\n${canonicalJson(originalParams(params))}`),
    principal: await digest(`principal\n${context.auth?.principal ?? ''}`),
  };
}

/**
 * Turns the handler's input request (an InputRequiredSignal) into `resultType: "input_required"`
 * with a freshly signed `requestState`; rethrows any other error.
 */
async function inputRequired(
  runtime: Runtime,
  method: string,
  params: Record<string, unknown>,
  context: DispatchContext,
  error: unknown,
  round: number,
  responses: Record<string, unknown>,
  binding?: Binding,
  trace?: RequestTrace,
): Promise<Record<string, unknown>> {
  if (!(error instanceof InputRequiredSignal)) throw error;
  const { mrtr } = runtime;
  if (round + 1 > mrtr.maxRounds) {
    throw new ProtocolError(
      ErrorCode.InvalidRequest,
      `Too many input rounds (${mrtr.maxRounds}) for ${method}`,
    );
  }
  const expected = binding ?? (await bindingOf(method, params, context));
  const requestState = await signState(await mrtr.keys, {
    v: 1,
    m: method,
    d: expected.digest,
    p: expected.principal,
    e: Date.now() + mrtr.stateTtlMs,
    n: round + 1,
    r: responses,
    ...(error.state === undefined ? {} : { s: error.state }),
  });
  trace?.inputRound(round + 1, error.requests);
  const result: Record<string, unknown> = { resultType: 'input_required', requestState };
  if (Object.keys(error.requests).length > 0) result.inputRequests = error.requests;
  return result;
}
