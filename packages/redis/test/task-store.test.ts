// The scenarios of instances sharing a task store (core's test/fixtures/task-instances.ts) on the
// Redis task store: each instance its own link to a real redis-server, under a prefix fresh for
// the test; cutting an instance closes its link. Then what only Redis has: pub/sub, retries.
import type { StoredTask } from '@snodo/core';
import { describe, expect, it, vi } from 'vitest';
import { describeTaskInstances } from '../../core/test/fixtures/task-instances.js';
import { run } from '../../core/test/helpers/run.js';
import { callWithTasks, ended, stored, tasksServer, waitForTask } from '../../core/test/helpers/tasks.js';
import { RedisError } from '../src/index.js';
import { useRedis } from './helpers/cluster.js';

const { server, join, freshPrefix, cluster } = useRedis();

describeTaskInstances({
  name: 'Redis',
  async fresh(options = {}) {
    const prefix = freshPrefix();
    return {
      async open() {
        const instance = await join(prefix, options);
        return { store: instance.taskStore, cut: () => instance.close() };
      },
    };
  },
});

describe('RedisTaskStore', () => {
  it('a cancel whose change notice never reached the running instance is seen at its next lease renewal', async () => {
    const prefix = freshPrefix();
    const [one, two] = [await join(prefix), await join(prefix)];
    const a = tasksServer({ store: one.taskStore, leaseMs: 60 });
    const { taskId } = (await run(a.runtime, callWithTasks('job'))).response.result;
    const task = (await two.taskStore.get(taskId)) as StoredTask;
    // Written behind the store's back: no message on the channel, as when A's subscriber was down.
    server().cli('SET', `${prefix}task:${taskId}`, JSON.stringify({ ...task, cancelRequested: true }));
    const done = await waitForTask(two.taskStore, taskId, ended);
    expect(done.status).toBe('cancelled');
    expect(one.taskStore.stats.received).toBe(0);
  });

  it('an update that keeps finding the task changed gives up after taskUpdateAttempts (default 16) with SNODO_ERR_TASK_CONFLICT', async () => {
    const prefix = freshPrefix();
    const [one, bounded] = [await join(prefix), await join(prefix, { taskUpdateAttempts: 3 })];
    await one.taskStore.create(stored('busy', { expiresAt: Date.now() + 60_000 }));
    const meddle = (store: typeof one.taskStore) => {
      let calls = 0;
      const change = (task: StoredTask) => {
        calls++;
        server().cli('SET', `${prefix}task:busy`, JSON.stringify({ ...task, revision: task.revision + 1 }));
        return { ...task, statusMessage: 'mine' };
      };
      return { calls: () => calls, update: () => store.update('busy', change) };
    };
    const three = meddle(bounded.taskStore);
    const error = await three.update().catch((e: unknown) => e);
    expect(RedisError.is(error) && error.code).toBe('SNODO_ERR_TASK_CONFLICT');
    expect((error as Error).message).toBe(
      'A task kept changing under its update for taskUpdateAttempts attempts: task busy changed under each of 3 attempts (taskUpdateAttempts)',
    );
    expect(three.calls()).toBe(3);
    expect(bounded.taskStore.stats.retries).toBe(3);
    const sixteen = meddle(one.taskStore);
    await expect(sixteen.update()).rejects.toThrow(/each of 16 attempts/);
    expect(sixteen.calls()).toBe(16);
    expect((await one.taskStore.get('busy'))?.statusMessage).toBeUndefined();
  });

  it('keeps a task until its expiresAt in Redis too (PXAT), and none while it is null', async () => {
    const { prefix, instances } = await cluster(1);
    const store = instances[0].taskStore;
    const expiresAt = Date.now() + 60_000;
    await store.create(stored('timed', { expiresAt }));
    await store.create(stored('open', { expiresAt: null, ttlMs: null }));
    expect(Number(server().cli('PEXPIRETIME', `${prefix}task:timed`))).toBe(expiresAt);
    expect(server().cli('PEXPIRETIME', `${prefix}task:open`)).toBe('-1');
    await store.update('open', (task) => ({ ...task, status: 'completed', expiresAt }));
    expect(Number(server().cli('PEXPIRETIME', `${prefix}task:open`))).toBe(expiresAt);
    expect(Number(server().cli('ZSCORE', `${prefix}tasks`, 'open'))).toBe(expiresAt);
    await store.update('open', (task) => ({ ...task, expiresAt: Date.now() - 1 }));
    expect(server().cli('EXISTS', `${prefix}task:open`)).toBe('0');
    expect(await store.size()).toBe(1);
  });

  it('a task too large for maxMessageBytes is announced by id and read by the other instances', async () => {
    const {
      instances: [one, two],
    } = await cluster(2, { maxMessageBytes: 1024 });
    const big = stored('big', { expiresAt: Date.now() + 60_000, statusMessage: 'x'.repeat(2000) });
    const seen = waitForTask(two.taskStore, 'big', (task) => task.statusMessage === big.statusMessage);
    await one.taskStore.create(big);
    expect(await seen).toEqual(big);
    expect(two.taskStore.stats.received).toBe(1);
  });

  it('ignores a message on the channel that is not a change', async () => {
    const {
      prefix,
      instances: [one],
    } = await cluster(1);
    server().cli('PUBLISH', `${prefix}tasks`, '{"o":"x","id":"a","t":{"taskId":"b"}}');
    server().cli('PUBLISH', `${prefix}tasks`, 'not json');
    await vi.waitFor(() => expect(one.taskStore.stats.ignored).toBe(2));
    expect(one.taskStore.stats.received).toBe(0);
  });
});
