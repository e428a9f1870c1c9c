// Tasks of a 2026-07-28 backend through the proxy: handed to a frontend that declares the Tasks
// extension with their ids namespaced to the backend and bound to the caller, routed back by
// tasks/get, tasks/update and tasks/cancel; followed to the end for a frontend that does not.
import { connect } from '@snodo/client';
import {
  createMemoryTaskStore,
  createServer,
  createTaskManager,
  dispatch,
  type JsonRpcResponse,
  type Runtime,
  resource,
  type TaskStore,
  tool,
} from '@snodo/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createProxy, type McpProxy } from '../src/index.js';

const MODERN = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';
let nextId = 1;

/** A promise the test settles: the backend's `job` waits on it. */
function latch() {
  let release!: () => void;
  const opened = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { opened, release, waiting: 0, aborted: 0 };
}

function backendServer(gate: ReturnType<typeof latch>, store?: TaskStore) {
  const tasks = createTaskManager({ pollIntervalMs: 10, ...(store ? { store } : {}) });
  const runtime = createServer({
    name: 'backend',
    version: '1.0.0',
    tasks,
    tools: [
      tool({
        name: 'job',
        task: 'always',
        handler: async (_args, context) => {
          gate.waiting++;
          await new Promise<void>((resolve, reject) => {
            context.signal.addEventListener('abort', () => {
              gate.aborted++;
              reject(context.signal.reason);
            });
            gate.opened.then(resolve);
          });
          return { content: [{ type: 'resource_link', uri: 'demo://done', name: 'done' }] };
        },
      }),
      tool({
        name: 'confirm',
        task: 'always',
        handler: async (_args, context) => {
          const answer = await context.elicit({
            message: 'Sure?',
            requestedSchema: { type: 'object', properties: { sure: { type: 'boolean' } } },
          });
          return `answer: ${answer.action}`;
        },
      }),
      tool({ name: 'plain', handler: () => 'plain result' }),
      tool({
        name: 'wait',
        handler: async () => {
          await gate.opened;
          return { content: [{ type: 'resource_link', uri: 'demo://done', name: 'done' }] };
        },
      }),
    ],
    resources: [resource({ uri: 'demo://done', name: 'done', read: () => 'done' })],
  });
  return { runtime, tasks };
}

/** One 2026-07-28 request into the proxy runtime as `principal` (none: anonymous). */
async function modern(
  runtime: Runtime,
  method: string,
  params: Record<string, unknown>,
  options: { tasks?: boolean; principal?: string } = {},
) {
  const capabilities =
    options.tasks === false ? { elicitation: {} } : { elicitation: {}, extensions: { [TASKS]: {} } };
  const outcome = await dispatch(
    runtime,
    {
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      },
    },
    options.principal === undefined ? {} : { auth: { principal: options.principal } },
  );
  if (outcome.type !== 'response') throw new Error(`expected a response, got ${outcome.type}`);
  return outcome.message as JsonRpcResponse & { result?: any; error?: any };
}

describe('tasks through the proxy', () => {
  let gate: ReturnType<typeof latch>;
  let backend: ReturnType<typeof backendServer>;
  let proxy: McpProxy;
  let runtime: Runtime;

  beforeEach(async () => {
    gate = latch();
    backend = backendServer(gate);
    proxy = await createProxy({ backends: [{ id: 'b', target: { direct: backend.runtime }, prefix: 'b' }] });
    runtime = proxy.runtime();
  });
  afterEach(async () => {
    gate.release();
    await proxy.close();
    await backend.tasks.close();
  });

  it('declares the extension and hands a declaring frontend the backend task, its id namespaced to the backend', async () => {
    const init = await modern(runtime, 'server/discover', {});
    expect(init.result.capabilities.extensions[TASKS]).toEqual({});
    const started = await modern(runtime, 'tools/call', { name: 'b.job', arguments: {} });
    expect(started.result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId: string = started.result.taskId;
    expect(taskId).toMatch(/^b:[A-Za-z0-9_-]{22}:[0-9a-f-]{36}$/);
    const backendId = taskId.split(':')[2] as string;
    expect((await backend.tasks.store.get(backendId))?.status).toBe('working');
    const polled = await modern(runtime, 'tasks/get', { taskId });
    expect(polled.result).toMatchObject({ resultType: 'complete', taskId, status: 'working' });
    gate.release();
    const done = await vi.waitFor(async () => {
      const { result } = await modern(runtime, 'tasks/get', { taskId });
      expect(result.status).toBe('completed');
      return result;
    });
    // The result's links name the proxy's URIs, as an ordinary call's do.
    expect(done.result.content[0]).toEqual({
      type: 'resource_link',
      uri: 'mcp-proxy://b/demo://done',
      name: 'done',
    });
  });

  it('tasks/cancel reaches the backend: its handler is stopped and the task ends cancelled', async () => {
    const { taskId } = (await modern(runtime, 'tools/call', { name: 'b.job', arguments: {} })).result;
    await vi.waitFor(() => expect(gate.waiting).toBe(1));
    expect((await modern(runtime, 'tasks/cancel', { taskId })).result).toMatchObject({
      resultType: 'complete',
    });
    await vi.waitFor(async () =>
      expect((await modern(runtime, 'tasks/get', { taskId })).result.status).toBe('cancelled'),
    );
    expect(gate.aborted).toBe(1);
  });

  it('tasks/update carries the input answers to the backend task', async () => {
    const { taskId } = (await modern(runtime, 'tools/call', { name: 'b.confirm', arguments: {} })).result;
    const asked = await vi.waitFor(async () => {
      const { result } = await modern(runtime, 'tasks/get', { taskId });
      expect(result.status).toBe('input_required');
      return result;
    });
    const [key] = Object.keys(asked.inputRequests);
    await modern(runtime, 'tasks/update', {
      taskId,
      inputResponses: { [key as string]: { action: 'decline' } },
    });
    await vi.waitFor(async () =>
      expect((await modern(runtime, 'tasks/get', { taskId })).result).toMatchObject({
        status: 'completed',
        result: { content: [{ type: 'text', text: 'answer: decline' }] },
      }),
    );
  });

  it('a task is bound to the caller: another principal, or a forged or unknown id, is not found', async () => {
    const { taskId } = (
      await modern(runtime, 'tools/call', { name: 'b.job', arguments: {} }, { principal: 'alice' })
    ).result;
    expect((await modern(runtime, 'tasks/get', { taskId }, { principal: 'alice' })).result.status).toBe(
      'working',
    );
    const notFound = { code: -32602, message: 'Failed to retrieve task: Task not found' };
    for (const [id, principal] of [
      [taskId, 'mallory'],
      [taskId, undefined],
      [`b:${'A'.repeat(22)}:${taskId.split(':')[2]}`, 'alice'],
      ['nope', 'alice'],
      [taskId.replace(/^b:/, 'gone:'), 'alice'],
    ] as const) {
      expect((await modern(runtime, 'tasks/get', { taskId: id }, { principal })).error).toMatchObject(
        notFound,
      );
      expect((await modern(runtime, 'tasks/cancel', { taskId: id }, { principal })).error).toMatchObject(
        notFound,
      );
    }
    expect(gate.aborted).toBe(0);
  });

  it('a frontend that did not declare the extension gets the plain result: the proxy follows the task', async () => {
    const call = modern(runtime, 'tools/call', { name: 'b.job', arguments: {} }, { tasks: false });
    await vi.waitFor(() => expect(gate.waiting).toBe(1));
    gate.release();
    const { result } = await call;
    expect(result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'resource_link', name: 'done' }],
    });
    expect(backend.tasks.stats().created).toBe(1);
    expect((await modern(runtime, 'tasks/get', { taskId: 'x' }, { tasks: false })).error.code).toBe(-32021);
  });

  it('a followed task that asks for input asks the frontend: an input_required round, and its retry answers the task', async () => {
    const params = { name: 'b.confirm', arguments: {} };
    const round = await modern(runtime, 'tools/call', params, { tasks: false });
    expect(round.result).toMatchObject({ resultType: 'input_required' });
    const [key] = Object.keys(round.result.inputRequests);
    expect(round.result.inputRequests[key as string]).toMatchObject({
      method: 'elicitation/create',
      params: { message: 'Sure?' },
    });
    // The task waits on the backend for the answer the retry brings.
    expect(backend.tasks.stats()).toMatchObject({ created: 1, cancelled: 0 });
    const retried = await modern(
      runtime,
      'tools/call',
      {
        ...params,
        inputResponses: { [key as string]: { action: 'decline' } },
        requestState: round.result.requestState,
      },
      { tasks: false },
    );
    expect(retried.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'answer: decline' }],
    });
    expect(backend.tasks.stats()).toMatchObject({ created: 1, completed: 1 });
  });

  it("an initialize-based frontend answers a followed task's input as a server-initiated request", async () => {
    const client = await connect(
      { direct: runtime },
      {
        protocolVersions: ['2025-11-25'],
        onElicit: async () => ({ action: 'accept', content: { sure: true } }),
      },
    );
    try {
      expect(await client.callTool('b.confirm', {})).toMatchObject({
        content: [{ type: 'text', text: 'answer: accept' }],
      });
    } finally {
      await client.close();
    }
  });

  it('our client with tasks: true follows a proxied task to its result; an ordinary tool stays ordinary', async () => {
    const client = await connect({ direct: runtime }, { tasks: true });
    try {
      const call = client.callTool('b.job', {});
      await vi.waitFor(() => expect(gate.waiting).toBe(1));
      gate.release();
      expect((await call).content[0]).toMatchObject({ type: 'resource_link', name: 'done' });
      expect(await client.callTool('b.plain', {})).toMatchObject({ content: [{ text: 'plain result' }] });
    } finally {
      await client.close();
    }
  });

  it('notifications/tasks of the backend reach a frontend listening for the task, its id namespaced', async () => {
    const client = await connect({ direct: runtime }, { tasks: true });
    try {
      const { task } = await client.tasks.start('b.job', {});
      const taskId = task?.taskId as string;
      const forged = `b:${'A'.repeat(22)}:${taskId.split(':')[2]}`;
      const subscription = client.listen({ taskIds: [taskId, forged, 'nope'] } as never);
      expect(await subscription.ready).toEqual({ taskIds: [taskId] });
      gate.release();
      const statuses: string[] = [];
      for await (const notification of subscription) {
        const params = notification.params as Record<string, any>;
        expect(params.taskId).toBe(taskId);
        statuses.push(params.status);
        if (params.status === 'completed') {
          expect(params.result.content[0].uri).toBe('mcp-proxy://b/demo://done');
          break;
        }
      }
      expect(statuses.at(-1)).toBe('completed');
    } finally {
      await client.close();
    }
  });

  it('a backend whose client does not declare tasks (clientOptions.tasks: false) answers ordinary calls', async () => {
    const plain = await createProxy({
      backends: [
        { id: 'p', target: { direct: backend.runtime }, prefix: 'p', clientOptions: { tasks: false } },
      ],
    });
    try {
      const front = plain.runtime();
      const refused = await modern(front, 'tools/call', { name: 'p.job', arguments: {} });
      expect(refused.error).toMatchObject({ code: -32021 });
      const { result } = await modern(front, 'tools/call', { name: 'p.plain', arguments: {} });
      expect(result).toMatchObject({ resultType: 'complete', content: [{ text: 'plain result' }] });
    } finally {
      await plain.close();
    }
  });
});

describe("the proxy's own tasks over an in-process backend", () => {
  it("taskAfterMs defaults to the task manager's: a call still running becomes the proxy's task, its result's links rewritten", async () => {
    const gate = latch();
    const backend = backendServer(gate);
    const tasks = createTaskManager({ taskAfterMs: 0, pollIntervalMs: 10 });
    const proxy = await createProxy({
      taskManager: tasks,
      backends: [{ id: 'b', target: { direct: backend.runtime }, prefix: 'b' }],
    });
    try {
      const runtime = proxy.runtime();
      const started = await modern(runtime, 'tools/call', { name: 'b.wait', arguments: {} });
      expect(started.result).toMatchObject({ resultType: 'task', status: 'working' });
      const { taskId } = started.result;
      expect(taskId).not.toContain(':');
      gate.release();
      const done = await vi.waitFor(async () => {
        const { result } = await modern(runtime, 'tasks/get', { taskId });
        expect(result.status).toBe('completed');
        return result;
      });
      expect(done.result.content[0]).toEqual({
        type: 'resource_link',
        uri: 'mcp-proxy://b/demo://done',
        name: 'done',
      });
      // Only the proxy made a task: the backend's tool is an ordinary one.
      expect(backend.tasks.stats().created).toBe(0);
    } finally {
      gate.release();
      await proxy.close();
      await backend.tasks.close();
    }
  });

  it("a backend task handle that arrives once the call is the proxy's task is followed by that task", async () => {
    const gate = latch();
    // The backend stores its task only when the test says: its handle comes after the proxy's task.
    const memory = createMemoryTaskStore();
    const storing = latch();
    const store: TaskStore = {
      create: async (task) => {
        await storing.opened;
        return memory.create(task);
      },
      get: (taskId) => memory.get(taskId),
      update: (taskId, change) => memory.update(taskId, change),
      subscribe: (listener) => memory.subscribe(listener),
    };
    const backend = backendServer(gate, store);
    const proxy = await createProxy({
      taskManager: createTaskManager({ pollIntervalMs: 10 }),
      taskAfterMs: 0,
      backends: [{ id: 'b', target: { direct: backend.runtime }, prefix: 'b' }],
    });
    try {
      const runtime = proxy.runtime();
      const started = await modern(runtime, 'tools/call', { name: 'b.job', arguments: {} });
      const { taskId } = started.result;
      expect(taskId).not.toContain(':');
      storing.release();
      await vi.waitFor(() => expect(gate.waiting).toBe(1));
      gate.release();
      const done = await vi.waitFor(async () => {
        const { result } = await modern(runtime, 'tasks/get', { taskId });
        expect(result.status).toBe('completed');
        return result;
      });
      expect(done.result.content[0]).toMatchObject({
        type: 'resource_link',
        uri: 'mcp-proxy://b/demo://done',
      });
      expect(backend.tasks.stats()).toMatchObject({ created: 1, completed: 1 });
    } finally {
      gate.release();
      storing.release();
      await proxy.close();
      await backend.tasks.close();
    }
  });
});

describe('notifications/tasks relayed from a backend whose listen sends no snapshot and repeats itself', () => {
  it("a listen gets each task's current state first, then each change once", async () => {
    const gate = latch();
    const backend = backendServer(gate);
    // The backend's listen: no current state first, and every change sent twice.
    const own = backend.runtime.extensions.get(TASKS);
    const listen: NonNullable<typeof own>['listen'] = async (request) => {
      const feed = await own?.listen?.(request);
      if (!feed) return feed;
      const snapshot = (feed.honoured.taskIds as string[]).length;
      return {
        honoured: feed.honoured,
        start(send) {
          let skipped = 0;
          return feed.start((method, params) => {
            if (skipped < snapshot) return ++skipped > 0;
            return send(method, params) && send(method, params);
          });
        },
        cancel: () => feed.cancel(),
      };
    };
    const bare = Object.freeze({
      ...backend.runtime,
      extensions: new Map([
        ...backend.runtime.extensions,
        [TASKS, { ...own, listen } as NonNullable<typeof own>],
      ]),
    });
    const proxy = await createProxy({ backends: [{ id: 'b', target: { direct: bare }, prefix: 'b' }] });
    const client = await connect({ direct: proxy.runtime() }, { tasks: true });
    try {
      // One task ended before the listen (it asks for input this client cannot give), one still running.
      const first = (await client.tasks.start('b.confirm', {})).task?.taskId as string;
      await vi.waitFor(async () => expect((await client.tasks.get(first)).status).toBe('failed'));
      const second = (await client.tasks.start('b.job', {})).task?.taskId as string;
      await vi.waitFor(() => expect(gate.waiting).toBe(1));
      const subscription = client.listen({ taskIds: [first, second] } as never);
      expect(await subscription.ready).toEqual({ taskIds: [first, second] });
      gate.release();
      const seen: string[] = [];
      for await (const notification of subscription) {
        const { taskId, status } = notification.params as { taskId: string; status: string };
        seen.push(`${taskId === first ? 'first' : 'second'} ${status}`);
        if (taskId === second && status === 'completed') break;
      }
      expect(seen).toEqual(['first failed', 'second working', 'second completed']);
    } finally {
      gate.release();
      await client.close();
      await proxy.close();
      await backend.tasks.close();
    }
  });
});
