import type { AuthInfo } from '../dispatch/context.js';
import { InputRequiredSignal } from '../dispatch/input.js';
import type { Selection } from '../dispatch/select.js';
import { ErrorCode } from '../errors/codes.js';
import { ProtocolError } from '../errors/protocol-error.js';
import { optionError } from '../errors/table.js';
import { ExecutorError } from '../executor/errors.js';
import { Executor } from '../executor/executor.js';
import type { JsonRpcErrorObject } from '../jsonrpc/types.js';
import {
  DEFAULT_MAX_LISTEN_TASK_IDS,
  DEFAULT_MAX_RUNNING_TASKS,
  DEFAULT_TASK_AFTER_MS,
  DEFAULT_TASK_LEASE_MS,
  DEFAULT_TASK_POLL_INTERVAL_MS,
  DEFAULT_TASK_RESULT_TTL_MS,
  DEFAULT_TASK_TIMEOUT,
} from '../limits/defaults.js';
import { duration, knownOptions, option, positiveInteger } from '../limits/validate.js';
import type { CallToolResult } from '../protocol/types.js';
import type { ExtensionDefinition } from '../router/extension.js';
import { openTaskFeed, type TaskFeed } from './feed.js';
import { createMemoryTaskStore } from './memory-store.js';
import { tasksMethods } from './methods.js';
import { RunningTask } from './running.js';
import type { StoredTask, TaskStatus, TaskStore } from './store.js';
import { isTerminal, mintTaskId } from './wire.js';

export interface TaskManagerOptions {
  /** Where tasks live; default an in-memory store (`createMemoryTaskStore()`), for one process. */
  store?: TaskStore;
  /** Tasks this manager runs at once (default 32); beyond it `auto` calls stay ordinary, `always` calls get -32000. */
  maxRunningTasks?: number;
  /** A task's deadline in ms from when it starts (default 3,600,000); then it fails with -32001. 0 or Infinity: none. */
  taskTimeout?: number;
  /** How long a finished task stays readable, in ms from when it finished (default 3,600,000). */
  resultTtlMs?: number;
  /** The `pollIntervalMs` tasks suggest to their clients (default 1,000). */
  pollIntervalMs?: number;
  /** `auto` tools: ms a call runs as an ordinary call before it becomes a task (default 1,000). */
  taskAfterMs?: number;
  /** How long a running task's instance vouches for it, renewed every third (default 30,000). */
  leaseMs?: number;
  /** Task ids one `subscriptions/listen` may name (default 64). */
  maxListenTaskIds?: number;
}

const OPTION_NAMES = [
  'store',
  'maxRunningTasks',
  'taskTimeout',
  'resultTtlMs',
  'pollIntervalMs',
  'taskAfterMs',
  'leaseMs',
  'maxListenTaskIds',
] as const;

/** Counts since the manager was made; `running` is now. */
export interface TaskStats {
  running: number;
  created: number;
  completed: number;
  failed: number;
  cancelled: number;
  /** Calls that could not become tasks: every running slot busy, the store full, or the manager closed. */
  refused: number;
}

/** What ended a task, as its terminal state says it. */
type Outcome =
  | { readonly status: 'completed'; readonly result: Record<string, unknown> }
  | { readonly status: 'failed'; readonly error: JsonRpcErrorObject }
  | { readonly status: 'cancelled'; readonly message: string };

/** What `begin` needs to start a task. */
export interface TaskStart {
  readonly auth: AuthInfo | undefined;
  readonly selection: Selection;
  /** The handler's signal controller: aborted when the task is cancelled, times out or the server shuts down. */
  readonly controller: AbortController;
  /** The work, started once the task is stored: the handler (its promise, when it already runs). */
  readonly work: () => Promise<CallToolResult>;
}

const BRAND = Symbol.for('snodo.TaskManager');
const NOT_CREATED = Symbol('not created');

/**
 * Runs tool calls as tasks (Tasks extension, SEP-2663) for the servers it is given to
 * (`createServer({ tasks })`): admits them under its own bound (`maxRunningTasks`, apart from the
 * request executor), stores them, runs them to their end (or `tasks/cancel`, their deadline, or
 * `close()`), and serves `tasks/get`, `tasks/update`, `tasks/cancel` and `notifications/tasks`.
 * A task keeps running when the client that created it disconnects.
 */
export class TaskManager {
  readonly store: TaskStore;
  readonly maxRunningTasks: number;
  readonly taskTimeout: number;
  readonly resultTtlMs: number;
  readonly pollIntervalMs: number;
  readonly taskAfterMs: number;
  readonly leaseMs: number;
  readonly maxListenTaskIds: number;
  /** This instance, as the `worker` of the tasks it runs. */
  readonly id = mintTaskId();
  readonly #executor: Executor;
  readonly #running = new Map<string, RunningTask>();
  readonly #feeds = new Set<TaskFeed>();
  readonly #counts = { created: 0, completed: 0, failed: 0, cancelled: 0, refused: 0 };
  readonly #unsubscribe: () => void;
  #lease: ReturnType<typeof setInterval> | undefined;
  #closing: Promise<void> | undefined;

  constructor(options: TaskManagerOptions = {}) {
    if (typeof options !== 'object' || options === null)
      throw optionError('task manager options must be an object');
    knownOptions('task manager', options, OPTION_NAMES);
    const { store } = options;
    if (
      store !== undefined &&
      (typeof store !== 'object' || store === null || typeof store.update !== 'function')
    ) {
      throw optionError('store must be a TaskStore (create, get, update, subscribe)');
    }
    this.store = store ?? createMemoryTaskStore();
    this.maxRunningTasks = positiveInteger(
      'maxRunningTasks',
      options.maxRunningTasks,
      DEFAULT_MAX_RUNNING_TASKS,
    );
    this.taskTimeout = timeoutOption(options.taskTimeout);
    this.resultTtlMs = option('resultTtlMs', options.resultTtlMs, duration(1), DEFAULT_TASK_RESULT_TTL_MS);
    this.pollIntervalMs = option(
      'pollIntervalMs',
      options.pollIntervalMs,
      duration(1),
      DEFAULT_TASK_POLL_INTERVAL_MS,
    );
    this.taskAfterMs = option('taskAfterMs', options.taskAfterMs, duration(0), DEFAULT_TASK_AFTER_MS);
    this.leaseMs = option('leaseMs', options.leaseMs, duration(1), DEFAULT_TASK_LEASE_MS);
    this.maxListenTaskIds = positiveInteger(
      'maxListenTaskIds',
      options.maxListenTaskIds,
      DEFAULT_MAX_LISTEN_TASK_IDS,
    );
    // Tasks never queue: with no free slot a call is not made a task (`auto` stays an ordinary call).
    this.#executor = new Executor({
      maxConcurrency: this.maxRunningTasks,
      maxQueue: 0,
      requestTimeout: this.taskTimeout,
    });
    Object.defineProperty(this, BRAND, { value: true });
    this.#unsubscribe = this.store.subscribe((task) => this.#changed(task));
  }

  static is(value: unknown): value is TaskManager {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  get closed(): boolean {
    return this.#closing !== undefined;
  }

  stats(): TaskStats {
    // Slots held: a task stopped while its handler ignores the signal holds one until it returns.
    return { running: this.#executor.stats().running, ...this.#counts };
  }

  /**
   * Stops: no new tasks; every running task is stopped and stored as failed ("the server shut
   * down"), and the returned promise resolves once those states are stored. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#executor.destroy('task manager closed');
      await Promise.all([...this.#running.values()].map((running) => running.done));
      if (this.#lease !== undefined) clearInterval(this.#lease);
      this.#lease = undefined;
      this.#unsubscribe();
      for (const feed of this.#feeds) feed.stop();
    })();
    return this.#closing;
  }

  /** @internal The `io.modelcontextprotocol/tasks` extension `createServer` adds for this manager. */
  extension(): ExtensionDefinition {
    return {
      undeclared: 'missing-capability',
      modernOnly: true,
      nameParams: { 'tasks/get': 'taskId', 'tasks/update': 'taskId', 'tasks/cancel': 'taskId' },
      methods: tasksMethods(this),
      listen: (request) => openTaskFeed(this, request),
    };
  }

  /** @internal A feed of `notifications/tasks` for an open listen stream. */
  register(feed: TaskFeed): () => void {
    this.#feeds.add(feed);
    return () => this.#feeds.delete(feed);
  }

  /**
   * @internal Starts a task now, or returns undefined when a running slot is not free (or the
   * manager is closed). The slot is taken at once; `created` says whether the store took it.
   */
  begin(start: TaskStart): RunningTask | undefined {
    if (this.closed || this.#executor.full) {
      this.#counts.refused++;
      return undefined;
    }
    const now = Date.now();
    const ttlMs = this.taskTimeout === 0 ? null : this.taskTimeout + this.resultTtlMs;
    const task: StoredTask = {
      taskId: mintTaskId(),
      owner: ownerOf(start.auth),
      method: 'tools/call',
      protocolVersion: start.selection.dialect.version,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs,
      pollIntervalMs: this.pollIntervalMs,
      expiresAt: ttlMs === null ? null : now + ttlMs,
      revision: 1,
      worker: this.id,
      leaseUntil: now + this.leaseMs,
    };
    const { controller } = start;
    const running = new RunningTask(task.taskId, this.store, start.selection, controller.signal);
    this.#running.set(task.taskId, running);
    const stored = this.store.create(task).then(
      (ok) => ok,
      () => false,
    );
    running.created = stored.then((ok) => {
      if (ok) this.#counts.created++;
      else this.#counts.refused++;
      return ok ? task : undefined;
    });
    const settled = this.#executor.submit(
      async (signal) => {
        signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
        if (!(await stored)) throw NOT_CREATED;
        return start.work();
      },
      { signal: running.cancellation.signal },
    );
    running.done = settled.then(
      (result) => this.#finish(running, { status: 'completed', result }),
      (error) => (error === NOT_CREATED ? this.#forget(running) : this.#finish(running, outcomeOf(error))),
    );
    this.#keepLeases();
    return running;
  }

  /** @internal A task whose call was answered without it: dropped once it ends (at once if it has). */
  discard(running: RunningTask): void {
    running.orphan = true;
    this.store
      .update(running.taskId, (task) =>
        isTerminal(task.status)
          ? { ...task, expiresAt: Date.now(), ttlMs: Date.now() - task.createdAt }
          : undefined,
      )
      .catch(() => undefined);
  }

  /**
   * @internal The task `taskId` as `auth` may see it: undefined when unknown, expired or another
   * principal's. A live task nobody runs any more (its instance stopped: lease passed, or it was
   * this instance's) is failed first.
   */
  async find(taskId: string, auth: AuthInfo | undefined): Promise<StoredTask | undefined> {
    const task = await this.store.get(taskId);
    if (task === undefined || task.owner !== ownerOf(auth)) return undefined;
    if (isTerminal(task.status) || this.#running.has(taskId)) return task;
    const now = Date.now();
    if (task.worker !== this.id && task.leaseUntil >= now) return task;
    const lost = await this.store.update(taskId, (current) =>
      isTerminal(current.status) ||
      this.#running.has(taskId) ||
      (current.worker !== this.id && current.leaseUntil >= now)
        ? undefined
        : ended(
            current,
            failure(ErrorCode.InternalError, 'Task lost: the server running it stopped'),
            now,
            this.resultTtlMs,
          ),
    );
    return lost?.owner === task.owner ? lost : undefined;
  }

  /** @internal Stops a task running here (`tasks/cancel` seen on this or another instance). */
  #changed(task: StoredTask): void {
    const running = this.#running.get(task.taskId);
    if (running) {
      if (task.cancelRequested) running.cancellation.abort(new Error('cancelled by tasks/cancel'));
      running.deliver(task);
    }
    for (const feed of this.#feeds) feed.offer(task);
  }

  async #finish(running: RunningTask, outcome: Outcome): Promise<void> {
    running.end(new Error(`task ${running.taskId} ended`));
    const now = Date.now();
    const ttl = running.orphan ? 0 : this.resultTtlMs;
    try {
      const stored = await this.store.update(running.taskId, (task) =>
        isTerminal(task.status) ? undefined : ended(task, outcome, now, ttl),
      );
      if (stored?.status === outcome.status) this.#counts[outcome.status]++;
    } catch {
      // The store is unreachable: the lease runs out, and the next read fails the task.
    } finally {
      this.#forget(running);
    }
  }

  #forget(running: RunningTask): void {
    this.#running.delete(running.taskId);
    if (this.#running.size === 0 && this.#lease !== undefined) {
      clearInterval(this.#lease);
      this.#lease = undefined;
    }
  }

  /** Renews the lease of every task running here, every third of `leaseMs`, while any runs. */
  #keepLeases(): void {
    if (this.#lease !== undefined) return;
    this.#lease = setInterval(
      () => {
        const until = Date.now() + this.leaseMs;
        for (const running of this.#running.values()) {
          this.store
            .update(running.taskId, (task) =>
              isTerminal(task.status) || task.worker !== this.id ? undefined : { ...task, leaseUntil: until },
            )
            .catch(() => undefined);
        }
      },
      Math.max(1, Math.floor(this.leaseMs / 3)),
    );
    (this.#lease as { unref?: () => void }).unref?.();
  }
}

/** A task manager to give `createServer({ tasks })`; see `TaskManagerOptions` for the defaults. */
export function createTaskManager(options: TaskManagerOptions = {}): TaskManager {
  return new TaskManager(options);
}

export function ownerOf(auth: AuthInfo | undefined): string | null {
  return typeof auth?.principal === 'string' ? auth.principal : null;
}

/** The terminal state of `task`: kept for `ttl` ms from `now`. */
function ended(task: StoredTask, outcome: Outcome, now: number, ttl: number): StoredTask {
  const {
    inputRequests: _requests,
    inputResponses: _responses,
    cancelRequested: _cancel,
    statusMessage: _message,
    ...rest
  } = task;
  const base = {
    ...rest,
    status: outcome.status as TaskStatus,
    lastUpdatedAt: now,
    revision: task.revision + 1,
    expiresAt: now + ttl,
    ttlMs: now + ttl - task.createdAt,
  };
  switch (outcome.status) {
    case 'completed':
      return { ...base, result: outcome.result };
    case 'failed':
      return { ...base, error: outcome.error, statusMessage: outcome.error.message };
    case 'cancelled':
      return { ...base, statusMessage: outcome.message };
  }
}

function failure(code: number, message: string): Outcome {
  return { status: 'failed', error: { code, message } };
}

/** How a task's work ended, from the executor's rejection or the handler's protocol error. */
function outcomeOf(error: unknown): Outcome {
  if (ExecutorError.is(error)) {
    switch (error.code) {
      case 'SNODO_ERR_CANCELLED':
        return { status: 'cancelled', message: 'Cancelled by tasks/cancel' };
      case 'SNODO_ERR_REQUEST_TIMEOUT':
        return failure(ErrorCode.RequestTimeout, 'Task timed out');
      case 'SNODO_ERR_EXECUTOR_CLOSED':
        return failure(ErrorCode.InternalError, 'The server shut down before the task finished');
    }
  }
  if (ProtocolError.is(error)) {
    const { code, message, data } = error;
    return { status: 'failed', error: data === undefined ? { code, message } : { code, message, data } };
  }
  if (error instanceof InputRequiredSignal) {
    return failure(ErrorCode.InternalError, 'The tool asked for input after it became a task, as a retry');
  }
  return failure(ErrorCode.InternalError, 'Internal error');
}

/** `taskTimeout`: 0 and Infinity both mean none (0 for the executor). */
function timeoutOption(value: unknown): number {
  const timeout = option('taskTimeout', value, duration(0, true), DEFAULT_TASK_TIMEOUT);
  return timeout === Number.POSITIVE_INFINITY ? 0 : timeout;
}
