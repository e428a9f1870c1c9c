import type { InputRequest } from '../dispatch/input.js';
import type { JsonRpcErrorObject } from '../jsonrpc/types.js';

/** A task's status (Tasks extension): two live ones, three terminal ones. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/**
 * One task as a `TaskStore` holds it: plain JSON, so a store shared by several instances can
 * serialize it. Times are ms since the epoch. `TaskManager` writes it; a store only keeps it.
 */
export interface StoredTask {
  readonly taskId: string;
  /** `auth.principal` of the request that created it; null for an anonymous caller. */
  readonly owner: string | null;
  /** The request the task augments (`tools/call`) and its revision. */
  readonly method: string;
  readonly protocolVersion: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  readonly createdAt: number;
  readonly lastUpdatedAt: number;
  /** Lifetime from `createdAt` as the client is told (`ttlMs`); null: unlimited while it runs. */
  readonly ttlMs: number | null;
  readonly pollIntervalMs: number;
  /** When the store may drop it; null: not before it finishes. Always `createdAt + ttlMs`. */
  readonly expiresAt: number | null;
  /** Counts the changes a client can see (status, message, input, outcome); starts at 1. */
  readonly revision: number;
  /** Outstanding input requests while `input_required`, by key (unique over the task's life). */
  readonly inputRequests?: Readonly<Record<string, InputRequest>>;
  /** Answers `tasks/update` checked and stored for the worker, by key. */
  readonly inputResponses?: Readonly<Record<string, Record<string, unknown>>>;
  readonly result?: Record<string, unknown>;
  readonly error?: JsonRpcErrorObject;
  /** `tasks/cancel` arrived: the instance running the task stops it. */
  readonly cancelRequested?: boolean;
  /** The task manager instance running it. */
  readonly worker: string;
  /** Until when that instance vouches for it: a live task past its lease that nobody runs has failed. */
  readonly leaseUntil: number;
}

/**
 * Where tasks live: in this process (`createMemoryTaskStore`, the default) or shared by several
 * instances (`@snodo/redis`), so that a task created on one instance is read, updated and
 * cancelled on another. Every method may reject when the store is unreachable; the request that
 * needed it then fails with -32603.
 */
export interface TaskStore {
  /**
   * Stores a new task. Resolves true once a `get` on any instance finds it (a task handle is only
   * given out after that, as SEP-2663 requires), false when the store is full.
   */
  create(task: StoredTask): Promise<boolean>;
  /** The task, or undefined when it is unknown or expired. */
  get(taskId: string): Promise<StoredTask | undefined>;
  /**
   * Replaces the task with `change(current)` atomically and resolves with what is stored after: the
   * new task, the current one when `change` returned undefined (nothing to do), or undefined when
   * the task is unknown or expired. `change` is pure and may run more than once (a shared store
   * retries it when another instance changed the task meanwhile). Each stored change reaches the
   * `subscribe` listeners of every instance sharing the store.
   */
  update(
    taskId: string,
    change: (task: StoredTask) => StoredTask | undefined,
  ): Promise<StoredTask | undefined>;
  /**
   * Calls `listener` with the task after each stored change, whichever instance made it (this
   * one's included). Returns the function that stops it.
   */
  subscribe(listener: (task: StoredTask) => void): () => void;
}
