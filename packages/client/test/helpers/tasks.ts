import {
  createServer,
  createTaskManager,
  ProtocolError,
  type StoredTask,
  type TaskManager,
  tool,
} from '@snodo/core';

/** A server with tasks whose tools wait for `release()` (or their signal). */
export function taskRuntime(options: Parameters<typeof createTaskManager>[0] = {}) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tasks = createTaskManager({ pollIntervalMs: 10, ...options });
  const wait = (signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      released.then(resolve);
    });
  const runtime = createServer({
    name: 'tasks',
    version: '1.0.0',
    tasks,
    tools: [
      tool({
        name: 'long',
        task: 'auto',
        handler: async (_args, context) => {
          await context.runAsTask();
          context.progress(1, 2, 'working on it');
          await wait(context.signal);
          return `long done (${context.taskId === undefined ? 'inline' : 'task'})`;
        },
      }),
      tool({
        name: 'job',
        task: 'always',
        handler: async (_args, context) => {
          await wait(context.signal);
          return 'job done';
        },
      }),
      tool({
        name: 'confirm',
        task: 'always',
        handler: async (_args, context) => {
          const first = await context.elicit({
            message: 'Sure?',
            requestedSchema: { type: 'object', properties: {} },
          });
          const second = await context.elicit({
            message: 'Really?',
            requestedSchema: { type: 'object', properties: {} },
          });
          return `${first.action} then ${second.action}`;
        },
      }),
      tool({
        name: 'broken',
        task: 'always',
        handler: () => {
          throw new ProtocolError(-32603, 'exploded');
        },
      }),
    ],
  });
  return { runtime, tasks, release };
}

/**
 * Resolves with a stored task once `predicate` holds for it: on the store's change events (no
 * polling), and at once for the task `taskId` names when it already does.
 */
export function storedTask(
  tasks: TaskManager,
  predicate: (task: StoredTask) => boolean,
  taskId?: string,
): Promise<StoredTask> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (task: StoredTask | undefined) => {
      if (done || task === undefined || !predicate(task)) return;
      done = true;
      stop();
      resolve(task);
    };
    const stop = tasks.store.subscribe(finish);
    if (taskId !== undefined) tasks.store.get(taskId).then(finish);
  });
}
