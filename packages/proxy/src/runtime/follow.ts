import { setTimeout as delay } from 'node:timers/promises';
import type { Task } from '@snodo/client';
import { type HandlerContext, type InputRequest, ProtocolError } from '@snodo/core';
import type { Backend } from '../backend.js';

/** The longest wait between two polls of a backend's task while nothing changes. */
const MAX_POLL_INTERVAL_MS = 10_000;
const BACKOFF = 1.5;
const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/** What a frontend round keeps in its `requestState` while a followed task waits for its answer. */
export interface FollowState {
  /** The backend's task, as the caller's handle (`<backend>:<tag>:<id>`). */
  readonly t: string;
}

export function followState(value: unknown): FollowState | undefined {
  const state = value as FollowState | undefined;
  return state && typeof state.t === 'string' ? state : undefined;
}

/**
 * Follows a backend's task to its end for a caller that holds no handle of it: a frontend that did
 * not declare the Tasks extension, or the proxy's own task. Polls `tasks/get` at the backend's
 * `pollIntervalMs` (backing off ×1.5 up to 10 s while nothing changes) and asks `context` for the
 * task's input requests: a task of the proxy's own (its `input_required`, answered by
 * `tasks/update`), an initialize-based frontend (server-initiated requests), or a 2026-07-28 one
 * (an `input_required` round whose `requestState` names the task: its retry comes back here). The
 * task is cancelled on the backend when the follow fails or `context.signal` aborts, never when a
 * round ends waiting for the frontend's answer.
 */
export async function followTask(
  backend: Backend,
  what: string,
  first: Task,
  handle: string,
  context: HandlerContext,
  maxInputRounds: number,
): Promise<Record<string, unknown>> {
  const { signal } = context;
  const taskId = first.taskId;
  const get = () =>
    backend.call(what, undefined, (client) => client.tasks.get(taskId, { signal })) as Promise<Task>;
  const answered = new Set<string>();
  let rounds = 0;
  let task = first;
  let wait = intervalOf(task);
  try {
    for (;;) {
      switch (task.status) {
        case 'completed':
          return (task.result ?? { content: [] }) as Record<string, unknown>;
        case 'failed': {
          const error = task.error ?? { code: -32603, message: task.statusMessage ?? 'Task failed' };
          throw new ProtocolError(error.code, error.message, error.data);
        }
        case 'cancelled':
          throw new ProtocolError(
            -32603,
            `The task of the server behind ${what} was cancelled${task.statusMessage ? `: ${task.statusMessage}` : ''}`,
          );
        case 'input_required': {
          const pending = Object.entries(task.inputRequests ?? {}).filter(([key]) => !answered.has(key));
          if (pending.length === 0) break;
          if (++rounds > maxInputRounds) {
            throw new ProtocolError(
              -32603,
              `The task of the server behind ${what} asked for input more than ${maxInputRounds} times`,
            );
          }
          const state: FollowState = { t: handle };
          const answers = await context.input(Object.fromEntries(pending) as Record<string, InputRequest>, {
            state,
          });
          await backend.call(what, undefined, (client) => client.tasks.update(taskId, answers, { signal }));
          for (const [key] of pending) answered.add(key);
          task = await get();
          wait = intervalOf(task);
          continue;
        }
      }
      await delay(wait, undefined, { signal });
      const next = await get();
      const changed = next.status !== task.status || next.statusMessage !== task.statusMessage;
      wait = changed
        ? intervalOf(next)
        : Math.max(intervalOf(next), Math.min(Math.round(wait * BACKOFF), MAX_POLL_INTERVAL_MS));
      task = next;
    }
  } catch (error) {
    // A round that ends waiting for the frontend's answer (not an Error) leaves the task waiting.
    if (error instanceof Error && !TERMINAL.has(task.status)) {
      backend.call(what, undefined, (client) => client.tasks.cancel(taskId)).catch(() => undefined);
      if (signal.aborted) throw signal.reason;
    }
    throw error;
  }
}

function intervalOf(task: Task): number {
  const suggested = task.pollIntervalMs;
  return typeof suggested === 'number' && Number.isFinite(suggested) && suggested > 0 ? suggested : 1_000;
}
