import { type DispatchContext, dispatch } from '../dispatch/dispatch.js';
import { withJob } from '../dispatch/job-signal.js';
import type { Outcome } from '../dispatch/outcome.js';
import type { Session } from '../dispatch/session.js';
import { MessageStream } from '../dispatch/stream.js';
import type { RefusalReason } from '../engine/refusal.js';
import type { RunnableRequest } from '../engine/run.js';
import type { JobSignal } from '../executor/executor.js';
import type { RequestId } from '../json/int.js';
import type { DecodedSingle } from '../jsonrpc/decode.js';
import type { JsonRpcMessage, JsonRpcResponse } from '../jsonrpc/types.js';
import type { Runtime } from '../router/runtime.js';
import type { HttpConfig } from './config.js';
import { JSON_HEADERS } from './responses.js';

type RequestMessage = Extract<DecodedSingle, { kind: 'request' }>;

/**
 * One HTTP request run by the engine (`runRequest` in engine/run.ts): HTTP's part is the dispatch
 * context built from the request and the sink, whose first message decides the answer's form.
 *
 *   notification first ─► a bounded MessageStream opens at once (SSE), the rest goes through it
 *   the response alone  ─► JSON, once the run settled (a refusal: its reason picks the status)
 *   subscription        ─► a held SSE stream (subscriptions/listen)
 *   none                ─► 202; nothing at all (cancelled, or the client left) ─► an empty stream
 *
 * `decided` settles once the form is known: at the first notification, or when the run settled.
 */
export class HttpRun implements RunnableRequest<JobSignal> {
  readonly decided: Promise<void>;
  #decide!: () => void;
  /** Opened by the first notification: what the host has not read yet, bounded. */
  relay: MessageStream | undefined;
  /** The answer, when it came before any notification. */
  response: JsonRpcResponse | undefined;
  /** Set when the engine answered instead of the handler. */
  refused: RefusalReason | undefined;
  /** A subscription, or `none`: the adapter's to serve. */
  outcome: Outcome | undefined;
  /** The headers of a JSON answer. */
  headers: Readonly<Record<string, string>> = JSON_HEADERS;
  /** Unregisters the request from where a cancel could reach it; runs once the run settled. */
  untrack: (() => void) | undefined;
  #answered = false;

  constructor(
    readonly runtime: Runtime,
    readonly message: RequestMessage,
    readonly context: DispatchContext,
    /** Statuses by JSON-RPC code (2026-07-28, `statusOf`); the initialize-based revisions answer 200. */
    readonly modern: boolean,
  ) {
    this.decided = new Promise<void>((resolve) => {
      this.#decide = resolve;
    });
  }

  get id(): RequestId {
    return this.message.id;
  }

  dispatch(job: JobSignal): Promise<Outcome> {
    // The context is this request's own (`contextForJob`): no copy. Its signal is made only if something reads it.
    return dispatch(this.runtime, this.message, withJob(this.context, job));
  }

  adopt(outcome: Outcome): void | Promise<void> {
    if (outcome.type === 'subscription' || outcome.type === 'none') this.outcome = outcome;
  }

  push(message: JsonRpcMessage): boolean {
    if (this.relay === undefined) {
      if (this.#answered) return false;
      this.relay = new MessageStream();
      this.#decide();
    }
    return this.relay.push(message);
  }

  end(response: JsonRpcResponse, refused?: RefusalReason): void {
    if (this.relay !== undefined) {
      this.relay.end(response);
      return;
    }
    if (this.#answered) return;
    this.#answered = true;
    this.response = response;
    this.refused = refused;
  }

  abandon(): void {
    if (this.relay !== undefined) this.relay.abandon();
    else this.#answered = true;
  }

  settled(): void {
    this.untrack?.();
    this.#decide();
  }
}

/**
 * A request of an initialize-based session: a session it changed (`resources/subscribe`,
 * `logging/setLevel`) is stored, and delivered to the session's streams, before the client has
 * the answer, so its next request (on any instance) sees the change.
 */
export class SessionRun extends HttpRun {
  constructor(
    runtime: Runtime,
    message: RequestMessage,
    context: DispatchContext,
    readonly config: HttpConfig,
    readonly sessionId: string,
  ) {
    super(runtime, message, context, false);
  }

  override adopt(outcome: Outcome): void | Promise<void> {
    if (outcome.type === 'subscription') outcome.subscription.close();
    if (outcome.type !== 'response' && outcome.type !== 'stream') {
      // Nothing to send on these revisions: an empty stream, as for a cancelled request.
      this.abandon();
      return;
    }
    if (outcome.session) return storeSession(this.config, this.sessionId, outcome.session);
  }
}

/**
 * `initialize`: the session it creates is kept for the adapter, which stores it under a new id
 * outside the run (a failing store is the host's failure, not the request's) and sends the id.
 */
export class InitializeRun extends HttpRun {
  created: Session | undefined;

  constructor(runtime: Runtime, message: RequestMessage, context: DispatchContext) {
    super(runtime, message, context, true);
  }

  override adopt(outcome: Outcome): void {
    if (outcome.type === 'response') this.created = outcome.session;
    super.adopt(outcome);
  }
}

/** Stores a changed session, and tells this instance's GET stream of it. */
export async function storeSession(config: HttpConfig, id: string, session: Session): Promise<void> {
  await config.sessions.set(id, session);
  await config.local.control.deliver(id, { kind: 'update', session });
}
