import {
  createServer,
  createTaskManager,
  ErrorCode,
  ProtocolError,
  type ServerDefinition,
  type StoredTask,
  type TaskManager,
  type TaskManagerOptions,
  type TaskStore,
  tool,
} from '../../src/index.js';
import { modern } from './demo.js';

export const TASKS = 'io.modelcontextprotocol/tasks';
export const CAPS = 'io.modelcontextprotocol/clientCapabilities';
/** `_meta` of a request that declares the Tasks extension (and elicitation). */
export const WITH_TASKS = { [CAPS]: { elicitation: {}, extensions: { [TASKS]: {} } } };

/** A promise the test settles: tools wait on it, so a task stays running exactly as long as the test wants. */
export class Latch {
  #release!: () => void;
  readonly #opened = new Promise<void>((resolve) => {
    this.#release = resolve;
  });
  /** Handlers that started waiting. */
  waiting = 0;

  wait(signal?: AbortSignal): Promise<void> {
    this.waiting++;
    if (!signal) return this.#opened;
    return new Promise((resolve, reject) => {
      if (signal.aborted) reject(signal.reason);
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      this.#opened.then(resolve);
    });
  }

  release(): void {
    this.#release();
  }
}

/**
 * A server whose tools exercise every path of a task. Each tool that waits waits on `latch`;
 * `started` resolves when a handler starts.
 */
export function tasksServer(options: TaskManagerOptions = {}, extra: Partial<ServerDefinition> = {}) {
  const latch = new Latch();
  const tasks = createTaskManager({ pollIntervalMs: 20, ...options });
  const runtime = createServer({
    name: 'tasks',
    version: '1.0.0',
    tasks,
    tools: [
      tool({ name: 'plain', handler: () => 'plain result' }),
      tool({ name: 'quick', task: 'auto', handler: () => 'quick result' }),
      tool({
        name: 'held',
        description: 'Becomes a task at once, then waits for the latch',
        task: 'auto',
        handler: async (_args, context) => {
          await context.runAsTask();
          await latch.wait(context.signal);
          return `held done as ${context.taskId}`;
        },
      }),
      tool({
        name: 'slow',
        description: 'Waits for the latch; becomes a task after taskAfterMs',
        task: 'auto',
        taskAfterMs: 0,
        handler: async (_args, context) => {
          await latch.wait(context.signal);
          return 'slow done';
        },
      }),
      tool({
        name: 'job',
        task: 'always',
        handler: async (_args, context) => {
          await latch.wait(context.signal);
          return 'job done';
        },
      }),
      tool({
        name: 'stubborn',
        description: 'Ignores its signal',
        task: 'always',
        handler: async () => {
          await latch.wait();
          return 'stubborn done';
        },
      }),
      tool({
        name: 'reporter',
        task: 'always',
        handler: async (_args, context) => {
          context.progress(1, 2, 'halfway');
          context.log('info', 'not sent for tasks');
          await latch.wait(context.signal);
          return 'reported';
        },
      }),
      tool({
        name: 'protocol_failure',
        task: 'always',
        handler: () => {
          throw new ProtocolError(ErrorCode.InvalidParams, 'bad input found late', { field: 'x' });
        },
      }),
      tool({
        name: 'tool_failure',
        task: 'always',
        handler: () => {
          throw new Error('it broke');
        },
      }),
      tool({
        name: 'confirm',
        description: 'A task that asks for confirmation',
        task: 'always',
        handler: async (_args, context) => {
          const answer = await context.elicit({
            message: 'Sure?',
            requestedSchema: {
              type: 'object',
              properties: { sure: { type: 'boolean' } },
              required: ['sure'],
            },
          });
          return `answer: ${JSON.stringify(answer)}`;
        },
      }),
      tool({
        name: 'twice',
        description: 'Asks the same key twice',
        task: 'always',
        handler: async (_args, context) => {
          const schema = { type: 'object', properties: { n: { type: 'number' } } };
          const one = await context.elicit({ message: 'One?', requestedSchema: schema }, { key: 'q' });
          const two = await context.elicit({ message: 'Two?', requestedSchema: schema }, { key: 'q' });
          return `${JSON.stringify(one.content)} ${JSON.stringify(two.content)}`;
        },
      }),
      tool({
        name: 'asks_first',
        description: 'MRTR for a name, then a task',
        task: 'auto',
        handler: async (_args, context) => {
          const answer = await context.elicit(
            {
              message: 'Name?',
              requestedSchema: {
                type: 'object',
                properties: { name: { type: 'string' } },
                required: ['name'],
              },
            },
            { key: 'name' },
          );
          await context.runAsTask();
          return `Hello, ${(answer.content as { name: string }).name}`;
        },
      }),
    ],
    ...extra,
  });
  return { runtime, tasks, latch };
}

/** A `tools/call` that declares the Tasks extension. */
export function callWithTasks(
  name: string,
  args: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
) {
  return modern('tools/call', { name, arguments: args, ...extra }, WITH_TASKS);
}

/** A `tasks/*` request that declares the extension. */
export function tasksRequest(method: string, params: Record<string, unknown>) {
  return modern(method, params, WITH_TASKS);
}

/**
 * Resolves with the stored task once `predicate` holds for it: checked now and on every change
 * the store reports (no polling, no timers).
 */
export function waitForTask(
  store: TaskStore,
  taskId: string,
  predicate: (task: StoredTask) => boolean,
): Promise<StoredTask> {
  return new Promise((resolve, reject) => {
    let done = false;
    const stop = store.subscribe((task) => {
      if (done || task.taskId !== taskId || !predicate(task)) return;
      done = true;
      stop();
      resolve(task);
    });
    store.get(taskId).then((task) => {
      if (done || task === undefined || !predicate(task)) return;
      done = true;
      stop();
      resolve(task);
    }, reject);
  });
}

export const ended = (task: StoredTask) =>
  task.status === 'completed' || task.status === 'failed' || task.status === 'cancelled';

export type { TaskManager };

/** A stored task with every field set (working, anonymous, 1 s to live), `extra` overriding. */
export function stored(taskId: string, extra: Partial<StoredTask> = {}): StoredTask {
  const now = Date.now();
  return {
    taskId,
    owner: null,
    method: 'tools/call',
    protocolVersion: '2026-07-28',
    status: 'working',
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 1000,
    pollIntervalMs: 100,
    expiresAt: now + 1000,
    revision: 1,
    worker: 'w',
    leaseUntil: now + 1000,
    ...extra,
  };
}
