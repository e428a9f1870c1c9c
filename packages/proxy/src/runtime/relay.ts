import type { Subscription, Task } from '@snodo/client';
import {
  type ExtensionListenFeed,
  type ExtensionListenRequest,
  ProtocolError,
  type SubscriptionFilter,
  TASKS_EXTENSION,
} from '@snodo/core';
import type { Backend } from '../backend.js';
import type { Scope } from './context.js';
import { frontTask, offersTasks } from './tasks.js';

const TERMINAL: ReadonlySet<unknown> = new Set(['completed', 'failed', 'cancelled']);

/**
 * What one listen has sent of each relayed task, so that each state reaches the frontend once and
 * in order, as core's own feed does with its revisions: a backend's notification carries no
 * revision, so a state equal to the last one sent, older than it (`lastUpdatedAt`), or after the
 * task ended is dropped.
 */
class Sent {
  readonly #last = new Map<string, { key: string; at: number; ended: boolean }>();

  /** Whether `task` (a frontend's view) is news; remembers it when it is. */
  fresh(task: Record<string, unknown>): boolean {
    const id = String(task.taskId);
    const at = Date.parse(String(task.lastUpdatedAt));
    const { _meta: _, ...rest } = task;
    const key = JSON.stringify(
      Object.keys(rest)
        .sort()
        .map((name) => [name, rest[name]]),
    );
    const last = this.#last.get(id);
    if (last && (last.ended || last.key === key || (Number.isFinite(at) && at < last.at))) return false;
    this.#last.set(id, {
      key,
      at: Number.isFinite(at) ? at : (last?.at ?? 0),
      ended: TERMINAL.has(task.status),
    });
    return true;
  }
}

interface Opened {
  readonly backend: Backend;
  readonly subscription: Subscription;
  /** The honoured tasks' states read once the backend's listen was acknowledged. */
  readonly snapshot: Record<string, unknown>[];
}

/**
 * `notifications/tasks` for a listen whose filter names proxied task ids: one
 * `subscriptions/listen` per backend for the caller's tasks there, each notification relayed with
 * its task id wrapped again. Ids that are not the caller's, or that their backend did not honour,
 * are left out of the acknowledgement, as core leaves out unknown ones. Like core's feed, the
 * current state of each honoured task is sent first (read with `tasks/get` once the backend's
 * listen is acknowledged, so no change falls between), then each change once.
 */
export async function relayTasks(
  scope: Scope,
  request: ExtensionListenRequest,
): Promise<ExtensionListenFeed | undefined> {
  const { taskIds } = request.filter;
  if (taskIds === undefined) return undefined;
  if (!request.declared) throw ProtocolError.missingCapability({ extensions: { [TASKS_EXTENSION]: {} } });
  if (!Array.isArray(taskIds) || taskIds.some((id) => typeof id !== 'string')) {
    throw ProtocolError.invalidParams('notifications.taskIds must be an array of task id strings');
  }
  const byBackend = new Map<string, string[]>();
  for (const id of new Set(taskIds as string[])) {
    const ids = scope.taskIds.unwrap(id, request.auth);
    if (!ids) continue;
    byBackend.set(ids.backendId, [...(byBackend.get(ids.backendId) ?? []), ids.taskId]);
  }
  const opened: Opened[] = [];
  const honoured: string[] = [];
  for (const [backendId, ids] of byBackend) {
    const backend = scope.core.backend(backendId);
    const client = backend?.client;
    if (!backend || !client || !offersTasks(client)) continue;
    const subscription = client.listen({ taskIds: ids } as SubscriptionFilter);
    try {
      const acknowledged = (await subscription.ready) as { taskIds?: unknown };
      const kept = Array.isArray(acknowledged.taskIds) ? (acknowledged.taskIds as string[]) : [];
      if (kept.length === 0) {
        await subscription.close();
        continue;
      }
      const states = await Promise.all(
        kept.map((id) => client.tasks.get(id).catch(() => undefined as Task | undefined)),
      );
      const snapshot = states
        .filter((task): task is Task => task !== undefined)
        .map((task) => frontTask(scope, backend, task, request.auth));
      for (const id of kept) honoured.push(scope.taskIds.wrap(backendId, id, request.auth));
      opened.push({ backend, subscription, snapshot });
    } catch {
      // The backend could not be asked (down, or it refused): its tasks are not honoured.
      await subscription.close().catch(() => undefined);
    }
  }
  const closeAll = () => {
    for (const { subscription } of opened) subscription.close().catch(() => undefined);
  };
  return {
    honoured: { taskIds: honoured },
    start(send) {
      const sent = new Sent();
      const relay = (task: Record<string, unknown>) => !sent.fresh(task) || send('notifications/tasks', task);
      for (const { backend, subscription, snapshot } of opened) {
        if (!snapshot.every(relay)) break;
        void (async () => {
          try {
            for await (const notification of subscription) {
              if (notification.method !== 'notifications/tasks') continue;
              const { _meta: _, ...task } = (notification.params ?? {}) as Record<string, unknown>;
              if (!relay(frontTask(scope, backend, task, request.auth))) break;
            }
          } catch {
            // The backend's stream ended with an error: its tasks are polled from here on.
          }
        })();
      }
      return closeAll;
    },
    cancel: closeAll,
  };
}
