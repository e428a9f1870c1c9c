// Two instances behind one load balancer share a task store: a task created on one is read,
// answered and cancelled on the other. The shared store here is one in-memory store both task
// managers use, which is what a shared store (Redis) gives them; `@snodo/redis` runs the same
// scenarios against a real redis-server.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryTaskStore, type StoredTask, type TaskStore } from '../src/index.js';
import { run } from './helpers/run.js';
import { callWithTasks, ended, stored, tasksRequest, tasksServer, waitForTask } from './helpers/tasks.js';

/** A store an instance reaches through a link that can be cut (the instance crashed or lost its network). */
function cuttable(store: TaskStore): TaskStore & { cut(): void } {
  let cut = false;
  const reach = () => {
    if (cut) throw new Error('link cut');
    return store;
  };
  return {
    cut: () => {
      cut = true;
    },
    create: async (task) => reach().create(task),
    get: async (taskId) => reach().get(taskId),
    update: async (taskId, change) => reach().update(taskId, change),
    subscribe: (listener) => store.subscribe((task) => (cut ? undefined : listener(task))),
  };
}

async function get(runtime: any, taskId: string) {
  return (await run(runtime, tasksRequest('tasks/get', { taskId }))).response;
}

describe('Tasks across instances sharing a store', () => {
  afterEach(() => vi.useRealTimers());

  it('created on A: B reads it at once, answers its input, and reads the result', async () => {
    const store = createMemoryTaskStore();
    const a = tasksServer({ store });
    const b = tasksServer({ store });
    const { taskId } = (await run(a.runtime, callWithTasks('confirm'))).response.result;
    expect((await get(b.runtime, taskId)).result.taskId).toBe(taskId);
    await waitForTask(store, taskId, (t) => t.status === 'input_required');
    expect((await get(b.runtime, taskId)).result.inputRequests.elicit.method).toBe('elicitation/create');
    await run(
      b.runtime,
      tasksRequest('tasks/update', { taskId, inputResponses: { elicit: { action: 'decline' } } }),
    );
    await waitForTask(store, taskId, ended);
    expect((await get(b.runtime, taskId)).result).toMatchObject({
      status: 'completed',
      result: { content: [{ text: 'answer: {"action":"decline"}' }] },
    });
    expect(b.tasks.stats().running).toBe(0);
  });

  it('cancelled on B: A stops the handler and the task ends cancelled', async () => {
    const store = createMemoryTaskStore();
    const a = tasksServer({ store });
    const b = tasksServer({ store });
    const { taskId } = (await run(a.runtime, callWithTasks('job'))).response.result;
    await vi.waitFor(() => expect(a.latch.waiting).toBe(1));
    const ack = await run(b.runtime, tasksRequest('tasks/cancel', { taskId }));
    expect(ack.response.result.resultType).toBe('complete');
    const done = await waitForTask(store, taskId, ended);
    expect(done.status).toBe('cancelled');
    expect(a.tasks.stats()).toMatchObject({ running: 0, cancelled: 1 });
  });

  it('A renews the lease of its running task, so B keeps reading it as working', async () => {
    const store = createMemoryTaskStore();
    const a = tasksServer({ store, leaseMs: 30 });
    const b = tasksServer({ store, leaseMs: 30 });
    const { taskId } = (await run(a.runtime, callWithTasks('job'))).response.result;
    const first = (await store.get(taskId)) as StoredTask;
    const renewed = await waitForTask(store, taskId, (t) => t.leaseUntil > first.leaseUntil);
    expect(renewed.revision).toBe(first.revision);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(first.leaseUntil + 1);
    expect((await get(b.runtime, taskId)).result.status).toBe('working');
    vi.useRealTimers();
    a.latch.release();
    await waitForTask(store, taskId, ended);
  });

  it('A dies with the task running: once its lease passes, B fails the task with the reason', async () => {
    const shared = createMemoryTaskStore();
    const link = cuttable(shared);
    const a = tasksServer({ store: link, leaseMs: 1000 });
    const b = tasksServer({ store: shared, leaseMs: 1000 });
    const { taskId } = (await run(a.runtime, callWithTasks('job'))).response.result;
    link.cut();
    vi.useFakeTimers({ toFake: ['Date'] });
    const task = (await shared.get(taskId)) as StoredTask;
    vi.setSystemTime(task.leaseUntil - 1);
    expect((await get(b.runtime, taskId)).result.status).toBe('working');
    vi.setSystemTime(task.leaseUntil + 1);
    const lost = (await get(b.runtime, taskId)).result;
    expect(lost).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: 'Task lost: the server running it stopped' },
    });
    expect(lost.ttlMs).toBe(task.leaseUntil + 1 + 3_600_000 - task.createdAt);
    vi.useRealTimers();
    a.latch.release();
  });

  it('a finished task outlives the instance that ran it: a new instance on the store reads the result', async () => {
    const store = createMemoryTaskStore();
    const a = tasksServer({ store });
    const { taskId } = (await run(a.runtime, callWithTasks('tool_failure'))).response.result;
    await waitForTask(store, taskId, ended);
    await a.tasks.close();
    const restarted = tasksServer({ store });
    expect((await get(restarted.runtime, taskId)).result).toMatchObject({
      status: 'completed',
      result: { isError: true },
    });
  });

  it('a live task of this instance that it no longer runs is failed when read (its worker is gone)', async () => {
    const store = createMemoryTaskStore();
    const a = tasksServer({ store });
    await store.create(
      stored('11111111-1111-4111-8111-111111111111', {
        ttlMs: null,
        pollIntervalMs: 10,
        expiresAt: null,
        worker: a.tasks.id,
        leaseUntil: Date.now() + 60_000,
      }),
    );
    expect((await get(a.runtime, '11111111-1111-4111-8111-111111111111')).result.status).toBe('failed');
  });
});
