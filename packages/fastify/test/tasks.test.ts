// A task's life through the Fastify plugin, under the application's own authentication: the task
// belongs to the principal the hook verified, and nobody else can see it.
import { createServer, createTaskManager, type StoredTask, type TaskManager, tool } from '@snodo/core';
import { afterEach, describe, expect, it } from 'vitest';
import { bearer, gate, modern, testApp } from './helpers.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const DECLARED = {
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: { [TASKS]: {} } },
};

const apps: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

function tasksRuntime(tasks: TaskManager, release: Promise<void>) {
  return createServer({
    name: 'fastify-tasks',
    version: '1.0.0',
    tasks,
    tools: [
      tool({
        name: 'report',
        task: 'always',
        handler: async (_args, context) => {
          const answer = await context.elicit({
            message: 'Which format?',
            requestedSchema: { type: 'object', properties: { format: { type: 'string' } } },
          });
          await release;
          return `report for ${context.auth?.principal} as ${(answer.content as { format?: string }).format}`;
        },
      }),
    ],
  });
}

/** Resolves once the stored task satisfies `predicate` (checked now and on every change). */
function stored(
  tasks: TaskManager,
  taskId: string,
  predicate: (task: StoredTask) => boolean,
): Promise<StoredTask> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (task: StoredTask | undefined) => {
      if (done || task?.taskId !== taskId || !predicate(task)) return;
      done = true;
      stop();
      resolve(task);
    };
    const stop = tasks.store.subscribe(finish);
    tasks.store.get(taskId).then(finish);
  });
}

describe('tasks through the Fastify plugin', () => {
  it('create, poll, answer input and read the result as the principal the hook verified; bob sees nothing', async () => {
    const tasks = createTaskManager({ pollIntervalMs: 10 });
    const released = gate();
    const app = await testApp({ runtime: tasksRuntime(tasks, released.promise) });
    apps.push(app, tasks);
    const post = async (method: string, params: Record<string, unknown>, token?: string) => {
      const request = modern(method, params, DECLARED);
      const taskId = params.taskId;
      const headers =
        typeof taskId === 'string' ? { ...request.headers, 'mcp-name': taskId } : request.headers;
      const response = await app.inject({
        method: 'POST',
        url: '/api/mcp',
        headers: { ...headers, ...bearer(token) },
        payload: request.body,
      });
      return { status: response.statusCode, body: response.json() };
    };

    const created = await post('tools/call', { name: 'report', arguments: {} });
    expect(created.status).toBe(200);
    expect(created.body.result).toMatchObject({ resultType: 'task', status: 'working', pollIntervalMs: 10 });
    const { taskId } = created.body.result;

    await stored(tasks, taskId, (task) => task.status === 'input_required');
    const asking = await post('tasks/get', { taskId });
    expect(asking.body.result).toMatchObject({
      status: 'input_required',
      inputRequests: { elicit: { method: 'elicitation/create' } },
    });
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const foreign = await post(method, { taskId }, 'bob-token');
      expect(foreign.body.error).toMatchObject({
        code: -32602,
        message: 'Failed to retrieve task: Task not found',
      });
    }
    const ack = await post('tasks/update', {
      taskId,
      inputResponses: { elicit: { action: 'accept', content: { format: 'pdf' } } },
    });
    expect(ack.body.result.resultType).toBe('complete');
    released.open();
    await stored(tasks, taskId, (task) => task.status === 'completed');
    const done = await post('tasks/get', { taskId });
    expect(done.body.result).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'report for alice as pdf' }] },
    });
  });

  it('a client that did not declare the extension gets -32021 (HTTP 400) from tasks/get', async () => {
    const tasks = createTaskManager();
    const app = await testApp({ runtime: tasksRuntime(tasks, Promise.resolve()) });
    apps.push(app, tasks);
    const request = modern('tasks/get', { taskId: 'x' });
    const response = await app.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: { ...request.headers, 'mcp-name': 'x', ...bearer() },
      payload: request.body,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
    });
  });
});
