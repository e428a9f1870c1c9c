import { branded, brandedInstance } from '../errors/brand.js';
import { optionError } from '../errors/table.js';
import { COMMON_RULES, checkOptions, duration, type OptionSchema, option } from '../limits/validate.js';
import { type Logger, log, loggerProblem } from '../telemetry/log.js';
import { type DeadlineItem, DeadlineList } from './deadlines.js';
import { ExecutorError } from './errors.js';
import { Fifo, type FifoItem } from './fifo.js';
import { type AbortSignalLike, LazySignal } from './lazy-signal.js';
import { startAfterWait, trackExecutor } from './observe.js';

export const DEFAULT_MAX_CONCURRENCY = 64;
export const DEFAULT_MAX_QUEUE = 256;
/** Milliseconds from submit; 0 or Infinity disables the deadline. */
export const DEFAULT_REQUEST_TIMEOUT = 60_000;
export const DEFAULT_MAX_SUBSCRIPTIONS = 256;

export interface ExecutorOptions {
  /** Tasks running at once. Default 64. */
  maxConcurrency?: number;
  /** Tasks waiting for a slot; 0 means none wait. Default 256. */
  maxQueue?: number;
  /** Deadline in ms, counted from submit (queue time included); 0 or Infinity disables it. Default 60 000. */
  requestTimeout?: number;
  /** Subscription slots held at once, across every transport sharing this executor. Default 256. */
  maxSubscriptions?: number;
  /**
   * A pino-compatible logger, told (`warn`) when the executor refuses work as overloaded: at most
   * one line per `refusalLogInterval`, counting the refusals since the last line. The hosts pass the
   * runtime's `logger` to the executor they create.
   */
  logger?: Logger;
  /** Least ms between two "overloaded" lines (0: one per refusal). Default 10,000. */
  refusalLogInterval?: number;
}

/** Least ms between two "overloaded" log lines of one executor. */
export const DEFAULT_REFUSAL_LOG_INTERVAL = 10_000;

/**
 * Every accepted or refused submit ends in exactly one of completed, rejected, timedOut or
 * cancelled, counted when its promise settles (or, for rejected, when it is refused).
 */
export interface ExecutorStats {
  /** Concurrency slots held. Includes tasks whose caller already got a timeout or cancellation. */
  running: number;
  queued: number;
  /** Tasks that ran and whose own result or error reached the caller. */
  completed: number;
  /** Refused at submit: SNODO_ERR_OVERLOADED, or SNODO_ERR_EXECUTOR_CLOSED after close()/destroy(). */
  rejected: number;
  timedOut: number;
  /** Aborted by the outside signal, the owner closing, or destroy(). */
  cancelled: number;
  subscriptions: number;
  subscriptionsRejected: number;
}

export interface SubmitOptions {
  /** The connection or submitter; closing it aborts everything it submitted. */
  owner?: ExecutorOwner;
  /** An outside cancellation, such as notifications/cancelled or a client disconnect. */
  signal?: AbortSignal;
  /** Overrides `requestTimeout` for this task, with the same rules. */
  timeout?: number;
}

export interface ExecutorOwner {
  close(reason?: unknown): void;
  readonly closed: boolean;
  /** Aborted, with an SNODO_ERR_CANCELLED error whose cause is the close reason, when the owner closes. */
  readonly signal: AbortSignal;
}

export interface SubscriptionSlot {
  /** Returns the slot; idempotent. */
  release(): void;
}

/**
 * What a task submitted with `submitJob` gets: its job's cancellation. `aborted` and `reason` are
 * read without cost; `signal`, the AbortSignal a handler or a platform API needs, is made on its
 * first read (already aborted when the job was).
 */
export interface JobSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  readonly signal: AbortSignal;
}

/** `submitJob`'s options: SubmitOptions whose outside `signal` may be any AbortSignalLike (a LazySignal). */
export interface JobOptions extends Omit<SubmitOptions, 'signal'> {
  signal?: AbortSignalLike | undefined;
}

type Task = (signal: AbortSignal) => unknown;
type JobTask = (job: JobSignal) => unknown;
type Outcome = 'timedOut' | 'cancelled';
interface Owned {
  ownerClosed(error: ExecutorError): void;
}

/**
 * Runs each MCP request with bounded admission: at most `maxConcurrency` tasks run, the next
 * `maxQueue` wait in FIFO order, and any submit beyond that is refused with SNODO_ERR_OVERLOADED.
 * A submitter that must wait rather than be refused (one stdio peer on a pipe) reads `full` and
 * waits on `whenNotFull()` before submitting: backpressure instead of refusal.
 *
 * A deadline, an outside signal, the owner closing, or destroy() aborts the task's signal and
 * rejects the caller at once. A running task keeps its concurrency slot until its own promise
 * settles, so handlers that ignore their signal cannot push the real concurrency past the bound.
 * A queued task leaves the queue at once and never runs.
 */
/** `new Executor(options)`: every option and its rule. */
export const EXECUTOR_OPTIONS: OptionSchema = Object.freeze({
  maxConcurrency: COMMON_RULES.maxConcurrency,
  maxQueue: COMMON_RULES.maxQueue,
  requestTimeout: COMMON_RULES.requestTimeout,
  maxSubscriptions: COMMON_RULES.maxSubscriptions,
  logger: COMMON_RULES.logger,
  refusalLogInterval: duration(0),
});

const EXECUTOR_BRAND = Symbol.for('snodo.Executor');
/** The key of `submitJob`'s method: a `Symbol.for` key, so an executor from another copy of core has it too. */
export const SUBMIT_JOB: unique symbol = Symbol.for('snodo.Executor.submitJob');

export class Executor {
  /** `instanceof` reads a `Symbol.for` brand: an executor from another loaded copy of core is one too. */
  static [Symbol.hasInstance](value: unknown): boolean {
    return brandedInstance(Executor, value);
  }

  static {
    branded(Executor, EXECUTOR_BRAND);
  }

  readonly #maxConcurrency: number;
  readonly #maxQueue: number;
  readonly #requestTimeout: number;
  readonly #maxSubscriptions: number;
  readonly #logger: Logger | undefined;
  readonly #refusalLogInterval: number;
  /** performance.now() of the last "overloaded" line; refusals since then. */
  #refusalLoggedAt = Number.NEGATIVE_INFINITY;
  #refusedSinceLog = 0;

  readonly #queue = new Fifo<Job>();
  readonly #running = new Set<Job>();
  #draining = false;
  #closed = false;
  #destroyed = false;
  #idle: Promise<void> | undefined;
  #resolveIdle: (() => void) | undefined;
  #subscriptions = 0;
  /** Settled (and dropped) the first time `full` turns false while someone waits on whenNotFull(). */
  #notFull: { promise: Promise<void>; resolve: () => void } | undefined;
  readonly #counts = { completed: 0, rejected: 0, timedOut: 0, cancelled: 0, subscriptionsRejected: 0 };
  /** One deadline list per timeout in use (deadlines.ts); a list leaves the map when it fires empty. */
  readonly #deadlines = new Map<number, DeadlineList>();

  constructor(options: ExecutorOptions = {}) {
    // `undefined` values are how hosts pass "not set" through, so they are not unknown options.
    checkOptions('Executor', options, EXECUTOR_OPTIONS);
    this.#maxConcurrency = options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY;
    this.#maxQueue = options.maxQueue ?? DEFAULT_MAX_QUEUE;
    this.#requestTimeout = options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT;
    this.#maxSubscriptions = options.maxSubscriptions ?? DEFAULT_MAX_SUBSCRIPTIONS;
    const problem = loggerProblem('logger', options.logger);
    if (problem !== undefined) throw optionError(problem);
    this.#logger = options.logger;
    this.#refusalLogInterval = options.refusalLogInterval ?? DEFAULT_REFUSAL_LOG_INTERVAL;
    trackExecutor(this);
  }

  /**
   * Runs `task` when a slot is free. The returned promise never throws synchronously: invalid
   * arguments reject it with a TypeError (a `timeout` breaking its rule: `SNODO_ERR_INVALID_OPTION`),
   * refusal with an ExecutorError.
   */
  submit<T>(task: (signal: AbortSignal) => Promise<T> | T, options: SubmitOptions = {}): Promise<T> {
    return this.#submit(task, options, false);
  }

  /** `submitJob`: the task gets its job, whose AbortSignal is made only if read. */
  [SUBMIT_JOB]<T>(task: (job: JobSignal) => Promise<T> | T, options: JobOptions = {}): Promise<T> {
    return this.#submit(task, options, true);
  }

  #submit<T>(task: Task | JobTask, options: SubmitOptions | JobOptions, lazy: boolean): Promise<T> {
    let timeout: number;
    try {
      if (typeof task !== 'function') throw new TypeError(`task must be a function, got ${describe(task)}`);
      if (typeof options !== 'object' || options === null) {
        throw new TypeError(`options must be an object, got ${describe(options)}`);
      }
      timeout = option('timeout', options.timeout, COMMON_RULES.requestTimeout, this.#requestTimeout);
      if (options.signal !== undefined && !isAbortSignal(options.signal)) {
        throw new TypeError(`signal must be an AbortSignal, got ${describe(options.signal)}`);
      }
      if (options.owner !== undefined && !Owner.belongsTo(options.owner, this)) {
        throw new TypeError('owner must come from this executor’s owner()');
      }
    } catch (error) {
      return Promise.reject(error);
    }
    const { owner, signal } = options as { owner?: Owner; signal?: AbortSignalLike };

    if (this.#closed) {
      this.#counts.rejected++;
      return Promise.reject(new ExecutorError('SNODO_ERR_EXECUTOR_CLOSED'));
    }
    if (signal?.aborted) {
      this.#counts.cancelled++;
      return Promise.reject(new ExecutorError('SNODO_ERR_CANCELLED', { cause: signal.reason }));
    }
    if (owner?.closed) {
      this.#counts.cancelled++;
      return Promise.reject(owner.closeError);
    }
    const startNow = this.#canStart();
    if (!startNow && this.#queue.size >= this.#maxQueue) {
      this.#counts.rejected++;
      this.#logRefusal();
      return Promise.reject(new ExecutorError('SNODO_ERR_OVERLOADED'));
    }

    return new Promise<T>((resolve, reject) => {
      const job = new Job(
        this.#jobHost,
        task,
        lazy,
        resolve as (value: unknown) => void,
        reject,
        signal,
        owner,
      );
      if (timeout !== 0 && timeout !== Number.POSITIVE_INFINITY) this.#deadlineList(timeout).add(job);
      signal?.addEventListener('abort', job, { once: true });
      owner?.own(job);
      if (startNow) this.#start(job);
      else {
        job.queuedAt = performance.now();
        this.#queue.push(job);
      }
    });
  }

  /** One "overloaded" line per `refusalLogInterval` at most: a flood of refusals is not a flood of logs. */
  #logRefusal(): void {
    if (this.#logger === undefined) return;
    this.#refusedSinceLog++;
    const now = performance.now();
    if (now - this.#refusalLoggedAt < this.#refusalLogInterval) return;
    this.#refusalLoggedAt = now;
    const fields = {
      refused: this.#refusedSinceLog,
      running: this.#running.size,
      queued: this.#queue.size,
      maxConcurrency: this.#maxConcurrency,
      maxQueue: this.#maxQueue,
    };
    this.#refusedSinceLog = 0;
    log(this.#logger, 'warn', fields, 'executor overloaded: refusing requests');
  }

  /**
   * True while a submit would be refused with SNODO_ERR_OVERLOADED: every slot is busy and the
   * queue is full. False once closed (a submit is then refused as closed, not as overloaded).
   */
  get full(): boolean {
    return !this.#closed && !this.#canStart() && this.#queue.size >= this.#maxQueue;
  }

  /**
   * Resolves once `full` is false: a task finished or left the queue, or the executor closed. At
   * once when not full. Every waiter wakes together: with several submitters sharing the executor,
   * read `full` again before submitting.
   */
  whenNotFull(): Promise<void> {
    if (!this.full) return Promise.resolve();
    if (this.#notFull === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((settle) => {
        resolve = settle;
      });
      this.#notFull = { promise, resolve };
    }
    return this.#notFull.promise;
  }

  /** A new submitter scope, typically one per connection. */
  owner(): ExecutorOwner {
    return new Owner(this);
  }

  /**
   * Takes a subscription slot, or returns null (counted in subscriptionsRejected) when
   * `maxSubscriptions` are held, the owner is closed, or the executor is closed.
   */
  acquireSubscription(owner?: ExecutorOwner): SubscriptionSlot | null {
    if (owner !== undefined && !Owner.belongsTo(owner, this)) {
      throw new TypeError('owner must come from this executor’s owner()');
    }
    const scope = owner as Owner | undefined;
    if (this.#closed || scope?.closed || this.#subscriptions >= this.#maxSubscriptions) {
      this.#counts.subscriptionsRejected++;
      return null;
    }
    this.#subscriptions++;
    const slot = new Slot(() => {
      this.#subscriptions--;
      scope?.disown(slot);
    });
    scope?.own(slot);
    return slot;
  }

  stats(): ExecutorStats {
    return {
      running: this.#running.size,
      queued: this.#queue.size,
      ...this.#counts,
      subscriptions: this.#subscriptions,
    };
  }

  /**
   * Graceful: refuses new work with SNODO_ERR_EXECUTOR_CLOSED and resolves once every running and
   * queued task has settled. Held subscription slots are left to their holders. Idempotent.
   */
  close(): Promise<void> {
    this.#closed = true;
    this.#checkNotFull();
    if (this.#idle === undefined) {
      this.#idle = new Promise<void>((resolve) => {
        this.#resolveIdle = resolve;
      });
      this.#checkIdle();
    }
    return this.#idle;
  }

  /**
   * Forced: refuses new work and aborts every running and queued task now with
   * SNODO_ERR_EXECUTOR_CLOSED (cause: `reason`), counted as cancelled. A task that ignores its
   * signal still holds its slot until it settles; close() resolves then. Subscription slots are
   * left to their holders. Idempotent.
   */
  destroy(reason?: unknown): void {
    if (this.#destroyed) return;
    this.#destroyed = this.#closed = true;
    const error = new ExecutorError(
      'SNODO_ERR_EXECUTOR_CLOSED',
      reason === undefined ? undefined : { cause: reason },
    );
    for (let job = this.#queue.shift(); job !== undefined; job = this.#queue.shift()) {
      this.#abort(job, error, 'cancelled');
    }
    for (const job of this.#running) this.#abort(job, error, 'cancelled');
    this.#checkIdle();
    this.#checkNotFull();
  }

  #deadlineList(timeout: number): DeadlineList {
    let list = this.#deadlines.get(timeout);
    if (list === undefined) {
      list = new DeadlineList(timeout, onDeadline, () => this.#deadlines.delete(timeout));
      this.#deadlines.set(timeout, list);
    }
    return list;
  }

  readonly #jobHost: JobHost = {
    abort: (job, error, outcome) => this.#abort(job, error, outcome),
  };

  #start(job: Job): void {
    this.#running.add(job);
    const task = job.task;
    job.task = undefined;
    let result: unknown;
    const waited = job.queuedAt === undefined ? 0 : performance.now() - job.queuedAt;
    try {
      // A task of `submit` gets a real AbortSignal now; one of `submitJob` gets the job (lazy signal).
      result = job.lazy
        ? startAfterWait(waited, task as JobTask, job)
        : startAfterWait(waited, task as Task, job.signal);
    } catch (error) {
      this.#finish(job, false, error);
      return;
    }
    Promise.resolve(result).then(
      (value) => this.#finish(job, true, value),
      (error) => this.#finish(job, false, error),
    );
  }

  #finish(job: Job, ok: boolean, value: unknown): void {
    this.#running.delete(job);
    if (job.settle()) {
      this.#counts.completed++;
      if (ok) job.resolve(value);
      else job.reject(value);
    }
    job.release();
    this.#drain();
  }

  /** Rejects the caller now; a queued job leaves the queue, a running one keeps its slot until it settles. */
  #abort(job: Job, error: ExecutorError, outcome: Outcome): void {
    if (!job.settle()) return;
    this.#counts[outcome]++;
    const queued = this.#queue.remove(job);
    job.abort(error);
    job.reject(error);
    if (queued || !this.#running.has(job)) {
      job.release();
      this.#checkIdle();
      this.#checkNotFull();
    }
  }

  /** While anything waits every slot is busy; checking the queue too keeps FIFO order by construction. */
  #canStart(): boolean {
    return this.#running.size < this.#maxConcurrency && this.#queue.size === 0;
  }

  #drain(): void {
    if (this.#draining) return; // a task that settled synchronously inside #start: the loop below continues
    this.#draining = true;
    try {
      while (this.#running.size < this.#maxConcurrency) {
        const job = this.#queue.shift();
        if (job === undefined) break;
        this.#start(job);
      }
    } finally {
      this.#draining = false;
    }
    this.#checkIdle();
    this.#checkNotFull();
  }

  #checkNotFull(): void {
    if (this.#notFull !== undefined && !this.full) {
      const { resolve } = this.#notFull;
      this.#notFull = undefined;
      resolve();
    }
  }

  #checkIdle(): void {
    if (this.#resolveIdle !== undefined && this.#running.size === 0 && this.#queue.size === 0) {
      this.#resolveIdle();
      this.#resolveIdle = undefined;
    }
  }
}

interface JobHost {
  abort(job: Job, error: ExecutorError, outcome: Outcome): void;
}

/**
 * One submission, and the cancellation its task sees (a LazySignal: aborted by a deadline, the
 * outside signal, the owner closing or destroy(); its AbortSignal made only if read). It is its
 * own abort listener (`handleEvent`), so a job costs no closures.
 */
class Job extends LazySignal implements FifoItem, DeadlineItem, Owned, JobSignal {
  fifoPos = -1;
  deadlineAt = 0;
  deadlinePrev: DeadlineItem | undefined = undefined;
  deadlineNext: DeadlineItem | undefined = undefined;
  deadlineList: DeadlineList | undefined = undefined;
  queuedAt: number | undefined = undefined; // performance.now() when it entered the queue; undefined if it started at once
  #settled = false;

  constructor(
    readonly host: JobHost,
    public task: Task | JobTask | undefined,
    /** The task takes the job itself (`submitJob`), not an AbortSignal (`submit`). */
    readonly lazy: boolean,
    public resolve: (value: unknown) => void,
    public reject: (reason: unknown) => void,
    public outside: AbortSignalLike | undefined,
    public owner: Owner | undefined,
  ) {
    super();
  }

  /** Marks the caller's promise as decided and detaches the timer and listeners; false if already decided. */
  settle(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    this.deadlineList?.remove(this);
    this.outside?.removeEventListener('abort', this);
    this.owner?.disown(this);
    return true;
  }

  /** Drops every reference the job holds, once it is out of the queue and not running. */
  release(): void {
    this.task = undefined;
    this.resolve = this.reject = noop;
    this.outside = this.owner = undefined;
  }

  handleEvent(): void {
    this.host.abort(
      this,
      new ExecutorError('SNODO_ERR_CANCELLED', { cause: this.outside?.reason }),
      'cancelled',
    );
  }

  ownerClosed(error: ExecutorError): void {
    this.host.abort(this, error, 'cancelled');
  }
}

function onDeadline(item: DeadlineItem): void {
  const job = item as Job;
  job.host.abort(job, new ExecutorError('SNODO_ERR_REQUEST_TIMEOUT'), 'timedOut');
}

class Owner implements ExecutorOwner {
  readonly #executor: Executor;
  readonly #controller = new AbortController();
  readonly #owned = new Set<Owned>();
  #closeError: ExecutorError | undefined;

  constructor(executor: Executor) {
    this.#executor = executor;
  }

  static belongsTo(value: unknown, executor: Executor): value is Owner {
    return typeof value === 'object' && value !== null && #executor in value && value.#executor === executor;
  }

  get closed(): boolean {
    return this.#closeError !== undefined;
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get closeError(): ExecutorError | undefined {
    return this.#closeError;
  }

  own(item: Owned): void {
    this.#owned.add(item);
  }

  disown(item: Owned): void {
    this.#owned.delete(item);
  }

  close(reason?: unknown): void {
    if (this.#closeError !== undefined) return;
    const error = new ExecutorError(
      'SNODO_ERR_CANCELLED',
      reason === undefined ? undefined : { cause: reason },
    );
    this.#closeError = error;
    for (const item of [...this.#owned]) item.ownerClosed(error);
    this.#owned.clear();
    this.#controller.abort(error);
  }
}

class Slot implements SubscriptionSlot, Owned {
  #onRelease: (() => void) | undefined;

  constructor(onRelease: () => void) {
    this.#onRelease = onRelease;
  }

  release(): void {
    const onRelease = this.#onRelease;
    this.#onRelease = undefined;
    onRelease?.();
  }

  ownerClosed(): void {
    this.release();
  }
}

function noop(): void {}

/**
 * Core's own submit: like `executor.submit`, but the task gets its job (`JobSignal`), whose
 * AbortSignal is made only if something reads it, and the outside `signal` may be a LazySignal.
 * An executor from an older copy of core without it runs the task through `submit`.
 */
export function submitJob<T>(
  executor: Executor,
  task: (job: JobSignal) => Promise<T> | T,
  options: JobOptions = {},
): Promise<T> {
  const own = (executor as unknown as Partial<Record<typeof SUBMIT_JOB, Executor[typeof SUBMIT_JOB]>>)[
    SUBMIT_JOB
  ];
  if (own !== undefined) return own.call(executor, task, options) as Promise<T>;
  return executor.submit((signal) => task(signalJob(signal)), options as SubmitOptions);
}

function signalJob(signal: AbortSignal): JobSignal {
  return {
    get aborted() {
      return signal.aborted;
    },
    get reason() {
      return signal.reason;
    },
    signal,
  };
}

function isAbortSignal(value: unknown): value is AbortSignal {
  // Duck-typed rather than instanceof, so a signal from another realm or polyfill is accepted.
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as AbortSignal).aborted === 'boolean' &&
    typeof (value as AbortSignal).addEventListener === 'function' &&
    typeof (value as AbortSignal).removeEventListener === 'function'
  );
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'an array' : 'an object';
  return String(value);
}
