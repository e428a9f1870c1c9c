import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { Client, Task } from '@snodo/client';
import {
  type AuthInfo,
  type ExtensionDefinition,
  type ExtensionListenFeed,
  type ExtensionMethod,
  ProtocolError,
  TASKS_EXTENSION,
} from '@snodo/core';
import type { Backend } from '../backend.js';
import { rewriteToolResult } from '../links.js';
import { clean, type Scope } from './context.js';
import { relayTasks } from './relay.js';

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
    const result = rewriteToolResult(
      { snapshot: backend.snapshot, route: backend.shared },
      clean(front.result as Record<string, unknown>),
    );
    front.result = { ...result, resultType: 'complete' };
  }
  return front;
}

/**
 * The proxy's `io.modelcontextprotocol/tasks`: `tasks/*` of a backend's task (`<backend>:<tag>:<id>`)
 * routed to that backend; those of the proxy's own tasks (plain ids, no ':') answered by its task
 * manager, as core answers them. A listen may name both kinds.
 */
export function tasksExtension(scope: Scope): ExtensionDefinition {
  const own = scope.core.tasks.extension();
  const backends = backendTasks(scope);
  const routed = (method: string): ExtensionMethod => {
    const mine = own.methods?.[method] as ExtensionMethod;
    const theirs = backends[method] as ExtensionMethod;
    return (params, context) =>
      typeof params.taskId === 'string' && !params.taskId.includes(':')
        ? mine(params, context)
        : theirs(params, context);
  };
  return {
    undeclared: 'missing-capability',
    modernOnly: true,
    nameParams: { 'tasks/get': 'taskId', 'tasks/update': 'taskId', 'tasks/cancel': 'taskId' },
    methods: {
      'tasks/get': routed('tasks/get'),
      'tasks/update': routed('tasks/update'),
      'tasks/cancel': routed('tasks/cancel'),
    },
    listen: async (request) => {
      // Core's feed checks the filter (its shape, `maxListenTaskIds`) and takes the proxy's own ids.
      const mine = await own.listen?.(request);
      if (mine === undefined) return undefined;
      let relayed: ExtensionListenFeed | undefined;
      try {
        relayed = await relayTasks(scope, request);
      } catch (error) {
        mine.cancel();
        throw error;
      }
      return relayed === undefined ? mine : joined(mine, relayed);
    },
  };
}

/** Two feeds of one listen as one: their honoured ids together, both started and stopped. */
function joined(a: ExtensionListenFeed, b: ExtensionListenFeed): ExtensionListenFeed {
  const ids = (feed: ExtensionListenFeed) => (feed.honoured.taskIds as string[] | undefined) ?? [];
  return {
    honoured: { taskIds: [...ids(a), ...ids(b)] },
    start(send) {
      const stops = [a.start(send), b.start(send)];
      return () => {
        for (const stop of stops) stop();
      };
    },
    cancel() {
      a.cancel();
      b.cancel();
    },
  };
}

/** `tasks/*` of backends' tasks: routed to the backend that holds the task. */
function backendTasks(scope: Scope): Record<string, ExtensionMethod> {
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
  };
}
