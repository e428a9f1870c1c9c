import { type CallToolResult, ProtocolError, type TaskStatus } from '@snodo/core';
import { DEFAULT_TASK_POLL_INTERVAL } from './defaults.js';
import { clientError } from './errors.js';
import { fulfilInputRequests } from './input.js';
import type { Settings } from './options.js';
import type { CallOptions } from './types.js';

/** A task's state: core's `TaskStatus`, one type on both sides. */
export type { TaskStatus } from '@snodo/core';

/**
 * A task as the server describes it: the handle a tool call answered with (`CreateTaskResult`),
 * or its state from `tasks/get` with the outstanding `inputRequests`, the `result` or the `error`.
 */
export interface Task {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** Lifetime from `createdAt` in ms; null: unlimited. */
  ttlMs: number | null;
  pollIntervalMs?: number;
  inputRequests?: Record<string, { method: string; params?: Record<string, unknown> }>;
  result?: CallToolResult;
  error?: { code: number; message: string; data?: unknown };
  [key: string]: unknown;
}

/** What a tool call answered at once: its result, or the task it became. */
export type ToolStart =
  | { readonly result: CallToolResult; readonly task?: undefined }
  | { readonly task: Task; readonly result?: undefined };

export interface FollowOptions extends CallOptions {
  /** Each state of the task as it is seen (the handle, then every poll). */
  onStatus?: (task: Task) => void;
}

/** What a `TaskClient` needs from its `Client`. */
export interface TaskPort {
  readonly settings: Settings;
  /** Sends a request of the connection and returns its result. */
  request(
    method: string,
    params: Record<string, unknown>,
    options: CallOptions,
  ): Promise<Record<string, unknown>>;
  /** `tools/call` as the server answered it (a result or a task handle), with `callTool`'s headers. */
  callTool(
    name: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<Record<string, unknown>>;
}

const STATUSES: ReadonlySet<unknown> = new Set([
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
]);
const BACKOFF = 1.5;

/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`) from the client's side, as `client.tasks`.
 * `callTool` follows a task by itself; this is for callers that keep the handle and come back
 * later (store `task.taskId`, then `follow` it, from this client or another one of the same user).
 */
export class TaskClient {
  readonly #port: TaskPort;

  /** @internal Made by `Client`. */
  constructor(port: TaskPort) {
    this.#port = port;
  }

  /** Calls a tool and returns what the server answered at once: the result, or the task (not followed). */
  async start(
    name: string,
    args: Record<string, unknown> = {},
    options: CallOptions = {},
  ): Promise<ToolStart> {
    const answer = await this.#port.callTool(name, args, options);
    return answer.resultType === 'task'
      ? { task: asTask(answer, 'tools/call') }
      : { result: answer as CallToolResult };
  }

  /** The task's current state (`tasks/get`); -32602 when the server does not know it (any more). */
  async get(taskId: string, options: CallOptions = {}): Promise<Task> {
    return asTask(await this.#port.request('tasks/get', { taskId }, options), 'tasks/get');
  }

  /** Answers some of the task's `inputRequests` (`tasks/update`), keyed as asked. */
  async update(
    taskId: string,
    inputResponses: Record<string, unknown>,
    options: CallOptions = {},
  ): Promise<void> {
    await this.#port.request('tasks/update', { taskId, inputResponses }, options);
  }

  /** Asks the server to cancel the task (`tasks/cancel`); it may still end otherwise. */
  async cancel(taskId: string, options: CallOptions = {}): Promise<void> {
    await this.#port.request('tasks/cancel', { taskId }, options);
  }

  /**
   * Follows a task to its end and returns its tool result: polls `tasks/get` at the server's
   * `pollIntervalMs`, backing off (×1.5, up to `tasks.maxPollInterval`) while nothing changes;
   * answers its input requests with the client's input handlers (each key once, at most
   * `maxInputRounds` rounds). A task that failed throws its `ProtocolError`, a cancelled one
   * SNODO_ERR_TASK_CANCELLED. Aborting `signal` sends `tasks/cancel` and throws SNODO_ERR_ABORTED.
   * `timeout` bounds each request, not the task.
   */
  async follow(task: Task | string, options: FollowOptions = {}): Promise<CallToolResult> {
    const taskId = typeof task === 'string' ? task : task.taskId;
    try {
      return await this.#follow(typeof task === 'string' ? await this.get(task, options) : task, options);
    } catch (error) {
      if (options.signal?.aborted) {
        this.cancel(taskId).catch((failure: unknown) =>
          this.#port.settings.onWarning?.(`cancelling task ${taskId} failed: ${String(failure)}`),
        );
      }
      throw error;
    }
  }

  async #follow(first: Task, options: FollowOptions): Promise<CallToolResult> {
    const { settings } = this.#port;
    const answered = new Set<string>();
    let rounds = 0;
    let task = first;
    let wait = intervalOf(task);
    for (;;) {
      options.onStatus?.(task);
      switch (task.status) {
        case 'completed':
          return resultOf(task);
        case 'failed': {
          const error = task.error ?? { code: -32603, message: task.statusMessage ?? 'Task failed' };
          throw new ProtocolError(error.code, error.message, error.data);
        }
        case 'cancelled':
          throw clientError(
            'SNODO_ERR_TASK_CANCELLED',
            `task ${task.taskId} was cancelled${task.statusMessage ? `: ${task.statusMessage}` : ''}`,
          );
        case 'input_required': {
          const pending = Object.entries(task.inputRequests ?? {}).filter(([key]) => !answered.has(key));
          if (pending.length === 0) break;
          if (++rounds > settings.maxInputRounds) {
            throw clientError(
              'SNODO_ERR_INPUT_ROUNDS',
              `task ${task.taskId} asked for input more than ${settings.maxInputRounds} times`,
            );
          }
          const responses = await fulfilInputRequests(
            Object.fromEntries(pending),
            settings,
            options.signal,
            'task',
          );
          await this.update(task.taskId, responses, options);
          for (const [key] of pending) answered.add(key);
          task = await this.get(task.taskId, options);
          wait = intervalOf(task);
          continue;
        }
      }
      await delay(wait, options.signal);
      const next = await this.get(task.taskId, options);
      const changed = next.status !== task.status || next.statusMessage !== task.statusMessage;
      wait = changed
        ? intervalOf(next)
        : Math.max(intervalOf(next), Math.min(Math.round(wait * BACKOFF), settings.maxTaskPollInterval));
      task = next;
    }
  }
}

function intervalOf(task: Task): number {
  const suggested = task.pollIntervalMs;
  return typeof suggested === 'number' && Number.isFinite(suggested) && suggested > 0
    ? suggested
    : DEFAULT_TASK_POLL_INTERVAL;
}

function resultOf(task: Task): CallToolResult {
  const { result } = task;
  if (typeof result !== 'object' || result === null || !Array.isArray(result.content)) {
    throw clientError('SNODO_ERR_INVALID_RESULT', `completed task ${task.taskId} has no tool result`);
  }
  return result;
}

/** A task object from the server, checked enough to follow it. */
export function asTask(value: Record<string, unknown>, method: string): Task {
  if (typeof value.taskId !== 'string' || !STATUSES.has(value.status)) {
    throw clientError('SNODO_ERR_INVALID_RESULT', `${method} answered something that is not a task`);
  }
  return value as Task;
}

/** Resolves after `ms`, or rejects with SNODO_ERR_ABORTED when `signal` aborts first. */
function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const abort = () => {
      clearTimeout(timer);
      reject(clientError('SNODO_ERR_ABORTED', `following the task was aborted`));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    if (signal?.aborted) abort();
    else signal?.addEventListener('abort', abort, { once: true });
  });
}
