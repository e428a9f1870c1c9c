import { describe, expect, it } from 'vitest';
import { type AuthInfo, dispatch, type OpenedSubscription } from '../src/index.js';
import { modern } from './helpers/demo.js';
import { run } from './helpers/run.js';
import {
  callWithTasks,
  ended,
  TASKS as TASKS_ID,
  tasksRequest,
  tasksServer,
  WITH_TASKS,
  waitForTask,
} from './helpers/tasks.js';
import { expectSchema, TASKS } from './helpers/wire-schema.js';

const SUB = 'io.modelcontextprotocol/subscriptionId';

async function listen(
  runtime: any,
  notifications: unknown,
  options: { auth?: AuthInfo; meta?: Record<string, unknown>; queue?: number } = {},
) {
  const request = {
    ...modern('subscriptions/listen', { notifications }, options.meta ?? WITH_TASKS),
    id: 'L',
  };
  return dispatch(runtime, request, {
    ...(options.auth ? { auth: options.auth } : {}),
    ...(options.queue === undefined ? {} : { subscriptionQueue: options.queue }),
  });
}

async function subscribe(
  runtime: any,
  notifications: unknown,
  options: { auth?: AuthInfo; queue?: number } = {},
) {
  const outcome = await listen(runtime, notifications, options);
  if (outcome.type !== 'subscription') throw new Error(`expected a subscription: ${JSON.stringify(outcome)}`);
  return outcome.subscription;
}

function reader(subscription: OpenedSubscription) {
  const iterator = subscription[Symbol.asyncIterator]();
  return async () => {
    const next = await iterator.next();
    if (next.done) throw new Error('the subscription ended');
    return next.value as any;
  };
}

describe('notifications/tasks on subscriptions/listen', () => {
  it('honours the listener’s own task ids, sends their state first, then each change to the end', async () => {
    const { runtime, tasks } = tasksServer();
    const auth = { principal: 'alice' };
    const mine = (await run(runtime, callWithTasks('confirm'), { auth })).response.result.taskId;
    const theirs = (await run(runtime, callWithTasks('job'), { auth: { principal: 'bob' } })).response.result
      .taskId;
    await waitForTask(tasks.store, mine, (t) => t.status === 'input_required');
    const subscription = await subscribe(
      runtime,
      { taskIds: [mine, theirs, 'not-a-task', mine], toolsListChanged: true },
      { auth },
    );
    const next = reader(subscription);
    const ack = await next();
    expect(ack.params.notifications).toEqual({ taskIds: [mine] });
    const snapshot = await next();
    expectSchema(TASKS, 'TaskStatusNotification', snapshot);
    expect(snapshot).toMatchObject({
      method: 'notifications/tasks',
      params: {
        taskId: mine,
        status: 'input_required',
        inputRequests: { elicit: { method: 'elicitation/create' } },
        _meta: { [SUB]: 'L' },
      },
    });
    await run(
      runtime,
      tasksRequest('tasks/update', { taskId: mine, inputResponses: { elicit: { action: 'cancel' } } }),
      { auth },
    );
    const working = await next();
    expect(working.params).toMatchObject({ taskId: mine, status: 'working' });
    const completed = await next();
    expectSchema(TASKS, 'TaskStatusNotification', completed);
    expect(completed.params).toMatchObject({
      taskId: mine,
      status: 'completed',
      result: { content: [{ text: 'answer: {"action":"cancel"}' }] },
    });
    // Bob's task changes; Alice hears nothing of it.
    await run(runtime, tasksRequest('tasks/cancel', { taskId: theirs }), { auth: { principal: 'bob' } });
    await waitForTask(tasks.store, theirs, ended);
    const final = subscription.close();
    expect('result' in final && final.result).toMatchObject({ resultType: 'complete' });
    expect(await next().catch((error: Error) => error.message)).toBe('the subscription ended');
  });

  it('without a change hub the stream stays open for task notifications', async () => {
    const { runtime, tasks, latch } = tasksServer();
    expect(runtime.hub).toBeUndefined();
    const { taskId } = (await run(runtime, callWithTasks('job'))).response.result;
    const subscription = await subscribe(runtime, { taskIds: [taskId] });
    const next = reader(subscription);
    await next();
    expect((await next()).params.status).toBe('working');
    latch.release();
    await waitForTask(tasks.store, taskId, ended);
    expect((await next()).params).toMatchObject({
      status: 'completed',
      result: { content: [{ text: 'job done' }] },
    });
    subscription.close();
  });

  it('a client that did not declare the extension is refused with -32021 when it names taskIds', async () => {
    const { runtime } = tasksServer();
    const outcome = await listen(runtime, { taskIds: [] }, { meta: {} });
    expect(outcome.type).toBe('response');
    expect((outcome as any).message.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS_ID]: {} } } },
    });
    const plain = await listen(runtime, { toolsListChanged: true }, { meta: {} });
    expect(plain.type).toBe('subscription');
    (plain as any).subscription.close();
  });

  it('names at most maxListenTaskIds tasks (default 64): one more is -32602; taskIds must be strings', async () => {
    const { runtime } = tasksServer({ maxListenTaskIds: 2 });
    const ids = ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'];
    const atBound = await listen(runtime, { taskIds: ids });
    expect(atBound.type).toBe('subscription');
    (atBound as any).subscription.close();
    const over = await listen(runtime, { taskIds: [...ids, '00000000-0000-4000-8000-000000000003'] });
    expect((over as any).message.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('at most 2'),
    });
    const typed = await listen(runtime, { taskIds: [1] });
    expect((typed as any).message.error.code).toBe(-32602);
    const defaults = tasksServer();
    const many = Array.from(
      { length: 65 },
      (_, n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    );
    expect(
      ((await listen(defaults.runtime, { taskIds: many.slice(0, 64) })) as any).subscription.close(),
    ).toBeDefined();
    expect(((await listen(defaults.runtime, { taskIds: many })) as any).message.error.code).toBe(-32602);
  });

  it('a reader that falls behind the subscription queue is dropped, and its feed with it', async () => {
    const { runtime, tasks } = tasksServer();
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) ids.push((await run(runtime, callWithTasks('job'))).response.result.taskId);
    const subscription = await subscribe(runtime, { taskIds: ids }, { queue: 2 });
    const received: any[] = [];
    for await (const message of subscription) received.push(message);
    expect(received).toEqual([]);
    expect((subscription as any).overflowed).toBe(true);
    await tasks.close();
  });
});
