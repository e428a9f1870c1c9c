import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { Client, Subscription, Task } from '@snodo/client';
import {
  type AuthInfo,
  type ExtensionDefinition,
  type ExtensionListenFeed,
  type ExtensionListenRequest,
  ProtocolError,
  type SubscriptionFilter,
  TASKS_EXTENSION,
} from '@snodo/core';
import type { Backend } from '../backend.js';
import { rewriteToolResult } from '../links.js';
import { clean, type Scope } from './context.js';

/*
 * Tasks of backends (Tasks extension, SEP-2663) as the proxy's frontends see them:
 *
 *   frontend ── tools/call ──► proxy ── tools/call (declaring the extension) ──► backend
 *            ◄─ {taskId: "<backend>:<tag>:<id>"} ◄───────── {taskId: "<id>"} ◄──
 *            ── tasks/get|update|cancel "<backend>:<tag>:<id>" ──► backend "<id>"
 *
 * The backend sees the proxy's own credentials whoever the frontend is, so it cannot tell the
 * proxy's callers apart: the tag does. It is an HMAC of the caller's identity (its principal, a
 * digest of its token, or "anonymous"), the backend and the backend's id, under the runtime's
 * MRTR secret (else a key of this proxy), so another caller's handle is "not found", exactly like
 * an unknown one, and handles verify on every proxy that shares the secret.
 */

/** How a frontend names a backend's task, bound to the caller that started it. */
export class TaskIds {
  readonly #key: Uint8Array | string;

  constructor(key: Uint8Array | string | undefined) {
    this.#key = key ?? randomBytes(32);
  }

  wrap(backendId: string, taskId: string, auth: AuthInfo | undefined): string {
    return `${backendId}:${this.#tag(backendId, taskId, auth)}:${taskId}`;
  }

  /** The backend and its task id, or undefined when `id` is no handle of this caller. */
  unwrap(id: string, auth: AuthInfo | undefined): { backendId: string; taskId: string } | undefined {
    const first = id.indexOf(':');
    const second = id.indexOf(':', first + 1);
    if (first < 1 || second < 0) return undefined;
    const backendId = id.slice(0, first);
    const taskId = id.slice(second + 1);
    if (taskId === '' || id.slice(first + 1, second) !== this.#tag(backendId, taskId, auth)) return undefined;
    return { backendId, taskId };
  }

  #tag(backendId: string, taskId: string, auth: AuthInfo | undefined): string {
    return createHmac('sha256', this.#key)
      .update(`${identity(auth)}\n${backendId}\n${taskId}`)
      .digest('base64url')
      .slice(0, 22);
  }
}

function identity(auth: AuthInfo | undefined): string {
  if (typeof auth?.principal === 'string') return `principal:${auth.principal}`;
  if (typeof auth?.token === 'string')
    return `token:${createHash('sha256').update(auth.token).digest('hex')}`;
  return 'anonymous';
}

/** Whether the proxy runs this backend's calls as tasks: it is 2026-07-28 and offers the extension. */
export function offersTasks(client: Client): boolean {
  return (
    client.era === 'modern' &&
    client.capabilities.extensions?.[TASKS_EXTENSION] !== undefined &&
    client.serverCapabilities.extensions?.[TASKS_EXTENSION] !== undefined
  );
}

/** A backend's task as the frontend sees it: its id wrapped, a finished result's links rewritten. */
export function frontTask(
  scope: Scope,
  backend: Backend,
  task: Record<string, unknown>,
  auth: AuthInfo | undefined,
): Record<string, unknown> {
  const { resultType: _, ...rest } = task;
  const front: Record<string, unknown> = {
    ...clean(rest),
    taskId: scope.taskIds.wrap(backend.id, String(task.taskId), auth),
  };
  if (typeof front.result === 'object' && front.result !== null) {
    front.result = rewriteToolResult(
      { snapshot: backend.snapshot, route: backend.shared },
      clean(front.result as Record<string, unknown>),
    );
  }
  return front;
}

/** The proxy's `io.modelcontextprotocol/tasks`: `tasks/*` routed to the backend that holds the task. */
export function tasksExtension(scope: Scope): ExtensionDefinition {
  const notFound = (taskId: unknown) =>
    ProtocolError.invalidParams('Failed to retrieve task: Task not found', { taskId });

  const route = async <T>(
    params: Record<string, unknown>,
    auth: AuthInfo | undefined,
    send: (client: Client, taskId: string, backend: Backend) => Promise<T>,
  ): Promise<T> => {
    const { taskId } = params;
    if (typeof taskId !== 'string') throw ProtocolError.invalidParams('params.taskId must be a string');
    const ids = scope.taskIds.unwrap(taskId, auth);
    const backend = ids && scope.core.backend(ids.backendId);
    if (!ids || !backend) throw notFound(taskId);
    try {
      return await backend.call(`task "${taskId}"`, undefined, (client) => send(client, ids.taskId, backend));
    } catch (error) {
      // The backend's "not found" names its own id: answer with the frontend's.
      if (ProtocolError.is(error) && error.code === -32602) throw notFound(taskId);
      throw error;
    }
  };

  return {
    undeclared: 'missing-capability',
    modernOnly: true,
    listen: (request) => relayTasks(scope, request),
    nameParams: { 'tasks/get': 'taskId', 'tasks/update': 'taskId', 'tasks/cancel': 'taskId' },
    methods: {
      'tasks/get': (params, context) =>
        route(params, context.auth, async (client, taskId, backend) => {
          const task: Task = await client.tasks.get(taskId, { signal: context.signal });
          return frontTask(scope, backend, task, context.auth);
        }),
      'tasks/update': (params, context) => {
        const { inputResponses } = params;
        if (typeof inputResponses !== 'object' || inputResponses === null || Array.isArray(inputResponses)) {
          throw ProtocolError.invalidParams('tasks/update needs params.inputResponses (an object)');
        }
        return route(params, context.auth, async (client, taskId) => {
          await client.tasks.update(taskId, inputResponses as Record<string, unknown>, {
            signal: context.signal,
          });
          return {};
        });
      },
      'tasks/cancel': (params, context) =>
        route(params, context.auth, async (client, taskId) => {
          await client.tasks.cancel(taskId, { signal: context.signal });
          return {};
        }),
    },
  };
}

/**
 * `notifications/tasks` for a listen whose filter names proxied task ids: one
 * `subscriptions/listen` per backend for the caller's tasks there, each notification relayed with
 * its task id wrapped again. Ids that are not the caller's, or that their backend did not honour,
 * are left out of the acknowledgement, as core leaves out unknown ones.
 */
async function relayTasks(
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
  const opened: { backend: Backend; subscription: Subscription }[] = [];
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
      for (const id of kept) honoured.push(scope.taskIds.wrap(backendId, id, request.auth));
      opened.push({ backend, subscription });
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
      for (const { backend, subscription } of opened) {
        void (async () => {
          try {
            for await (const notification of subscription) {
              if (notification.method !== 'notifications/tasks') continue;
              const params = (notification.params ?? {}) as Record<string, unknown>;
              const { _meta: _, ...task } = params;
              if (!send('notifications/tasks', frontTask(scope, backend, task, request.auth))) break;
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
