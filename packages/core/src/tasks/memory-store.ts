import { DEFAULT_MAX_TASKS } from '../limits/defaults.js';
import { knownOptions, positiveInteger } from '../limits/validate.js';
import type { StoredTask, TaskStore } from './store.js';

export interface MemoryTaskStoreOptions {
  /** Tasks held at once, running and finished (default 1,000); a new one beyond it is refused. */
  maxTasks?: number;
}

/** The in-process task store: what `createTaskManager` uses unless given another. */
export interface MemoryTaskStore extends TaskStore {
  /** Tasks held, expired ones not yet dropped included. */
  readonly size: number;
}

/**
 * Tasks in a Map, for one process. Bounded: at most `maxTasks`, each dropped once its
 * `expiresAt` passes (lazily, when read, and all at once when the store is full). An unexpired
 * task is never dropped to make room: a client may read it for its whole `ttlMs`, so a full store
 * refuses new tasks instead. Listeners run synchronously after each change.
 */
export function createMemoryTaskStore(options: MemoryTaskStoreOptions = {}): MemoryTaskStore {
  knownOptions('task store', options, ['maxTasks']);
  const maxTasks = positiveInteger('maxTasks', options.maxTasks, DEFAULT_MAX_TASKS);
  const tasks = new Map<string, StoredTask>();
  const listeners = new Set<(task: StoredTask) => void>();

  const live = (taskId: string, now: number): StoredTask | undefined => {
    const task = tasks.get(taskId);
    if (task?.expiresAt != null && task.expiresAt <= now) {
      tasks.delete(taskId);
      return undefined;
    }
    return task;
  };
  const sweep = (now: number) => {
    for (const [taskId, task] of tasks)
      if (task.expiresAt != null && task.expiresAt <= now) tasks.delete(taskId);
  };
  const emit = (task: StoredTask) => {
    for (const listener of [...listeners]) {
      try {
        listener(task);
      } catch {
        // A listener's failure is its own; the change is stored.
      }
    }
  };

  return {
    get size() {
      return tasks.size;
    },
    async create(task) {
      const now = Date.now();
      if (tasks.size >= maxTasks) sweep(now);
      if (tasks.size >= maxTasks || tasks.has(task.taskId)) return false;
      tasks.set(task.taskId, task);
      emit(task);
      return true;
    },
    async get(taskId) {
      return live(taskId, Date.now());
    },
    async update(taskId, change) {
      const current = live(taskId, Date.now());
      if (current === undefined) return undefined;
      const next = change(current);
      if (next === undefined) return current;
      tasks.set(taskId, next);
      emit(next);
      return next;
    },
    subscribe(listener) {
      const entry = (task: StoredTask) => listener(task);
      listeners.add(entry);
      return () => {
        listeners.delete(entry);
      };
    },
  };
}
