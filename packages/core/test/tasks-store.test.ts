import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryTaskStore } from '../src/index.js';
import { run } from './helpers/run.js';
import { callWithTasks, ended, stored, tasksRequest, tasksServer, waitForTask } from './helpers/tasks.js';

describe('createMemoryTaskStore', () => {
  afterEach(() => vi.useRealTimers());

  it('holds at most maxTasks (default 1,000): at the bound a new task is refused, never an unexpired one dropped', async () => {
    const store = createMemoryTaskStore({ maxTasks: 2 });
    expect(await store.create(stored('a'))).toBe(true);
    expect(await store.create(stored('b'))).toBe(true);
    expect(await store.create(stored('c'))).toBe(false);
    expect(store.size).toBe(2);
    expect(await store.get('a')).toBeDefined();
    const defaults = createMemoryTaskStore();
    for (let n = 0; n < 1000; n++) expect(await defaults.create(stored(`t${n}`))).toBe(true);
    expect(await defaults.create(stored('one-more'))).toBe(false);
  });

  it('drops a task once expiresAt passes: lazily when read, all at once when full', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const store = createMemoryTaskStore({ maxTasks: 2 });
    await store.create(stored('a'));
    await store.create(stored('b', { expiresAt: null, ttlMs: null }));
    vi.setSystemTime(Date.now() + 999);
    expect(await store.get('a')).toBeDefined();
    vi.setSystemTime(Date.now() + 1);
    expect(await store.get('a')).toBeUndefined();
    expect(await store.update('a', (t) => t)).toBeUndefined();
    expect(await store.get('b')).toBeDefined();
    await store.create(stored('c', { expiresAt: Date.now() + 5 }));
    vi.setSystemTime(Date.now() + 5);
    expect(await store.create(stored('d'))).toBe(true);
    expect(store.size).toBe(2);
  });

  it('update applies a change and tells every subscriber; no change, no event', async () => {
    const store = createMemoryTaskStore();
    const seen: string[] = [];
    const stop = store.subscribe((task) => seen.push(`${task.taskId}:${task.status}`));
    await store.create(stored('a'));
    const kept = await store.update('a', () => undefined);
    expect(kept?.status).toBe('working');
    const next = await store.update('a', (task) => ({ ...task, status: 'completed' }));
    expect(next?.status).toBe('completed');
    stop();
    await store.update('a', (task) => ({ ...task, revision: 2 }));
    expect(seen).toEqual(['a:working', 'a:completed']);
  });

  it('a failing listener does not fail the change', async () => {
    const store = createMemoryTaskStore();
    store.subscribe(() => {
      throw new Error('listener bug');
    });
    expect(await store.create(stored('a'))).toBe(true);
    expect((await store.update('a', (t) => ({ ...t, revision: 2 })))?.revision).toBe(2);
  });

  it('validates its options', () => {
    expect(() => createMemoryTaskStore({ maxTasks: 0 })).toThrow(/maxTasks must be a positive integer/);
    expect(() => createMemoryTaskStore({ size: 1 } as any)).toThrow(/unknown task store option "size"/);
  });
});

describe('Task manager bounds', () => {
  afterEach(() => vi.useRealTimers());

  it('maxRunningTasks: at the bound an always call is -32000 and an auto call stays an ordinary call', async () => {
    const { runtime, tasks, latch } = tasksServer({ maxRunningTasks: 2 });
    const first = await run(runtime, callWithTasks('job'));
    const second = await run(runtime, callWithTasks('job'));
    expect(first.response.result.resultType).toBe('task');
    expect(second.response.result.resultType).toBe('task');
    const refused = await run(runtime, callWithTasks('job'));
    expect(refused.response.error).toMatchObject({
      code: -32000,
      message: 'Too many running tasks: try again later',
    });
    const inline = run(runtime, callWithTasks('held'));
    await vi.waitFor(() => expect(latch.waiting).toBe(3));
    latch.release();
    expect((await inline).response.result).toMatchObject({
      resultType: 'complete',
      content: [{ text: 'held done as undefined' }],
    });
    expect(tasks.stats()).toMatchObject({ refused: 2 });
    await waitForTask(tasks.store, first.response.result.taskId, ended);
    await waitForTask(tasks.store, second.response.result.taskId, ended);
    await vi.waitFor(() => expect(tasks.stats().running).toBe(0));
    expect((await run(runtime, callWithTasks('tool_failure'))).response.result.resultType).toBe('task');
  });

  it('a full store refuses the task (-32000) and takes tasks again once a finished one expires', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const store = createMemoryTaskStore({ maxTasks: 1 });
    const { runtime, tasks } = tasksServer({ store, resultTtlMs: 1000 });
    const first = (await run(runtime, callWithTasks('tool_failure'))).response.result.taskId;
    await waitForTask(tasks.store, first, ended);
    const refused = await run(runtime, callWithTasks('tool_failure'));
    expect(refused.response.error).toMatchObject({
      code: -32000,
      message: 'Too many tasks: try again later',
    });
    expect(tasks.stats().refused).toBe(1);
    vi.setSystemTime(Date.now() + 1000);
    const gone = await run(runtime, tasksRequest('tasks/get', { taskId: first }));
    expect(gone.response.error.code).toBe(-32602);
    expect((await run(runtime, callWithTasks('tool_failure'))).response.result.resultType).toBe('task');
  });

  it('a finished task is readable for resultTtlMs after it ends, as its ttlMs says, then not found', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { runtime, tasks } = tasksServer({ resultTtlMs: 60_000 });
    const { taskId } = (await run(runtime, callWithTasks('tool_failure'))).response.result;
    const done = await waitForTask(tasks.store, taskId, ended);
    const read = (await run(runtime, tasksRequest('tasks/get', { taskId }))).response.result;
    expect(read.ttlMs).toBe(done.lastUpdatedAt + 60_000 - done.createdAt);
    vi.setSystemTime(done.createdAt + read.ttlMs - 1);
    expect((await run(runtime, tasksRequest('tasks/get', { taskId }))).response.result.status).toBe(
      'completed',
    );
    vi.setSystemTime(done.createdAt + read.ttlMs);
    const expired = await run(runtime, tasksRequest('tasks/get', { taskId }));
    expect(expired.response.error).toMatchObject({
      code: -32602,
      message: 'Failed to retrieve task: Task not found',
    });
  });
});
