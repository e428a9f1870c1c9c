import { ProtocolError } from '../errors/protocol-error.js';
import {
  type ExtensionListenFeed,
  type ExtensionListenRequest,
  missingExtension,
} from '../router/extension.js';
import type { TaskManager } from './manager.js';
import { ownerOf } from './manager.js';
import type { StoredTask } from './store.js';
import { detailedTask, isTerminal, plausibleTaskId, TASKS_EXTENSION } from './wire.js';

/**
 * The `notifications/tasks` of one `subscriptions/listen` whose filter names `taskIds`: the tasks
 * of the listener's principal among them are honoured (the acknowledgement lists those), their
 * current state is sent first, then each change a client can see, once (by `revision`), until the
 * task ends. Changes that arrive while the ids are looked up are held and sent after the snapshot.
 */
export class TaskFeed implements ExtensionListenFeed {
  honoured: Record<string, unknown> = { taskIds: [] };
  readonly #owner: string | null;
  readonly #ids: Set<string>;
  readonly #sent = new Map<string, number>();
  readonly #unregister: () => void;
  #held: StoredTask[] = [];
  #snapshot: StoredTask[] = [];
  #send: ((method: string, params: Record<string, unknown>) => boolean) | undefined;
  #stopped = false;

  constructor(manager: TaskManager, owner: string | null, ids: readonly string[]) {
    this.#owner = owner;
    this.#ids = new Set(ids);
    this.#unregister = manager.register(this);
  }

  /** Keeps the ids that resolved to tasks of this principal. */
  known(tasks: readonly StoredTask[]): void {
    this.#ids.clear();
    for (const task of tasks) this.#ids.add(task.taskId);
    this.#snapshot = [...tasks];
    this.honoured = { taskIds: [...this.#ids] };
  }

  offer(task: StoredTask): void {
    if (this.#stopped || !this.#ids.has(task.taskId) || task.owner !== this.#owner) return;
    if (this.#send === undefined) this.#held.push(task);
    else this.#deliver(task);
  }

  start(send: (method: string, params: Record<string, unknown>) => boolean): () => void {
    this.#send = send;
    for (const task of this.#snapshot) this.#deliver(task);
    for (const task of this.#held) this.#deliver(task);
    this.#snapshot = this.#held = [];
    return () => this.stop();
  }

  cancel(): void {
    this.stop();
  }

  stop(): void {
    this.#stopped = true;
    this.#held = this.#snapshot = [];
    this.#unregister();
  }

  #deliver(task: StoredTask): void {
    if (this.#stopped || !this.#ids.has(task.taskId)) return;
    if ((this.#sent.get(task.taskId) ?? 0) >= task.revision) return;
    this.#sent.set(task.taskId, task.revision);
    if (isTerminal(task.status)) this.#ids.delete(task.taskId);
    if (!this.#send?.('notifications/tasks', detailedTask(task))) this.stop();
  }
}

/** The Tasks extension's part of `subscriptions/listen`: `notifications.taskIds`. */
export async function openTaskFeed(
  manager: TaskManager,
  request: ExtensionListenRequest,
): Promise<TaskFeed | undefined> {
  const { taskIds } = request.filter;
  if (taskIds === undefined) return undefined;
  if (!request.declared) throw missingExtension(TASKS_EXTENSION);
  if (!Array.isArray(taskIds) || taskIds.some((id) => typeof id !== 'string')) {
    throw ProtocolError.invalidParams('notifications.taskIds must be an array of task id strings');
  }
  if (taskIds.length > manager.maxListenTaskIds) {
    throw ProtocolError.invalidParams(
      `notifications.taskIds may name at most ${manager.maxListenTaskIds} tasks`,
    );
  }
  const ids = [...new Set(taskIds as string[])].filter(plausibleTaskId);
  const feed = new TaskFeed(manager, ownerOf(request.auth), ids);
  try {
    const found = await Promise.all(ids.map((id) => manager.find(id, request.auth)));
    feed.known(found.filter((task): task is StoredTask => task !== undefined));
  } catch (error) {
    feed.cancel();
    throw error;
  }
  return feed;
}
