import { randomUUID } from 'node:crypto';
import type { CallOptions, Client } from '@snodo/client';
import { ClientRequestError, type HandlerContext, type InputRequest, ProtocolError } from '@snodo/core';
import { type Backend, unavailable } from '../backend.js';
import { Exchange, type ParkedExchanges, type PendingInput } from '../exchange.js';
import type { Owner } from '../principal.js';
import type { BackendSession, Route } from '../sessions.js';

/** Sends the request to the backend's client with these options (signal, progress, MRTR retry). */
export type Send = (client: Client, options: CallOptions) => Promise<Record<string, unknown>>;

export interface Forwarding {
  readonly backend: Backend;
  /** How errors name the target: `tool "files.read"`. */
  readonly what: string;
  /** Whose backend session the call runs on (per-principal backends). */
  readonly owner: Owner;
  readonly context: HandlerContext;
  readonly parked: ParkedExchanges;
  readonly maxInputRounds: number;
  /** The owner's session to run on while it is open (the one that handed out the resource read). */
  readonly session?: BackendSession | undefined;
  /**
   * The backend call's deadline instead of its client's `timeout` (0: none): a call that may
   * become a task is bounded by the request's deadline, then by the task's.
   */
  readonly timeout?: number;
}

const MODERN = '2026-07-28';

/** A backend's result, and where it ran (links from a principal's own session are its own). */
export interface Forwarded {
  readonly result: Record<string, unknown>;
  readonly route: Route;
}

/**
 * Forwards a request that may ask for input (tools/call, prompts/get, resources/read), whatever
 * the revisions on either side:
 * - a 2026-07-28 backend answers `input_required`: its input requests go to the frontend through
 *   `ctx.input` (MRTR again for a 2026-07-28 frontend, server-initiated requests for an
 *   initialize-based one) and the answers back in the backend's retry, with its `requestState`;
 * - an initialize-based backend sends server-initiated requests during the call: for an
 *   initialize-based frontend they go to it at once; for a 2026-07-28 one the call is parked and
 *   the round ends with `input_required`, and the frontend's retry delivers the answer.
 */
export function forward(forwarding: Forwarding, send: Send): Promise<Forwarded> {
  const state = forwarding.context.state as Record<string, unknown> | undefined;
  if (state && typeof state.p === 'string') return legacyBackend(forwarding, send);
  if (state && typeof state.q === 'object') return modernBackend(forwarding, send);
  const client = forwarding.backend.client;
  if (!client) return Promise.reject(unavailable(forwarding.what));
  return client.era === 'modern' ? modernBackend(forwarding, send) : legacyBackend(forwarding, send);
}

function progressOf(context: HandlerContext): CallOptions['onProgress'] {
  if (!context.canReportProgress) return undefined;
  return (progress) => {
    try {
      context.progress(progress.progress, progress.total, progress.message);
    } catch {
      // A backend whose progress does not increase: that report is dropped.
    }
  };
}

// ---- 2026-07-28 backends: MRTR rounds, translated -------------------------------------------

/** What a round keeps in the frontend's `requestState` (signed by core): the backend's round. */
interface RoundState {
  /** The backend's `requestState`, echoed to it exactly. */
  s?: string;
  /** Frontend key → the backend's key and request. */
  q: Record<string, { b: string; m: InputRequest['method']; p?: Record<string, unknown> }>;
  /** Keys the frontend has been asked, every round (core keeps earlier answers: never reuse one). */
  u: string[];
}

function roundState(value: unknown): RoundState | undefined {
  const state = value as RoundState | undefined;
  if (!state || typeof state.q !== 'object' || state.q === null || !Array.isArray(state.u)) return undefined;
  return state;
}

function requestsOf(state: RoundState): Record<string, InputRequest> {
  return Object.fromEntries(
    Object.entries(state.q).map(([key, q]) => [
      key,
      q.p === undefined ? { method: q.m } : { method: q.m, params: q.p },
    ]),
  );
}

async function answersFor(context: HandlerContext, state: RoundState): Promise<CallOptions> {
  const requests = requestsOf(state);
  const answers = Object.keys(requests).length > 0 ? await context.input(requests, { state }) : {};
  const inputResponses: Record<string, unknown> = {};
  for (const [key, q] of Object.entries(state.q)) inputResponses[q.b] = answers[key];
  return {
    ...(Object.keys(inputResponses).length > 0 ? { inputResponses } : {}),
    ...(state.s === undefined ? {} : { requestState: state.s }),
  };
}

function translate(result: Record<string, unknown>, used: Set<string>): RoundState {
  const q: RoundState['q'] = {};
  const requests = result.inputRequests;
  if (typeof requests === 'object' && requests !== null && !Array.isArray(requests)) {
    for (const [key, request] of Object.entries(requests as Record<string, unknown>)) {
      const { method, params } = (request ?? {}) as { method?: unknown; params?: unknown };
      let front = key;
      for (let n = 2; used.has(front); n++) front = `${key}~${n}`;
      used.add(front);
      q[front] = {
        b: key,
        m: method as InputRequest['method'],
        ...(typeof params === 'object' && params !== null ? { p: params as Record<string, unknown> } : {}),
      };
    }
  }
  return {
    q,
    u: [...used],
    ...(typeof result.requestState === 'string' ? { s: result.requestState } : {}),
  };
}

async function modernBackend(forwarding: Forwarding, send: Send): Promise<Forwarded> {
  const { backend, what, owner, context } = forwarding;
  const onProgress = progressOf(context);
  const base: CallOptions = {
    signal: context.signal,
    inputRequired: 'return',
    // The backend sees this frontend's own capabilities and identity, never the proxy's.
    onBehalfOf: { capabilities: context.clientCapabilities, clientInfo: context.clientInfo },
    ...(onProgress ? { onProgress } : {}),
    ...(forwarding.timeout === undefined ? {} : { timeout: forwarding.timeout }),
  };
  const previous = roundState(context.state);
  const used = new Set(previous?.u ?? []);
  let retry: CallOptions = previous ? await answersFor(context, previous) : {};
  for (let round = 0; ; round++) {
    let route: Route = backend.shared;
    const result = await backend.call(what, owner, (client, used) => {
      route = used;
      return send(client, { ...base, ...retry });
    });
    if (result.resultType !== 'input_required') return { result, route };
    if (round >= forwarding.maxInputRounds) {
      throw new ProtocolError(
        -32603,
        `The server behind ${what} asked for input more than ${forwarding.maxInputRounds} times`,
      );
    }
    const next = translate(result, used);
    // State only (the backend sheds load): a 2026-07-28 frontend retries; otherwise (and in a task) retry now.
    if (
      Object.keys(next.q).length === 0 &&
      context.protocolVersion === MODERN &&
      context.taskId === undefined
    )
      context.retryLater(next);
    retry = await answersFor(context, next);
  }
}

// ---- initialize-based backends: server-initiated requests during the call -------------------

/** What a parked round keeps in the frontend's `requestState`: where the call waits, and the question. */
interface ParkState {
  p: string;
  k: string;
  m: PendingInput['method'];
  a: Record<string, unknown>;
}

function asProtocolError(error: unknown): unknown {
  if (error instanceof ClientRequestError) return new ProtocolError(error.code, error.message, error.data);
  return error;
}

async function legacyBackend(forwarding: Forwarding, send: Send): Promise<Forwarded> {
  const { backend, what, owner, context, parked } = forwarding;
  const state = context.state as ParkState | undefined;
  let exchange: Exchange;
  if (state && typeof state.p === 'string') {
    const taken = parked.take(state.p);
    if (!taken) {
      throw ProtocolError.invalidParams(
        'This request is no longer waiting for input (it was answered, it expired, or the proxy restarted): send it again without requestState',
        { reason: 'input_expired' },
      );
    }
    exchange = taken;
    try {
      const answers = await context.input({ [state.k]: { method: state.m, params: state.a } }, { state });
      exchange.answer(state.k, answers[state.k] as Record<string, unknown>);
    } catch (error) {
      if (!(error instanceof Error)) {
        // The answer is still missing: this round ends with input_required again; keep waiting.
        parked.park(state.p, exchange);
        throw error;
      }
      exchange.refuse(state.k, asProtocolError(error));
    }
  } else {
    exchange = new Exchange((self) =>
      backend.call(
        what,
        owner,
        async (client, route) => {
          // Input requests on this connection reach this call while it runs.
          self.route = route;
          route.exchanges.add(self);
          try {
            return await send(client, {
              signal: self.controller.signal,
              // The call may wait for a person between rounds; parking bounds it, and each round's own deadline.
              timeout: 0,
              onProgress: (progress) => self.onProgress?.(progress),
              // Over HTTP the backend's input requests come on this request's stream: attributed exactly.
              onRequestId: (id) => self.sent(id),
            });
          } finally {
            route.exchanges.delete(self);
          }
        },
        // Its input requests must reach it: a session of its own where the wire does not say whose they are.
        { input: true, session: forwarding.session },
      ),
    );
  }
  exchange.onProgress = progressOf(context);
  const onAbort = () => exchange.abort(context.signal.reason);
  if (context.signal.aborted) onAbort();
  else context.signal.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      const event = await exchange.next(context.signal);
      if (event.type === 'done') return { result: event.result, route: exchange.route ?? backend.shared };
      if (event.type === 'failed') throw event.error;
      const { key, method, params } = event.input;
      // An initialize-based frontend is asked at once; so is a task (its input waits for tasks/update).
      if (context.protocolVersion !== MODERN || context.taskId !== undefined) {
        try {
          const answers = await context.input({ [key]: { method, params } });
          exchange.answer(key, answers[key] as Record<string, unknown>);
        } catch (error) {
          exchange.refuse(key, asProtocolError(error));
        }
        continue;
      }
      const id = randomUUID();
      if (!parked.park(id, exchange)) {
        exchange.refuse(
          key,
          new ProtocolError(-32603, 'Too many requests of the proxy are waiting for input'),
        );
        continue;
      }
      const next: ParkState = { p: id, k: key, m: method, a: params };
      try {
        const answers = await context.input({ [key]: { method, params } }, { state: next });
        parked.take(id);
        exchange.answer(key, answers[key] as Record<string, unknown>);
      } catch (error) {
        if (!(error instanceof Error)) throw error; // input_required: the round ends, the call stays parked
        parked.take(id);
        exchange.refuse(key, asProtocolError(error)); // e.g. -32021: the frontend cannot answer this
      }
    }
  } finally {
    context.signal.removeEventListener('abort', onAbort);
    exchange.onProgress = undefined;
  }
}
