import { type DispatchContext, dispatch } from '../dispatch/dispatch.js';
import { jobContext } from '../dispatch/job-signal.js';
import type { OpenedSubscription, Outcome } from '../dispatch/outcome.js';
import type { Session } from '../dispatch/session.js';
import {
  type Executor,
  type ExecutorOwner,
  type JobOptions,
  type JobSignal,
  type SubscriptionSlot,
  submitJob,
} from '../executor/executor.js';
import { type AbortSignalLike, LazySignal } from '../executor/lazy-signal.js';
import type { RequestId } from '../json/int.js';
import type { Decoded, DecodedSingle } from '../jsonrpc/decode.js';
import { type JsonRpcMessage, type JsonRpcResponse, requestKey } from '../jsonrpc/types.js';
import type { Runtime } from '../router/runtime.js';
import {
  openSessionNotifications,
  type SessionNotifications,
} from '../subscriptions/session-notifications.js';
import { dispatchBatch, oversizedBatchError } from './batch.js';
import { type ControlChannel, type ControlMessage, MemoryControlChannel } from './control.js';
import { type RefusalReason, refusalReason } from './refusal.js';
import { RequestRegistry } from './registry.js';
import { type Aborted, type Admission, deliver, type RunnableRequest, refuse, runRequest } from './run.js';

/**
 * Where a connection writes. `write` takes one message, or a batch's responses as one array, and
 * returns false when the output is now blocked: the engine then waits on `ready()` before it
 * produces more (replies, stream notifications), and `receive` waits before it takes the next
 * message. `related` is the key (`requestKey`) of the client request a message belongs to, when
 * it belongs to one (its response, its progress, a server→client request made while it ran).
 */
export interface ConnectionOutput {
  write(message: JsonRpcMessage | JsonRpcMessage[], related?: string): boolean;
  ready(): Promise<void>;
  readonly blocked: boolean;
}

export interface ConnectionOptions {
  readonly output: ConnectionOutput;
  /**
   * Runs the requests, with its bounds and deadlines: a request that finds it full waits for room
   * (and holds `receive` back), never refused. Absent: every request runs at once, with no
   * deadline and no bound on subscriptions (the in-process transport).
   */
  readonly executor?: Executor;
  /** Deadline of each request (see the executor); undefined: the executor's. */
  readonly requestTimeout?: number;
  /** Items one batch may hold. */
  readonly maxBatchItems: number;
  /** `DispatchContext.connectionId`: one connection is one client. Default a random UUID. */
  readonly id?: string;
  /** `DispatchContext.networkTransport` of every message (stdio: `pipe`); unset in-process. */
  readonly networkTransport?: DispatchContext['networkTransport'];
  /**
   * Where control messages addressed to this connection (cancel, a client's answer) go, so a
   * channel spanning processes could route them. Default: a channel of this connection alone.
   */
  readonly control?: ControlChannel;
  /** An unexpected error while serving (a bug, not the client's doing): the engine goes on. */
  readonly onError: (error: unknown) => void;
  /** A client's answer that matches no pending server→client request (it is dropped). */
  readonly onIgnoredAnswer?: (id: RequestId | null) => void;
  /** A request ended with no answer written, though neither cancelled nor failed. */
  readonly onUnanswered?: (id: RequestId) => void;
}

type Request = Extract<DecodedSingle, { kind: 'request' }>;

/**
 * Requests that change the connection's session run inline, in input order, so a later message
 * always sees their effect. They run no application code, so they need no executor slot.
 */
const SESSION_METHODS = new Set([
  'initialize',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
]);

/** What a request's entry reaches of its connection (one per connection). */
interface EntryPort {
  dispatch(request: Request, job: JobSignal): Promise<Outcome>;
  adopt(entry: Entry, outcome: Outcome, signal: Aborted): void;
  /** Writes one of the request's messages; settles when the output can take more. */
  write(message: JsonRpcMessage, key: string): Promise<void> | undefined;
  /** Writes an answer the engine gives for the request now, without waiting for the output. */
  writeNow(message: JsonRpcMessage, key: string): void;
  /** Nothing more may be written for any request (destroyed, or the output failed). */
  stopped(): boolean;
  settled(entry: Entry, outcome: Outcome | undefined, error: unknown): void;
}

/**
 * One admitted request, from its message until its outcome is decided: the engine runs it
 * (`runRequest`) and it writes what is due for it.
 */
class Entry implements RunnableRequest<JobSignal> {
  readonly key: string;
  /** Aborted by notifications/cancelled; the executor then aborts the task's own signal. */
  readonly cancel = new LazySignal();
  /** Its final response (or error) was written: nothing else may be written for it. */
  answered = false;

  constructor(
    readonly port: EntryPort,
    readonly request: Request,
  ) {
    this.key = requestKey(request.id);
  }

  get id(): RequestId {
    return this.request.id;
  }

  dispatch(job: JobSignal): Promise<Outcome> {
    return this.port.dispatch(this.request, job);
  }

  adopt(outcome: Outcome, signal: Aborted): void {
    this.port.adopt(this, outcome, signal);
  }

  push(message: JsonRpcMessage): Promise<void> | undefined {
    if (this.answered) return;
    return this.port.write(message, this.key);
  }

  end(response: JsonRpcResponse, refused?: RefusalReason): Promise<void> | undefined {
    if (this.answered) return;
    if (refused === undefined) {
      this.answered = true;
      return this.port.write(response, this.key);
    }
    // The engine's answer (a refusal, the deadline, a failure): none once the client cancelled or serving stopped.
    if (this.cancel.aborted || this.port.stopped()) return;
    this.answered = true;
    this.port.writeNow(response, this.key);
  }

  abandon(): void {}

  settled(outcome: Outcome | undefined, error: unknown): void {
    this.port.settled(this, outcome, error);
  }
}

/** One open subscriptions/listen stream. */
interface Listening {
  readonly key: string;
  readonly subscription: OpenedSubscription;
  /** How it ends: 'graceful' writes close()'s result; 'silent' (client cancel, teardown) writes nothing. */
  ending: 'graceful' | 'silent' | undefined;
  readonly stop: () => void;
}

const NO_SLOT: SubscriptionSlot = { release() {} };

/**
 * One client connection with one initialize-based session for its lifetime (or stateless
 * 2026-07-28 requests): the engine every message-stream transport runs on. The adapter decodes
 * what arrives and hands it to `receive`; the engine writes what is due to `output`.
 *
 *   receive ─┬─ request ──► (room?) ──► runRequest (run.ts: executor, dispatch, delivery) ──► output.write
 *            ├─ notification / session request: inline, in order (initialize, setLevel, subscribe)
 *            ├─ notifications/cancelled ──► control ──► abort that request; nothing written for it
 *            ├─ response ──► control ──► the pending server→client request it answers
 *            └─ batch ──► each request item admitted like a request; one array written
 *
 * Invariants: every admitted request ends in exactly one written response (its own, or what the
 * refusal mapping of refusal.ts gives: -32001 timed out, -32000 once the executor is closed)
 * unless the client cancelled it or the connection was destroyed; a cancelled request's handler
 * may finish, but its response is dropped (the task's signal is aborted, and every write checks
 * it). `receive` returns a promise while the output is
 * blocked or a request waits for room in a full executor: the adapter reads nothing more until it
 * settles (backpressure, never -32000 for a full queue).
 */
export class Connection {
  readonly id: string;
  readonly #runtime: Runtime;
  readonly #options: ConnectionOptions;
  readonly #output: ConnectionOutput;
  readonly #executor: Executor | undefined;
  readonly #owner: ExecutorOwner | undefined;
  /** The running requests and pending server→client requests: the target of control messages. */
  readonly #registry: RequestRegistry;
  readonly #listening = new Map<string, Listening>();
  #session: Session | undefined;
  readonly #control: ControlChannel;
  readonly #detachControl: () => void;
  #sessionNotifications: SessionNotifications | undefined;
  /** Admitted requests (and batches) not yet finished. */
  #active = 0;
  /** One per open subscription; settles once its last message was written. */
  readonly #pumps = new Set<Promise<void>>();
  #whenIdle: (() => void) | undefined;
  #closing = false;
  #destroyed = false;
  /**
   * Settles once every task handed to #submitTask so far is admitted by the executor; undefined
   * while nothing waits for room. `receive` returns it, so the adapter waits with it.
   */
  #admissions: Promise<void> | undefined;
  #failure: Error | undefined;
  /** How a request's entry reaches this connection, and how its task is admitted (both made once). */
  readonly #port: EntryPort;
  readonly #admission: Admission<JobSignal>;

  constructor(runtime: Runtime, options: ConnectionOptions) {
    this.#runtime = runtime;
    this.#options = options;
    this.#output = options.output;
    this.#executor = options.executor;
    this.#owner = options.executor?.owner();
    this.id = options.id ?? globalThis.crypto.randomUUID();
    // Server requests and their cancellations are small and rare: written at once, no backpressure wait.
    this.#registry = new RequestRegistry(
      (message, related) => {
        if (!this.#destroyed) this.#output.write(message, related);
      },
      {
        onCancel: (key) => this.#cancelSubscription(key),
        onUpdate: (session) => {
          this.#session = session;
        },
        onEnd: () => this.destroy(),
      },
    );
    this.#control = options.control ?? new MemoryControlChannel();
    this.#detachControl = this.#control.attach(this.id, this.#registry);
    this.#admission = { submit: (task, submitOptions) => this.#submitTask(task, submitOptions) };
    this.#port = {
      dispatch: (request, signal) => dispatch(this.#runtime, request, this.#context(signal)),
      adopt: (entry, outcome, signal) => {
        this.#adopt(outcome);
        if (outcome.type === 'subscription') this.#openSubscription(entry, outcome.subscription, signal);
      },
      write: (message, key) => this.#write(message, key),
      writeNow: (message, key) => {
        this.#output.write(message, key);
      },
      stopped: () => this.#destroyed,
      settled: (entry, outcome, error) => {
        // A failure that is no refusal is a bug, not the client's doing: reported, and answered -32603.
        if (outcome === undefined && refusalReason(error) === 'SNODO_ERR_INTERNAL')
          this.#options.onError(error);
        this.#release(entry);
      },
    };
  }

  /** The session as the connection holds it now. */
  get session(): Session | undefined {
    return this.#session;
  }

  /**
   * Takes one decoded message. Returns a promise while the adapter must wait before handing over
   * the next one (the output is blocked, a session request is running, a request waits for room).
   */
  receive(decoded: Decoded): void | Promise<void> {
    if (this.#failure || this.#destroyed) return;
    if (this.#output.blocked) return this.#output.ready().then(() => this.receive(decoded));
    switch (decoded.kind) {
      case 'request':
        if (SESSION_METHODS.has(decoded.method)) return this.#runInline(decoded);
        this.#submit(decoded);
        return this.#admissions;
      case 'notification':
        return dispatch(this.#runtime, decoded, this.#context()).then((outcome) =>
          this.#onNotification(outcome),
        );
      case 'response': {
        const { id, result, error } = decoded;
        const response = error === undefined ? { id, result } : { id, error };
        return this.#deliverControl({ kind: 'answer', response }, () => this.#options.onIgnoredAnswer?.(id));
      }
      case 'invalid':
        this.#output.write({ jsonrpc: '2.0', id: decoded.id, error: decoded.error });
        return;
      case 'batch':
        this.#submitBatch(decoded.items);
        return this.#admissions;
    }
  }

  /** Cancels the client request `id` (as `notifications/cancelled` does): nothing is written for it. */
  cancel(id: RequestId, reason: string): void | Promise<void> {
    return this.#deliverControl({ kind: 'cancel', requestKey: requestKey(id), reason });
  }

  /**
   * Graceful end (the client's input ended): no answer to a server-initiated request can come any
   * more, so those fail with `reason`; resolves once every admitted request is answered and every
   * subscription ended with its listen result (both written, or handed to a blocked output).
   */
  async close(reason: string): Promise<void> {
    this.#registry.clientRequests.close(reason);
    await this.#idle();
    this.#closing = true;
    for (const listening of this.#listening.values()) this.#endSubscription(listening, 'graceful');
    this.#sessionNotifications?.close();
    await Promise.all(this.#pumps);
  }

  /**
   * Forced end, idempotent: aborts every task and subscription, fails pending server→client
   * requests, releases the executor owner. With `error` (a failed output, say), nothing more is
   * written.
   */
  destroy(error?: Error): void {
    if (error !== undefined) this.#failure ??= error;
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.#owner?.close(error);
    this.#registry.abortAll(error ?? new Error('connection closed'));
    for (const listening of this.#listening.values()) this.#endSubscription(listening, 'silent');
    this.#sessionNotifications?.close();
    this.#registry.clientRequests.close(error?.message);
    this.#detachControl();
  }

  // ---- control --------------------------------------------------------------------------

  /** Hands `message` to the control channel; `missed` runs when it reached nothing. */
  #deliverControl(message: ControlMessage, missed?: () => void): void | Promise<void> {
    const delivered = this.#control.deliver(this.id, message);
    if (typeof delivered === 'boolean') {
      if (!delivered) missed?.();
      return;
    }
    return delivered.then(
      (reached) => {
        if (!reached) missed?.();
      },
      (error: unknown) => this.#options.onError(error),
    );
  }

  /** A cancel for a listen request whose subscription is open: it ends silently. */
  #cancelSubscription(key: string): boolean {
    const listening = this.#listening.get(key);
    if (listening === undefined) return false;
    this.#endSubscription(listening, 'silent');
    return true;
  }

  // ---- requests -------------------------------------------------------------------------

  /** The dispatch context of a message; with `job`, its `signal` is the job's, made only when read. */
  #context(job?: JobSignal): DispatchContext {
    // Stateless 2026-07-28 requests ignore the session and the channel: core selects the revision per request.
    const context: DispatchContext = job === undefined ? {} : jobContext(job);
    context.channel = this.#registry.clientRequests.channel;
    context.connectionId = this.id;
    if (this.#options.networkTransport !== undefined)
      context.networkTransport = this.#options.networkTransport;
    if (this.#session !== undefined) context.session = this.#session;
    return context;
  }

  #onNotification(outcome: Outcome): void | Promise<void> {
    this.#adopt(outcome);
    if (outcome.type !== 'none' || outcome.cancel === undefined) return;
    return this.cancel(outcome.cancel, 'cancelled by the client');
  }

  #adopt(outcome: Outcome): void {
    if (!('session' in outcome) || outcome.session === undefined) return;
    // One connection is one initialize-based session: later messages see this value.
    this.#session = outcome.session;
    if (outcome.session.initialized && this.#sessionNotifications === undefined && !this.#closing) {
      const notifications = openSessionNotifications(this.#runtime, () => this.#session, undefined, {
        auth: undefined,
        connectionId: this.id,
      });
      this.#sessionNotifications = notifications;
      this.#pumpSessionNotifications(notifications);
    }
  }

  /** Writes the session's notifications as they come, until closed (end, teardown). */
  async #pumpSessionNotifications(notifications: SessionNotifications): Promise<void> {
    try {
      for await (const message of notifications) {
        if (this.#failure || this.#destroyed) break;
        await this.#write(message);
      }
    } catch (error) {
      this.#options.onError(error);
    }
  }

  async #runInline(request: Request): Promise<void> {
    const entry = this.#admit(request);
    try {
      const outcome = await dispatch(this.#runtime, request, this.#context());
      entry.adopt(outcome, entry.cancel);
      await deliver(outcome, entry, entry.cancel);
    } catch (error) {
      refuse(entry, entry.id, refusalReason(error));
      this.#options.onError(error);
    } finally {
      this.#release(entry);
    }
  }

  #submit(request: Request): void {
    const entry = this.#admit(request);
    void runRequest(this.#admission, entry, {
      owner: this.#owner,
      signal: entry.cancel,
      timeout: this.#options.requestTimeout,
    });
  }

  /**
   * A 2025-03-26 batch: each request item is admitted like a single request (waiting for room,
   * in order), and the batch is answered with one array once every item is done. Its items cannot
   * be cancelled one by one.
   */
  #submitBatch(items: DecodedSingle[]): void {
    const { maxBatchItems, requestTimeout } = this.#options;
    const tooMany = oversizedBatchError(items.length, maxBatchItems);
    if (tooMany !== undefined) {
      this.#output.write({ jsonrpc: '2.0', id: null, error: tooMany });
      return;
    }
    this.#active++;
    const options =
      this.#executor === undefined
        ? { maxBatchItems }
        : {
            maxBatchItems,
            // A batch item's handler gets its AbortSignal as dispatchBatch hands it over (made at start).
            admit: <T>(task: (signal: AbortSignal) => Promise<T>) =>
              this.#submitTask((job) => task(job.signal), { owner: this.#owner, timeout: requestTimeout }),
          };
    dispatchBatch(this.#runtime, items, this.#context(), options)
      .then(async (outcome) => {
        if (outcome.session !== undefined) this.#session = outcome.session;
        // A refused batch is answered with its one error alone, as HTTP does (never a batch reply).
        const answer = outcome.refused ? outcome.responses[0] : outcome.responses;
        if (outcome.responses.length > 0 && !this.#failure && answer) await this.#write(answer);
      })
      .catch(this.#options.onError)
      .finally(() => this.#done());
  }

  /**
   * Submits `task` at once when the executor has room; otherwise once it has (`#admissions` then
   * holds `receive` back). Tasks are admitted in the order they were handed over. The check for
   * room and the submit run in one synchronous step, so another submitter sharing the executor
   * cannot take the place in between. With no executor the task runs at once.
   */
  #submitTask<T>(task: (job: JobSignal) => Promise<T>, options: JobOptions): Promise<T> {
    const executor = this.#executor;
    if (executor === undefined) return runAtOnce(task, options.signal);
    if (this.#admissions === undefined && !executor.full) return submitJob(executor, task, options);
    let result!: Promise<T>;
    const admitted = (this.#admissions ?? Promise.resolve()).then(async () => {
      while (executor.full) await executor.whenNotFull();
      result = submitJob(executor, task, options);
    });
    this.#admissions = admitted;
    void admitted.then(() => {
      if (this.#admissions === admitted) this.#admissions = undefined;
    });
    return admitted.then(() => result);
  }

  #admit(request: Request): Entry {
    const entry = new Entry(this.#port, request);
    // Ids must be unique among requests in flight; a duplicate takes over the id for cancellation.
    this.#registry.track(entry.key, entry.cancel);
    this.#active++;
    return entry;
  }

  #release(entry: Entry): void {
    this.#registry.untrack(entry.key, entry.cancel);
    if (!entry.answered && !entry.cancel.aborted && !this.#failure && !this.#destroyed)
      this.#options.onUnanswered?.(entry.id);
    this.#done();
  }

  // ---- subscriptions --------------------------------------------------------------------

  #openSubscription(entry: Entry, subscription: OpenedSubscription, signal: Aborted): void {
    const executor = this.#executor;
    const slot = signal.aborted ? null : executor ? executor.acquireSubscription(this.#owner) : NO_SLOT;
    if (slot === null) {
      subscription.close();
      if (!signal.aborted) refuse(entry, entry.id, 'SNODO_ERR_SUBSCRIPTION_LIMIT');
      return;
    }
    entry.answered = true; // the listen request is answered by its stream, then by close()'s result
    let stop!: () => void;
    const stopped = new Promise<undefined>((resolve) => {
      stop = () => resolve(undefined);
    });
    const listening: Listening = { key: entry.key, subscription, ending: undefined, stop };
    this.#listening.set(listening.key, listening);
    const pump = this.#pump(listening, stopped).finally(() => {
      slot.release();
      if (this.#listening.get(listening.key) === listening) this.#listening.delete(listening.key);
      this.#pumps.delete(pump);
    });
    this.#pumps.add(pump);
    if (this.#closing) this.#endSubscription(listening, 'graceful');
  }

  async #pump(listening: Listening, stopped: Promise<undefined>): Promise<void> {
    const iterator = listening.subscription[Symbol.asyncIterator]();
    try {
      while (listening.ending === undefined) {
        const next = await Promise.race([iterator.next(), stopped]);
        if (next === undefined || next.done === true || listening.ending !== undefined) break;
        await this.#write(next.value, listening.key);
      }
    } catch (error) {
      this.#options.onError(error);
    } finally {
      // Ended by the server (or its queue overflowed) counts as graceful: the client gets the listen result.
      const ending = listening.ending ?? 'graceful';
      listening.ending = ending;
      const final = listening.subscription.close();
      if (ending === 'graceful' && !this.#failure && !this.#destroyed)
        await this.#write(final, listening.key);
      void iterator.return?.();
    }
  }

  #endSubscription(listening: Listening, ending: 'graceful' | 'silent'): void {
    if (listening.ending !== undefined) return;
    listening.ending = ending;
    listening.subscription.close();
    listening.stop();
  }

  // ---- writing, idleness ----------------------------------------------------------------

  /** Writes one message (or a batch array); settles when the output can take more. */
  #write(message: JsonRpcMessage | JsonRpcMessage[], related?: string): Promise<void> | undefined {
    if (this.#output.write(message, related)) return;
    return this.#output.ready();
  }

  #done(): void {
    this.#active--;
    if (this.#active === 0) {
      const resolve = this.#whenIdle;
      this.#whenIdle = undefined;
      resolve?.();
    }
  }

  #idle(): Promise<void> {
    if (this.#active === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.#whenIdle = resolve;
    });
  }
}

/**
 * Runs `task` now. Its job is the request's own cancellation (a LazySignal, as the engine hands
 * over), or one that follows `cancel`.
 */
function runAtOnce<T>(task: (job: JobSignal) => Promise<T>, cancel: AbortSignalLike | undefined): Promise<T> {
  let job: LazySignal;
  if (cancel instanceof LazySignal) job = cancel;
  else {
    job = new LazySignal();
    if (cancel?.aborted) job.abort(cancel.reason);
    else cancel?.addEventListener('abort', () => job.abort(cancel.reason));
  }
  try {
    return task(job);
  } catch (error) {
    return Promise.reject(error);
  }
}
