import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type AuthInfo,
  createMemoryTaskStore,
  createServer,
  createTaskManager,
  type TaskStore,
  tool,
} from '../src/index.js';
import { initialize, legacy, modern } from './helpers/demo.js';
import { run } from './helpers/run.js';
import {
  CAPS,
  callWithTasks,
  ended,
  Latch,
  TASKS,
  tasksRequest,
  tasksServer,
  WITH_TASKS,
  waitForTask,
} from './helpers/tasks.js';
import { modernMessage, postModern } from './http-helpers.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function create(runtime: any, name: string, args: Record<string, unknown> = {}, auth?: AuthInfo) {
  const { response } = await run(runtime, callWithTasks(name, args), auth ? { auth } : {});
  return response;
}

async function get(runtime: any, taskId: string, auth?: AuthInfo) {
  const { response } = await run(runtime, tasksRequest('tasks/get', { taskId }), auth ? { auth } : {});
  return response;
}

describe('Tasks extension: negotiation', () => {
  it('is declared in server/discover only when the server has tasks', async () => {
    const { runtime } = tasksServer();
    const discovered = await run(runtime, modern('server/discover'));
    expect(discovered.response.result.capabilities.extensions).toEqual({ [TASKS]: {} });
    const plain = createServer({ name: 'p', version: '1', tools: [tool({ name: 't', handler: () => 'x' })] });
    const none = await run(plain, modern('server/discover'));
    expect(none.response.result.capabilities.extensions).toBeUndefined();
  });

  it('tasks/get, tasks/update and tasks/cancel from a client that did not declare it are -32021 naming it', async () => {
    const { runtime } = tasksServer();
    for (const [method, params] of [
      ['tasks/get', { taskId: 'x' }],
      ['tasks/update', { taskId: 'x', inputResponses: {} }],
      ['tasks/cancel', { taskId: 'x' }],
    ] as const) {
      const { response } = await run(runtime, modern(method, params));
      expect(response.error).toMatchObject({
        code: -32021,
        data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
      });
    }
  });

  it('does not exist on the initialize-based revisions, whatever the session declared', async () => {
    const { runtime } = tasksServer();
    const init = await run(runtime, initialize('2025-11-25', { extensions: { [TASKS]: {} } }));
    const session = (init.outcome as any).session;
    const got = await run(runtime, legacy('tasks/get', { taskId: 'x' }), { session });
    expect(got.response.error.code).toBe(-32601);
    const called = await run(runtime, legacy('tools/call', { name: 'quick', arguments: {} }), { session });
    expect(called.response.result).toMatchObject({ content: [{ type: 'text', text: 'quick result' }] });
    const always = await run(runtime, legacy('tools/call', { name: 'job', arguments: {} }), { session });
    expect(always.response.error.code).toBe(-32021);
  });

  it('tasks/result and tasks/list (2025-11-25 experimental tasks) are -32601', async () => {
    const { runtime } = tasksServer();
    for (const method of ['tasks/result', 'tasks/list']) {
      const { response } = await run(runtime, tasksRequest(method, { taskId: 'x' }));
      expect(response.error.code).toBe(-32601);
    }
  });
});

describe('Tasks extension: which calls become tasks', () => {
  afterEach(() => vi.useRealTimers());

  it('a task: "always" tool answers a declaring client with a flat CreateTaskResult', async () => {
    const { runtime, latch } = tasksServer({ pollIntervalMs: 1234, taskTimeout: 60_000, resultTtlMs: 5_000 });
    const response = await create(runtime, 'job');
    const result = response.result;
    expect(result).toMatchObject({
      resultType: 'task',
      status: 'working',
      ttlMs: 65_000,
      pollIntervalMs: 1234,
    });
    expect(result.taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.createdAt).toMatch(ISO);
    expect(result.lastUpdatedAt).toMatch(ISO);
    for (const absent of [
      'task',
      'result',
      'error',
      'inputRequests',
      'requestState',
      'content',
      'cacheScope',
    ])
      expect(result).not.toHaveProperty(absent);
    latch.release();
  });

  it('a task: "always" tool refuses a client without the extension with -32021 before its handler runs', async () => {
    const { runtime, latch } = tasksServer();
    const { response } = await run(runtime, modern('tools/call', { name: 'job', arguments: {} }));
    expect(response.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
    });
    expect(latch.waiting).toBe(0);
  });

  it('a task: "never" tool is an ordinary call even for a declaring client (legacy `task` param ignored)', async () => {
    const { runtime } = tasksServer();
    const { response } = await run(runtime, callWithTasks('plain', {}, { task: { ttl: 60_000 } }));
    expect(response.result).toMatchObject({ resultType: 'complete', content: [{ text: 'plain result' }] });
    expect(response.result).not.toHaveProperty('taskId');
  });

  it('a task: "auto" tool that ends at once answers inline', async () => {
    const { runtime } = tasksServer();
    const response = await create(runtime, 'quick');
    expect(response.result).toMatchObject({ resultType: 'complete', content: [{ text: 'quick result' }] });
  });

  it('a task: "auto" tool becomes a task when its handler calls runAsTask(), and context.taskId names it', async () => {
    const { runtime, tasks, latch } = tasksServer();
    const response = await create(runtime, 'held');
    expect(response.result.resultType).toBe('task');
    const { taskId } = response.result;
    latch.release();
    const done = await waitForTask(tasks.store, taskId, ended);
    expect(done.result).toMatchObject({ content: [{ text: `held done as ${taskId}` }] });
  });

  it('a task: "auto" tool still running after taskAfterMs becomes a task', async () => {
    const { runtime, latch } = tasksServer();
    const response = await create(runtime, 'slow');
    expect(response.result).toMatchObject({ resultType: 'task', status: 'working' });
    latch.release();
  });

  it('a handler that ends while its task is being stored answers inline; the task is never shown', async () => {
    const memory = createMemoryTaskStore();
    const storing = new Latch();
    const created: string[] = [];
    const store: TaskStore = {
      ...memory,
      create: async (task) => {
        created.push(task.taskId);
        await storing.wait();
        return memory.create(task);
      },
      get: (taskId) => memory.get(taskId),
      update: (taskId, change) => memory.update(taskId, change),
      subscribe: (listener) => memory.subscribe(listener),
    };
    const { runtime, tasks, latch } = tasksServer({ store });
    const call = run(runtime, callWithTasks('slow'));
    await vi.waitFor(() => expect(created).toHaveLength(1));
    latch.release();
    const { response } = await call;
    expect(response.result).toMatchObject({ resultType: 'complete', content: [{ text: 'slow done' }] });
    storing.release();
    await vi.waitFor(() => expect(tasks.stats().running).toBe(0));
    expect(await memory.get(created[0] as string)).toBeUndefined();
  });

  it('for a client without the extension, a task: "auto" tool stays an ordinary call to its end', async () => {
    const { runtime, tasks, latch } = tasksServer();
    const pending = run(runtime, modern('tools/call', { name: 'held', arguments: {} }));
    latch.release();
    const { response } = await pending;
    expect(response.result).toMatchObject({
      resultType: 'complete',
      content: [{ text: 'held done as undefined' }],
    });
    expect(tasks.stats().created).toBe(0);
  });

  it('per-request opt-in: the extension declared in one request _meta is enough', async () => {
    const { runtime, latch } = tasksServer();
    const { response } = await run(
      runtime,
      modern('tools/call', { name: 'held', arguments: {} }, { [CAPS]: { extensions: { [TASKS]: {} } } }),
    );
    expect(response.result.resultType).toBe('task');
    latch.release();
  });

  it('MRTR first, then a task: the input round is synchronous and the task carries its answer', async () => {
    const { runtime, tasks } = tasksServer({}, { mrtr: { secret: 'a-test-secret-of-at-least-32-bytes!!' } });
    const asked = (await run(runtime, callWithTasks('asks_first'))).response;
    expect(asked.result).toMatchObject({ resultType: 'input_required', inputRequests: { name: {} } });
    expect(asked.result).not.toHaveProperty('taskId');
    const retried = await run(
      runtime,
      callWithTasks(
        'asks_first',
        {},
        {
          inputResponses: { name: { action: 'accept', content: { name: 'Alice' } } },
          requestState: asked.result.requestState,
        },
      ),
    );
    const handle = retried.response.result;
    expect(handle).toMatchObject({ resultType: 'task' });
    expect(handle).not.toHaveProperty('requestState');
    expect(handle).not.toHaveProperty('inputRequests');
    expect(handle.ttlMs).toBeGreaterThan(0);
    const done = await waitForTask(tasks.store, handle.taskId, ended);
    expect(done.result).toMatchObject({ content: [{ text: 'Hello, Alice' }] });
  });
});

describe('Tasks extension: tasks/get', () => {
  it('working, then completed with the tool result inlined (no related-task _meta)', async () => {
    const { runtime, tasks, latch } = tasksServer();
    const { taskId } = (await create(runtime, 'job')).result;
    const working = await get(runtime, taskId);
    expect(working.result).toMatchObject({ resultType: 'complete', taskId, status: 'working' });
    expect(working.result).not.toHaveProperty('result');
    latch.release();
    await waitForTask(tasks.store, taskId, ended);
    const completed = await get(runtime, taskId);
    expect(completed.result).toMatchObject({
      resultType: 'complete',
      status: 'completed',
      // A 2026-07-28 CallToolResult: its resultType too.
      result: { content: [{ type: 'text', text: 'job done' }], resultType: 'complete' },
    });
    expect(completed.result.result._meta).toBeUndefined();
    expect(completed.result).not.toHaveProperty('requestState');
  });

  it('a tool error is completed with isError; a protocol error is failed with the error and no result', async () => {
    const { runtime, tasks } = tasksServer();
    const toolError = (await create(runtime, 'tool_failure')).result.taskId;
    const protocolError = (await create(runtime, 'protocol_failure')).result.taskId;
    await waitForTask(tasks.store, toolError, ended);
    await waitForTask(tasks.store, protocolError, ended);
    expect((await get(runtime, toolError)).result).toMatchObject({
      status: 'completed',
      result: { isError: true, content: [{ type: 'text', text: 'it broke' }] },
    });
    const failed = (await get(runtime, protocolError)).result;
    expect(failed).toMatchObject({
      status: 'failed',
      statusMessage: 'bad input found late',
      error: { code: -32602, message: 'bad input found late', data: { field: 'x' } },
    });
    expect(failed).not.toHaveProperty('result');
  });

  it('an unknown id, a malformed one and another principal’s task are the same -32602 "not found"', async () => {
    const { runtime, latch } = tasksServer();
    const { taskId } = (await create(runtime, 'job', {}, { principal: 'alice' })).result;
    const mine = await get(runtime, taskId, { principal: 'alice' });
    expect(mine.result.status).toBe('working');
    const answers = [
      await get(runtime, taskId, { principal: 'mallory' }),
      await get(runtime, taskId),
      await get(runtime, '00000000-0000-4000-8000-000000000000', { principal: 'alice' }),
      await get(runtime, 'not-a-task-id', { principal: 'alice' }),
    ];
    for (const answer of answers) {
      expect(answer.error.code).toBe(-32602);
      expect(answer.error.message).toBe('Failed to retrieve task: Task not found');
    }
    for (const method of ['tasks/cancel', 'tasks/update']) {
      const { response } = await run(runtime, tasksRequest(method, { taskId, inputResponses: {} }), {
        auth: { principal: 'mallory' },
      });
      expect(response.error.code).toBe(-32602);
    }
    expect((await get(runtime, taskId, { principal: 'alice' })).result.status).toBe('working');
    latch.release();
  });

  it('anonymous tasks are visible to anonymous callers only (the id is then the bearer)', async () => {
    const { runtime, latch } = tasksServer();
    const { taskId } = (await create(runtime, 'job')).result;
    expect((await get(runtime, taskId)).result.status).toBe('working');
    expect((await get(runtime, taskId, { principal: 'alice' })).error.code).toBe(-32602);
    latch.release();
  });

  it('params.taskId must be a string', async () => {
    const { runtime } = tasksServer();
    const { response } = await run(runtime, tasksRequest('tasks/get', { taskId: 42 }));
    expect(response.error.code).toBe(-32602);
  });
});

describe('Tasks extension: input while a task runs', () => {
  it('input_required with inputRequests → tasks/update ack → working → completed with the answer', async () => {
    const { runtime, tasks } = tasksServer();
    const { taskId } = (await create(runtime, 'confirm')).result;
    await waitForTask(tasks.store, taskId, (t) => t.status === 'input_required');
    const asking = (await get(runtime, taskId)).result;
    expect(asking).toMatchObject({
      status: 'input_required',
      inputRequests: { elicit: { method: 'elicitation/create', params: { message: 'Sure?' } } },
    });
    const ack = await run(
      runtime,
      tasksRequest('tasks/update', {
        taskId,
        inputResponses: { elicit: { action: 'accept', content: { sure: true } }, other: { ignored: true } },
      }),
    );
    expect(ack.response.result).toEqual({
      resultType: 'complete',
      _meta: expect.objectContaining({ 'io.modelcontextprotocol/serverInfo': expect.anything() }),
    });
    const done = await waitForTask(tasks.store, taskId, ended);
    expect(done.result).toMatchObject({
      content: [{ text: 'answer: {"action":"accept","content":{"sure":true}}' }],
    });
  });

  it('an answer unlike the requested schema is -32602 and changes nothing', async () => {
    const { runtime, tasks } = tasksServer();
    const { taskId } = (await create(runtime, 'confirm')).result;
    await waitForTask(tasks.store, taskId, (t) => t.status === 'input_required');
    const { response } = await run(
      runtime,
      tasksRequest('tasks/update', {
        taskId,
        inputResponses: { elicit: { action: 'accept', content: { sure: 'yes' } } },
      }),
    );
    expect(response.error.code).toBe(-32602);
    expect(response.error.message).toContain('elicit');
    expect((await get(runtime, taskId)).result.status).toBe('input_required');
  });

  it('inputResponses must be an object; answers to keys not outstanding are ignored', async () => {
    const { runtime, tasks, latch } = tasksServer();
    const bad = await run(runtime, tasksRequest('tasks/update', { taskId: 'x', inputResponses: [] }));
    expect(bad.response.error.code).toBe(-32602);
    const { taskId } = (await create(runtime, 'job')).result;
    const ignored = await run(
      runtime,
      tasksRequest('tasks/update', { taskId, inputResponses: { never: { action: 'accept' } } }),
    );
    expect(ignored.response.result.resultType).toBe('complete');
    const stored = await tasks.store.get(taskId);
    expect(stored?.revision).toBe(1);
    latch.release();
  });

  it('a key asked twice in one task goes out under a new key (keys are unique over a task’s life)', async () => {
    const { runtime, tasks } = tasksServer();
    const { taskId } = (await create(runtime, 'twice')).result;
    await waitForTask(tasks.store, taskId, (t) => t.inputRequests?.q !== undefined);
    await run(
      runtime,
      tasksRequest('tasks/update', {
        taskId,
        inputResponses: { q: { action: 'accept', content: { n: 1 } } },
      }),
    );
    const second = await waitForTask(tasks.store, taskId, (t) => t.inputRequests?.['q#2'] !== undefined);
    expect(Object.keys(second.inputRequests ?? {})).toEqual(['q#2']);
    // The first key is answered and gone: answering it again does nothing.
    await run(
      runtime,
      tasksRequest('tasks/update', {
        taskId,
        inputResponses: { q: { action: 'accept', content: { n: 9 } } },
      }),
    );
    await run(
      runtime,
      tasksRequest('tasks/update', {
        taskId,
        inputResponses: { 'q#2': { action: 'accept', content: { n: 2 } } },
      }),
    );
    const done = await waitForTask(tasks.store, taskId, ended);
    expect(done.result).toMatchObject({ content: [{ text: '{"n":1} {"n":2}' }] });
  });

  it('a task asking for a capability its client did not declare fails with -32021', async () => {
    const { runtime, tasks } = tasksServer();
    const { response } = await run(
      runtime,
      modern('tools/call', { name: 'confirm', arguments: {} }, { [CAPS]: { extensions: { [TASKS]: {} } } }),
    );
    const done = await waitForTask(tasks.store, response.result.taskId, ended);
    expect(done).toMatchObject({ status: 'failed', error: { code: -32021 } });
  });
});

describe('Tasks extension: progress, cancellation, deadline, shutdown', () => {
  it('progress messages become the statusMessage; no notifications are streamed for a task', async () => {
    const { runtime, tasks, latch } = tasksServer();
    const created = await run(
      runtime,
      modern(
        'tools/call',
        { name: 'reporter', arguments: {}, _meta: { progressToken: 'p' } },
        {
          ...WITH_TASKS,
          'io.modelcontextprotocol/logLevel': 'debug',
        },
      ),
    );
    const { taskId } = created.response.result;
    const reported = await waitForTask(tasks.store, taskId, (t) => t.statusMessage === 'halfway');
    expect(reported.status).toBe('working');
    expect((await get(runtime, taskId)).result.statusMessage).toBe('halfway');
    expect(created.notifications).toEqual([]);
    latch.release();
  });

  it('tasks/cancel acks with an empty result, the task ends cancelled, and a second cancel acks too', async () => {
    const { runtime, tasks, latch } = tasksServer();
    const { taskId } = (await create(runtime, 'job')).result;
    const ack = await run(runtime, tasksRequest('tasks/cancel', { taskId }));
    expect(Object.keys(ack.response.result).sort()).toEqual(['_meta', 'resultType']);
    const done = await waitForTask(tasks.store, taskId, ended);
    expect(done).toMatchObject({ status: 'cancelled', statusMessage: 'Cancelled by tasks/cancel' });
    expect((await get(runtime, taskId)).result.status).toBe('cancelled');
    const again = await run(runtime, tasksRequest('tasks/cancel', { taskId }));
    expect(again.response.result.resultType).toBe('complete');
    expect(latch.waiting).toBe(1);
    expect(tasks.stats()).toMatchObject({ running: 0, cancelled: 1 });
  });

  it('a cancelled handler that ignores its signal keeps its running slot until it returns', async () => {
    const { runtime, tasks, latch } = tasksServer({ maxRunningTasks: 1 });
    const { taskId } = (await create(runtime, 'stubborn')).result;
    await run(runtime, tasksRequest('tasks/cancel', { taskId }));
    await waitForTask(tasks.store, taskId, ended);
    expect(tasks.stats().running).toBe(1);
    const refused = await create(runtime, 'job');
    expect(refused.error.code).toBe(-32000);
    latch.release();
    await vi.waitFor(() => expect(tasks.stats().running).toBe(0));
    expect((await tasks.store.get(taskId))?.status).toBe('cancelled');
  });

  it('a task past its deadline fails with -32001', async () => {
    const { runtime, tasks } = tasksServer({ taskTimeout: 20 });
    const { taskId, ttlMs } = (await create(runtime, 'job')).result;
    expect(ttlMs).toBe(20 + 3_600_000);
    const done = await waitForTask(tasks.store, taskId, ended);
    expect(done).toMatchObject({ status: 'failed', error: { code: -32001, message: 'Task timed out' } });
  });

  it('close() stops running tasks and stores them as failed; later calls are not tasks', async () => {
    const { runtime, tasks } = tasksServer();
    const { taskId } = (await create(runtime, 'job')).result;
    await tasks.close();
    const stored = await tasks.store.get(taskId);
    expect(stored).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: 'The server shut down before the task finished' },
    });
    expect((await create(runtime, 'job')).error.code).toBe(-32000);
    expect((await create(runtime, 'quick')).result.content[0].text).toBe('quick result');
  });
});

describe('Tasks extension: definitions and options', () => {
  it('checks task and taskAfterMs of tools, and needs a task manager for task: "always"', () => {
    const base = { name: 's', version: '1' };
    const t = (extra: object) => ({ name: 't', handler: () => 'x', ...extra });
    expect(() => createServer({ ...base, tools: [t({ task: 'sometimes' })] })).toThrow(
      /task must be one of never, auto, always/,
    );
    expect(() => createServer({ ...base, tools: [t({ task: 'auto', taskAfterMs: -1 })] })).toThrow(
      /taskAfterMs/,
    );
    expect(() => createServer({ ...base, tools: [t({ task: 'always' })] })).toThrow(/has no tasks/);
    expect(() => createServer({ ...base, tasks: {} as any })).toThrow(/TaskManager/);
    expect(() => createServer({ ...base, tasks: createTaskManager(), extensions: { [TASKS]: {} } })).toThrow(
      /comes from tasks/,
    );
    // auto without a task manager: ordinary calls.
    expect(() => createServer({ ...base, tools: [t({ task: 'auto' })] })).not.toThrow();
  });

  it('validates the task manager options, naming the option', () => {
    expect(() => createTaskManager({ maxRunningTasks: 0 })).toThrow(/maxRunningTasks/);
    expect(() => createTaskManager({ taskTimeout: -5 })).toThrow(/taskTimeout/);
    expect(() => createTaskManager({ resultTtlMs: 1.5 })).toThrow(/resultTtlMs/);
    expect(() => createTaskManager({ pollIntervalMs: 0 })).toThrow(/pollIntervalMs/);
    expect(() => createTaskManager({ taskAfterMs: -1 })).toThrow(/taskAfterMs/);
    expect(() => createTaskManager({ leaseMs: 0 })).toThrow(/leaseMs/);
    expect(() => createTaskManager({ maxListenTaskIds: 0 })).toThrow(/maxListenTaskIds/);
    expect(() => createTaskManager({ store: {} as any })).toThrow(/TaskStore/);
    expect(() => createTaskManager({ ttl: 5 } as any)).toThrow(/unknown task manager option "ttl"/);
    const tasks = createTaskManager();
    expect(tasks).toMatchObject({
      maxRunningTasks: 32,
      taskTimeout: 3_600_000,
      resultTtlMs: 3_600_000,
      pollIntervalMs: 1_000,
      taskAfterMs: 1_000,
      leaseMs: 30_000,
      maxListenTaskIds: 64,
    });
    expect(createTaskManager({ taskTimeout: Number.POSITIVE_INFINITY }).taskTimeout).toBe(0);
  });

  it('with no deadline a running task’s ttlMs is null (unlimited) until it ends', async () => {
    const { runtime, tasks, latch } = tasksServer({ taskTimeout: 0, resultTtlMs: 1000 });
    const { taskId, ttlMs } = (await create(runtime, 'job')).result;
    expect(ttlMs).toBeNull();
    latch.release();
    const done = await waitForTask(tasks.store, taskId, ended);
    expect(done.ttlMs).toBe((done.expiresAt as number) - done.createdAt);
    expect(done.expiresAt).toBe(done.lastUpdatedAt + 1000);
  });

  it('over HTTP, tasks/* need Mcp-Name equal to params.taskId (400 and -32020 otherwise)', async () => {
    const { runtime, latch } = tasksServer();
    const created = modernMessage('tools/call', { name: 'job', arguments: {} }, WITH_TASKS);
    const { taskId } = (await postModern(runtime, created)).body.result;
    const message = modernMessage('tasks/get', { taskId }, WITH_TASKS);
    const ok = await postModern(runtime, message, undefined, { 'mcp-name': taskId });
    expect(ok.status).toBe(200);
    expect(ok.body.result.status).toBe('working');
    for (const name of [undefined, 'another-task']) {
      const refused = await postModern(runtime, message, undefined, { 'mcp-name': name });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe(-32020);
    }
    const undeclared = modernMessage('tasks/get', { taskId });
    const missing = await postModern(runtime, undeclared, undefined, { 'mcp-name': taskId });
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe(-32021);
    latch.release();
  });
});
