import { randomUUID } from 'node:crypto';
import {
  type BatchOptions,
  type BatchOutcome,
  type ClientRequests,
  createClientRequests,
  type DecodedSingle,
  type DispatchContext,
  decodeMessage,
  ERROR_TABLE,
  ErrorCode,
  type Executor,
  ExecutorError,
  type ExecutorOwner,
  type JsonRpcMessage,
  type JsonRpcResponse,
  type OpenedSubscription,
  type Outcome,
  type RequestId,
  type Session,
  type SessionNotifications,
  type SubmitOptions,
} from '@snodo/core';
import {
  executorWireError,
  isResponse,
  oversizedBatchError,
  pipeSession,
  requestKey,
  trackSession,
} from '@snodo/core/internal';
import { CancelToken } from './cancel-token.js';
import { stdioError } from './errors.js';
import { StreamSource, stdinSource } from './input.js';
import { LineReader } from './line-reader.js';
import type { ServeSettings } from './options.js';
import { Writer } from './writer.js';

/** What a connection calls into: core's `dispatch`/`dispatchBatch` bound to a runtime (tests substitute it). */
export interface Dispatcher {
  dispatch(message: DecodedSingle, context: DispatchContext): Promise<Outcome>;
  dispatchBatch(
    items: DecodedSingle[],
    context: DispatchContext,
    options: BatchOptions,
  ): Promise<BatchOutcome>;
  /**
   * The server-to-client notifications of an initialized initialize-based session (list changes,
   * resource updates); `connectionId` is the connection's (`DispatchContext.connectionId`).
   */
  openSessionNotifications?(
    getSession: () => Session | undefined,
    connectionId: string,
  ): SessionNotifications;
}

type Request = Extract<DecodedSingle, { kind: 'request' }>;
/** What delivery reads of a signal: an AbortSignal, or a request's own CancelToken. */
type Aborted = { readonly aborted: boolean };

/**
 * Requests that change the connection's session run inline, in input order, so a later line
 * always sees their effect. They run no application code, so they need no executor slot.
 */
const SESSION_METHODS = new Set([
  'initialize',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
]);

/** One admitted request, from its line until its outcome is decided. */
interface Entry {
  readonly id: RequestId;
  readonly key: string;
  /** Aborted by notifications/cancelled; the executor then aborts the task's own signal. */
  readonly cancel: CancelToken;
  /** Its final response (or error) was handed to the writer: nothing else may be written for it. */
  answered: boolean;
}

/** One open subscriptions/listen stream. */
interface Listening {
  readonly key: string;
  readonly subscription: OpenedSubscription;
  /** How it ends: 'graceful' writes close()'s result; 'silent' (client cancel, teardown) writes nothing. */
  ending: 'graceful' | 'silent' | undefined;
  readonly stop: () => void;
}

/**
 * One stdio connection: one input, one output, one initialize-based session for its lifetime.
 *
 *   input ──► LineReader ──► line ──► decode ──┬─ request ──► (room?) ──► executor.submit ──► dispatch ──► Writer ──► output
 *                │                             ├─ notification / session request: inline, in order
 *                └─ oversized ──► -32600       └─ cancelled ──► abort that request; nothing written for it
 *
 * Invariants: every admitted request ends in exactly one written response (its own, -32001 timed
 * out, -32000 once the executor is closed) unless the client cancelled it or serving failed; a
 * cancelled request's handler may finish, but its response is dropped (the task's signal is
 * aborted, and every write checks it). Lines are not read while the output is blocked, nor while
 * a request (or a batch item) waits for room in a full executor: a stdio peer is one process on a
 * pipe, so it gets backpressure, never -32000 for a full queue. Memory stays within one line
 * (maxLineBytes) plus what the executor holds.
 */
export class StdioConnection {
  readonly #dispatcher: Dispatcher;
  readonly #settings: ServeSettings;
  readonly #executor: Executor;
  readonly #owner: ExecutorOwner;
  readonly #writer: Writer;
  readonly #reader: LineReader;
  readonly #requests = new Map<string, Entry>();
  readonly #listening = new Map<string, Listening>();
  #session: Session | undefined;
  /** This connection's `DispatchContext.connectionId`: one stdio connection is one client. */
  readonly #id = randomUUID();
  /** Server-initiated requests (elicitation, sampling, roots) of the session, matched with the client's responses. */
  readonly #clientRequests: ClientRequests;
  #sessionNotifications: SessionNotifications | undefined;
  /** Admitted requests not yet finished. */
  #active = 0;
  /** One per open subscription; settles once its last message was written. */
  readonly #pumps = new Set<Promise<void>>();
  #whenIdle: (() => void) | undefined;
  #closingSubscriptions = false;
  /**
   * Settles once every task handed to #submitTask so far is admitted by the executor; undefined
   * while nothing waits for room. The line handler returns it, so reading waits with it.
   */
  #admissions: Promise<void> | undefined;
  #failure: Error | undefined;
  #fail: (error: Error) => void = () => {};
  #stopReading: () => void = () => {};

  constructor(dispatcher: Dispatcher, settings: ServeSettings) {
    this.#dispatcher = dispatcher;
    this.#settings = settings;
    this.#executor = settings.executor;
    this.#owner = settings.executor.owner();
    this.#writer = new Writer(settings.output, settings.writeTimeout, (error) => this.#terminate(error));
    // Server requests and their cancellations are small and rare: written at once, no backpressure wait.
    this.#clientRequests = createClientRequests((message) => {
      this.#writer.write(message);
    });
    this.#reader = new LineReader(settings.maxLineBytes, {
      line: (bytes) => this.#onLine(bytes),
      oversized: (length) => this.#onOversized(length),
    });
  }

  /** Resolves after EOF (or the stop signal) once every admitted request is answered and written. */
  async run(): Promise<void> {
    const failed = new Promise<never>((_, reject) => {
      this.#fail = reject;
    });
    failed.catch(() => {}); // observed below; never unhandled
    if (this.#failure) this.#fail(this.#failure);
    const endSession = trackSession(() => pipeSession(this.#session?.protocolVersion));
    try {
      await Promise.race([this.#read(), failed]);
      // No answer to a server-initiated request can come any more: its handler fails now.
      this.#clientRequests.close('The client closed its input');
      await Promise.race([this.#idle(), failed]);
      // Every request is done; subscriptions end gracefully with their listen result.
      this.#closingSubscriptions = true;
      for (const listening of this.#listening.values()) this.#endSubscription(listening, 'graceful');
      this.#sessionNotifications?.close();
      await Promise.race([Promise.all(this.#pumps), failed]);
      this.#writer.flush();
      await Promise.race([this.#writer.ready(), failed]);
      if (this.#failure) throw this.#failure;
    } finally {
      this.#stopReading();
      this.#sessionNotifications?.close();
      this.#clientRequests.close();
      this.#writer.detach();
      this.#owner.close();
      endSession();
    }
  }

  // ---- reading --------------------------------------------------------------------------

  #read(): Promise<void> {
    const { signal } = this.#settings;
    const source =
      this.#settings.input === undefined ? stdinSource() : new StreamSource(this.#settings.input);
    return new Promise<void>((resolve) => {
      // Chunks that arrive while a line handler is pending (a source should be paused then, but
      // one that ignores pause must not reorder lines). Copied: a source may reuse its buffer.
      const waiting: Uint8Array[] = [];
      let busy = false;
      let ended = false;
      let done = false;
      const finish = () => {
        if (done) return;
        this.#stopReading();
        resolve();
      };
      // Called when no line handler is pending.
      const next = (): void => {
        const chunk = waiting.shift();
        if (chunk !== undefined) run(chunk);
        else if (ended) run(undefined);
        else source.resume();
      };
      /** Feeds the reader; false when a handler is pending (the source then stays paused). */
      const run = (chunk: Uint8Array | undefined): boolean => {
        const atEnd = chunk === undefined;
        const pending = atEnd ? this.#reader.end() : this.#reader.push(chunk);
        if (pending === undefined) {
          if (atEnd) finish();
          else if (waiting.length > 0 || ended) next();
          return true;
        }
        busy = true;
        const resume = () => {
          busy = false;
          if (done) return;
          if (atEnd) finish();
          else next();
        };
        pending.then(resume, (error: unknown) => {
          logInternal(error);
          resume();
        });
        return false;
      };
      const onAbort = () => finish();
      this.#stopReading = () => {
        this.#stopReading = () => {};
        done = true;
        waiting.length = 0;
        this.#reader.stop();
        source.stop();
        signal?.removeEventListener('abort', onAbort);
      };
      if (signal?.aborted) {
        onAbort();
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      source.start({
        chunk: (bytes) => {
          if (done) return false;
          if (!busy) return run(bytes);
          waiting.push(Buffer.from(bytes));
          return false;
        },
        end: () => {
          if (ended) return;
          ended = true;
          if (!busy) next();
        },
        error: (error) => {
          this.#terminate(
            stdioError(
              'SNODO_ERR_READ_FAILED',
              error instanceof Error ? error.message : String(error),
              error,
            ),
          );
        },
      });
    });
  }

  #onLine(bytes: Uint8Array): void | Promise<void> {
    if (this.#failure) return;
    if (this.#writer.blocked) return this.#writer.ready().then(() => this.#onLine(bytes));
    // The line reader dropped the stream's leading BOM; a BOM on a later line is content.
    const decoded = decodeMessage(bytes, undefined, { leadingBom: false });
    switch (decoded.kind) {
      case 'request':
        if (SESSION_METHODS.has(decoded.method)) return this.#runInline(decoded);
        this.#submit(decoded);
        return this.#admissions;
      case 'notification':
        return this.#dispatcher
          .dispatch(decoded, this.#context())
          .then((outcome) => this.#onNotification(outcome));
      case 'response':
        this.#onClientResponse(decoded);
        return;
      case 'invalid':
        this.#writer.write({ jsonrpc: '2.0', id: decoded.id, error: decoded.error });
        return;
      case 'batch':
        this.#submitBatch(decoded.items);
        return this.#admissions;
    }
  }

  #onOversized(length: number): void | Promise<void> {
    if (this.#failure) return;
    if (this.#writer.blocked) return this.#writer.ready().then(() => this.#onOversized(length));
    const { maxLineBytes } = this.#settings;
    this.#writer.write({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: ErrorCode.InvalidRequest,
        message: `${ERROR_TABLE[ErrorCode.InvalidRequest].message}: line of ${length} bytes exceeds maxLineBytes (${maxLineBytes})`,
        data: { maxLineBytes },
      },
    });
  }

  #onNotification(outcome: Outcome): void {
    this.#adopt(outcome);
    if (outcome.type !== 'none' || outcome.cancel === undefined) return;
    const key = requestKey(outcome.cancel);
    // Both, for a listen whose subscription opened while its request is still settling.
    this.#requests.get(key)?.cancel.abort(new Error('cancelled by the client'));
    const listening = this.#listening.get(key);
    if (listening !== undefined) this.#endSubscription(listening, 'silent');
  }

  /**
   * A client's JSON-RPC response answers a request the server sent (initialize-based revisions:
   * elicitation, sampling, roots). One that answers nothing pending is ignored.
   */
  #onClientResponse(decoded: Extract<DecodedSingle, { kind: 'response' }>): void {
    this.#clientRequests.resolve(decoded);
  }

  // ---- requests -------------------------------------------------------------------------

  #context(signal?: AbortSignal): DispatchContext {
    // Stateless 2026-07-28 requests ignore the session and the channel: core selects the revision per request.
    const context: DispatchContext = {
      channel: this.#clientRequests.channel,
      connectionId: this.#id,
      networkTransport: 'pipe',
    };
    if (signal !== undefined) context.signal = signal;
    if (this.#session !== undefined) context.session = this.#session;
    return context;
  }

  #adopt(outcome: Outcome): void {
    if (!('session' in outcome) || outcome.session === undefined) return;
    // One stdio connection is one initialize-based session: later lines see this value.
    this.#session = outcome.session;
    if (
      outcome.session.initialized &&
      this.#sessionNotifications === undefined &&
      !this.#closingSubscriptions
    ) {
      const notifications = this.#dispatcher.openSessionNotifications?.(() => this.#session, this.#id);
      if (notifications !== undefined) {
        this.#sessionNotifications = notifications;
        this.#pumpSessionNotifications(notifications);
      }
    }
  }

  /** Writes the session's notifications as they come, until closed (EOF, teardown). */
  async #pumpSessionNotifications(notifications: SessionNotifications): Promise<void> {
    try {
      for await (const message of notifications) {
        if (this.#failure) break;
        await this.#write(message);
      }
    } catch (error) {
      logInternal(error);
    }
  }

  async #runInline(request: Request): Promise<void> {
    const entry = this.#admit(request.id);
    try {
      const outcome = await this.#dispatcher.dispatch(request, this.#context());
      this.#adopt(outcome);
      await this.#deliver(entry, outcome, entry.cancel);
    } catch (error) {
      this.#internalError(entry, error);
    } finally {
      this.#release(entry);
    }
  }

  #submit(request: Request): void {
    const entry = this.#admit(request.id);
    this.#submitTask((signal) => this.#execute(entry, request, signal), {
      owner: this.#owner,
      signal: entry.cancel.signal,
      timeout: this.#settings.requestTimeout,
    }).then(
      () => this.#release(entry),
      (error: unknown) => {
        this.#refused(entry, error);
        this.#release(entry);
      },
    );
  }

  async #execute(entry: Entry, request: Request, signal: AbortSignal): Promise<void> {
    const outcome = await this.#dispatcher.dispatch(request, this.#context(signal));
    this.#adopt(outcome);
    await this.#deliver(entry, outcome, signal);
  }

  /**
   * A 2025-03-26 batch: each request item is admitted like a single request (waiting for room,
   * in order), and the batch is answered with one line once every item is done. Its items cannot
   * be cancelled one by one.
   */
  #submitBatch(items: DecodedSingle[]): void {
    const { maxBatchItems, requestTimeout } = this.#settings;
    const tooMany = oversizedBatchError(items.length, maxBatchItems);
    if (tooMany !== undefined) {
      this.#writer.write({ jsonrpc: '2.0', id: null, error: tooMany });
      return;
    }
    this.#active++;
    this.#dispatcher
      .dispatchBatch(items, this.#context(), {
        maxBatchItems,
        admit: (task) => this.#submitTask(task, { owner: this.#owner, timeout: requestTimeout }),
      })
      .then(async (outcome) => {
        if (outcome.session !== undefined) this.#session = outcome.session;
        // A refused batch is answered with its one error alone, as HTTP does (never a batch reply).
        const answer = outcome.refused ? outcome.responses[0] : outcome.responses;
        if (outcome.responses.length > 0 && !this.#failure && answer) await this.#write(answer);
      })
      .catch(logInternal)
      .finally(() => this.#done());
  }

  /**
   * Submits `task` at once when the executor has room; otherwise once it has (`#admissions` then
   * holds reading back). Tasks are admitted in the order they were handed over. The check for
   * room and the submit run in one synchronous step, so another submitter sharing the executor
   * cannot take the place in between.
   */
  #submitTask<T>(task: (signal: AbortSignal) => Promise<T>, options: SubmitOptions): Promise<T> {
    if (this.#admissions === undefined && !this.#executor.full) return this.#executor.submit(task, options);
    let result!: Promise<T>;
    const admitted = (this.#admissions ?? Promise.resolve()).then(async () => {
      while (this.#executor.full) await this.#executor.whenNotFull();
      result = this.#executor.submit(task, options);
    });
    this.#admissions = admitted;
    void admitted.then(() => {
      if (this.#admissions === admitted) this.#admissions = undefined;
    });
    return admitted.then(() => result);
  }

  /** Writes an outcome's messages in order; nothing once `signal` aborted (cancel, deadline, teardown). */
  async #deliver(entry: Entry, outcome: Outcome, signal: Aborted): Promise<void> {
    switch (outcome.type) {
      case 'response':
        return this.#answer(entry, outcome.message, signal);
      case 'stream':
        // Read to the end even once aborted: the task keeps its executor slot until the handler is done.
        for await (const message of outcome.messages) {
          if (isResponse(message)) await this.#answer(entry, message, signal);
          else if (!signal.aborted && !entry.answered) await this.#write(message);
        }
        return;
      case 'subscription':
        entry.answered = true; // the listen request is answered by its stream, then by close()'s result
        this.#openSubscription(entry, outcome.subscription, signal);
        return;
      case 'none':
        return;
    }
  }

  #answer(entry: Entry, message: JsonRpcResponse, signal: Aborted): Promise<void> | undefined {
    if (signal.aborted || entry.answered) return;
    entry.answered = true;
    return this.#write(message);
  }

  /** Why the executor gave up on a request: answers it unless the client cancelled it or serving failed. */
  #refused(entry: Entry, error: unknown): void {
    if (!ExecutorError.is(error)) {
      this.#internalError(entry, error);
      return;
    }
    const wire = executorWireError(error);
    if (wire === undefined || entry.answered) return;
    entry.answered = true;
    this.#writer.write({ jsonrpc: '2.0', id: entry.id, error: wire });
  }

  #internalError(entry: Entry, error: unknown): void {
    logInternal(error);
    if (entry.answered || entry.cancel.aborted || this.#failure) return;
    entry.answered = true;
    this.#writer.write({
      jsonrpc: '2.0',
      id: entry.id,
      error: { code: ErrorCode.InternalError, message: ERROR_TABLE[ErrorCode.InternalError].message },
    });
  }

  #admit(id: RequestId): Entry {
    const entry: Entry = { id, key: requestKey(id), cancel: new CancelToken(), answered: false };
    // Ids must be unique among requests in flight; a duplicate takes over the id for cancellation.
    this.#requests.set(entry.key, entry);
    this.#active++;
    return entry;
  }

  #release(entry: Entry): void {
    if (this.#requests.get(entry.key) === entry) this.#requests.delete(entry.key);
    this.#done();
  }

  // ---- subscriptions --------------------------------------------------------------------

  #openSubscription(entry: Entry, subscription: OpenedSubscription, signal: Aborted): void {
    const slot = signal.aborted ? null : this.#executor.acquireSubscription(this.#owner);
    if (slot === null) {
      subscription.close();
      if (!signal.aborted) {
        this.#writer.write({
          jsonrpc: '2.0',
          id: entry.id,
          error: {
            code: ErrorCode.ServerOverloaded,
            message: `${ERROR_TABLE[ErrorCode.ServerOverloaded].message}: too many open subscriptions`,
          },
        });
      }
      return;
    }
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
    if (this.#closingSubscriptions) this.#endSubscription(listening, 'graceful');
  }

  async #pump(listening: Listening, stopped: Promise<undefined>): Promise<void> {
    const iterator = listening.subscription[Symbol.asyncIterator]();
    try {
      while (listening.ending === undefined) {
        const next = await Promise.race([iterator.next(), stopped]);
        if (next === undefined || next.done === true || listening.ending !== undefined) break;
        await this.#write(next.value);
      }
    } catch (error) {
      logInternal(error);
    } finally {
      // Ended by the server (or its queue overflowed) counts as graceful: the client gets the listen result.
      const ending = listening.ending ?? 'graceful';
      listening.ending = ending;
      const final = listening.subscription.close();
      if (ending === 'graceful' && !this.#failure) await this.#write(final);
      void iterator.return?.();
    }
  }

  #endSubscription(listening: Listening, ending: 'graceful' | 'silent'): void {
    if (listening.ending !== undefined) return;
    listening.ending = ending;
    listening.subscription.close();
    listening.stop();
  }

  // ---- writing, lifecycle ---------------------------------------------------------------

  /** Writes one message (or a batch array) as one line; settles when the output can take more. */
  #write(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> | undefined {
    if (this.#writer.write(message)) return;
    return this.#writer.ready();
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

  /** Terminal failure: stop reading, abort every task and subscription, reject `run`. */
  #terminate(error: Error): void {
    if (this.#failure) return;
    this.#failure = error;
    this.#stopReading();
    this.#owner.close(error);
    for (const listening of this.#listening.values()) this.#endSubscription(listening, 'silent');
    this.#fail(error);
  }
}

/** The library's only log output, on stderr: stdout carries protocol messages alone. */
function logInternal(error: unknown): void {
  console.error('[@snodo/transport-stdio] unexpected error while serving a request:', error);
}
