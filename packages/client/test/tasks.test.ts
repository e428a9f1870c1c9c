// The client's side of the Tasks extension: declaring it, following a task inside callTool (polling,
// input with the same handlers as MRTR, cancel on abort), and the lower-level client.tasks API;
// against a real Snodo server in-process, and a scripted one for the polling schedule.
import { createServer, createTaskManager, type Runtime, tool } from '@snodo/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Client, connect, ProtocolError, SnodoError } from '../src/index.js';
import { DISCOVER, ScriptedTransport } from './helpers/scripted.js';
import { storedTask, taskRuntime } from './helpers/tasks.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';

const clients: Client[] = [];
async function client(runtime: Runtime, options: Parameters<typeof connect>[1] = {}) {
  const connected = await connect({ direct: runtime }, options);
  clients.push(connected);
  return connected;
}

afterEach(async () => {
  for (const connected of clients.splice(0)) await connected.close();
  vi.useRealTimers();
});

describe('declaring the Tasks extension', () => {
  it('tasks: true declares it in every request’s capabilities; without it the server never makes a task', async () => {
    const { runtime, tasks, release } = taskRuntime();
    const transport = new ScriptedTransport((r) => (r.method === 'server/discover' ? DISCOVER : {}));
    await connect({ transport }, { tasks: true });
    const meta = transport.requests()[0]?.params?._meta as Record<string, any>;
    expect(meta[CAPS]).toEqual({ extensions: { [TASKS]: {} } });
    const plain = await client(runtime);
    release();
    expect(await plain.callTool('long')).toMatchObject({ content: [{ text: 'long done (inline)' }] });
    await expect(plain.callTool('job')).rejects.toMatchObject({ code: -32021 });
    expect(tasks.stats().created).toBe(0);
  });

  it('a task handle from a server the client did not declare the extension to is an invalid result', async () => {
    const transport = new ScriptedTransport((r) =>
      r.method === 'server/discover'
        ? DISCOVER
        : {
            resultType: 'task',
            taskId: 't',
            status: 'working',
            createdAt: '',
            lastUpdatedAt: '',
            ttlMs: null,
          },
    );
    const scripted = await connect({ transport });
    await expect(scripted.callTool('x')).rejects.toMatchObject({ code: 'SNODO_ERR_INVALID_RESULT' });
  });

  it('validates tasks.maxPollInterval', async () => {
    const { runtime } = taskRuntime();
    await expect(connect({ direct: runtime }, { tasks: { maxPollInterval: 0 } })).rejects.toThrow(
      /tasks.maxPollInterval must be an integer number of milliseconds from 1 to 2147483647, got 0/,
    );
    await expect(connect({ direct: runtime }, { tasks: 'yes' as never })).rejects.toThrow(/tasks must be/);
  });
});

describe('callTool follows a task', () => {
  it('to its result, through the statuses it reports', async () => {
    const { runtime, release } = taskRuntime();
    const connected = await client(runtime, { tasks: true });
    const seen: string[] = [];
    const result = connected.callTool(
      'long',
      {},
      {
        onStatus: (task) => {
          seen.push(task.statusMessage ?? task.status);
          if (task.statusMessage === 'working on it') release();
        },
      },
    );
    expect(await result).toMatchObject({ content: [{ type: 'text', text: 'long done (task)' }] });
    expect(seen[0]).toBe('working');
    expect(seen).toContain('working on it');
    expect(seen.at(-1)).toBe('completed');
  });

  it('answers the task’s input with the same handlers as MRTR, each request once, via "task"', async () => {
    const { runtime } = taskRuntime();
    const asked: string[] = [];
    const connected = await client(runtime, {
      tasks: true,
      onElicit: (params, context) => {
        asked.push(`${params.message} via ${context.via}`);
        return { action: asked.length === 1 ? 'accept' : 'decline', content: {} };
      },
    });
    expect(await connected.callTool('confirm')).toMatchObject({ content: [{ text: 'accept then decline' }] });
    expect(asked).toEqual(['Sure? via task', 'Really? via task']);
  });

  it('a failed task throws its JSON-RPC error; a cancelled one SNODO_ERR_TASK_CANCELLED', async () => {
    const { runtime, tasks } = taskRuntime();
    const connected = await client(runtime, { tasks: true });
    const failed = await connected.callTool('broken').catch((error: unknown) => error);
    expect(ProtocolError.is(failed)).toBe(true);
    expect(failed).toMatchObject({ code: -32603, message: 'exploded' });
    const following = connected.callTool('job').catch((error: unknown) => error);
    const created = await storedTask(tasks, (task) => task.status === 'working');
    await connected.tasks.cancel(created.taskId);
    const cancelled = await following;
    expect(SnodoError.is(cancelled) && cancelled.code).toBe('SNODO_ERR_TASK_CANCELLED');
  });

  it('aborting the call cancels the task on the server', async () => {
    const { runtime, tasks } = taskRuntime();
    const connected = await client(runtime, { tasks: true });
    const controller = new AbortController();
    let handle!: (taskId: string) => void;
    const handed = new Promise<string>((resolve) => {
      handle = resolve;
    });
    const following = connected
      .callTool('job', {}, { signal: controller.signal, onStatus: (task) => handle(task.taskId) })
      .catch((error: unknown) => error);
    const taskId = await handed;
    const ended = storedTask(tasks, (task) => task.status === 'cancelled', taskId);
    controller.abort(new Error('user gave up'));
    expect(await following).toMatchObject({ code: 'SNODO_ERR_ABORTED' });
    expect((await ended).statusMessage).toBe('Cancelled by tasks/cancel');
  });

  it('a server that keeps asking for input is stopped at maxInputRounds', async () => {
    const tasks = createTaskManager({ pollIntervalMs: 5 });
    const runtime = createServer({
      name: 'nag',
      version: '1',
      tasks,
      tools: [
        tool({
          name: 'nag',
          task: 'always',
          handler: async (_args, context) => {
            for (;;)
              await context.elicit({
                message: 'Again?',
                requestedSchema: { type: 'object', properties: {} },
              });
          },
        }),
      ],
    });
    const connected = await client(runtime, {
      tasks: true,
      maxInputRounds: 2,
      onElicit: () => ({ action: 'accept', content: {} }),
    });
    await expect(connected.callTool('nag')).rejects.toMatchObject({ code: 'SNODO_ERR_INPUT_ROUNDS' });
    await tasks.close();
  });
});

describe('client.tasks: the handle for callers that come back later', () => {
  it('start returns the handle; get, update and follow from another client finish it', async () => {
    const { runtime, tasks } = taskRuntime();
    // It declares elicitation (the task asks for it) but answers later, from another client.
    const first = await client(runtime, { tasks: true, capabilities: { elicitation: {} } });
    const started = await first.tasks.start('confirm');
    expect(started.result).toBeUndefined();
    const task = started.task;
    expect(task).toMatchObject({ status: 'working', pollIntervalMs: 10 });
    await first.close();
    await storedTask(
      tasks,
      (stored) => stored.taskId === task?.taskId && stored.status === 'input_required',
      task?.taskId,
    );
    const later = await client(runtime, { tasks: true, onElicit: () => ({ action: 'accept', content: {} }) });
    const waiting = await later.tasks.get(task?.taskId as string);
    expect(Object.keys(waiting.inputRequests ?? {})).toEqual(['elicit']);
    await later.tasks.update(waiting.taskId, { elicit: { action: 'cancel' } });
    expect(await later.tasks.follow(waiting.taskId)).toMatchObject({
      content: [{ text: 'cancel then accept' }],
    });
  });

  it('start returns a plain result when the call did not become a task', async () => {
    const { runtime, release } = taskRuntime();
    release();
    const connected = await client(runtime);
    expect(await connected.tasks.start('long')).toEqual({
      result: expect.objectContaining({ content: [{ type: 'text', text: 'long done (inline)' }] }),
    });
  });

  it('get of an unknown task is the server’s -32602', async () => {
    const { runtime } = taskRuntime();
    const connected = await client(runtime, { tasks: true });
    await expect(connected.tasks.get('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({
      code: -32602,
    });
  });
});

describe('polling schedule (scripted server, fake clock)', () => {
  function scriptedTask(statuses: Record<string, unknown>[]) {
    const gets: number[] = [];
    const transport = new ScriptedTransport((request) => {
      if (request.method === 'server/discover') return DISCOVER;
      if (request.method === 'tools/call')
        return {
          resultType: 'task',
          taskId: 't1',
          status: 'working',
          createdAt: 'x',
          lastUpdatedAt: 'x',
          ttlMs: null,
          pollIntervalMs: 100,
        };
      if (request.method === 'tasks/get') {
        gets.push(Date.now());
        return {
          resultType: 'complete',
          taskId: 't1',
          createdAt: 'x',
          lastUpdatedAt: 'x',
          ttlMs: null,
          ...statuses.shift(),
        };
      }
      return {};
    });
    return { transport, gets };
  }

  it('waits pollIntervalMs, backs off ×1.5 while nothing changes, up to maxPollInterval, and resets on a change', async () => {
    vi.useFakeTimers();
    const working = { status: 'working', pollIntervalMs: 100 };
    const { transport, gets } = scriptedTask([
      working,
      working,
      working,
      working,
      { status: 'working', statusMessage: 'step 2', pollIntervalMs: 100 },
      { status: 'completed', result: { content: [{ type: 'text', text: 'ok' }] } },
    ]);
    const connected = await connect({ transport }, { tasks: { maxPollInterval: 300 } });
    const start = Date.now();
    const result = connected.callTool('x');
    await vi.runAllTimersAsync();
    expect(await result).toMatchObject({ content: [{ text: 'ok' }] });
    const waits = gets.map((at, index) => at - (index === 0 ? start : (gets[index - 1] as number)));
    // handle → 100 → working (no change) → 150 → 225 → 337 capped at 300 → 'step 2' (a change) → 100.
    expect(waits).toEqual([100, 150, 225, 300, 300, 100]);
    const names = transport.requests('tasks/get').map((r) => r.params?.taskId);
    expect(names).toEqual(['t1', 't1', 't1', 't1', 't1', 't1']);
  });

  it('never polls faster than the server asks: a longer pollIntervalMs beats maxPollInterval', async () => {
    vi.useFakeTimers();
    const { transport, gets } = scriptedTask([
      { status: 'working', pollIntervalMs: 5000 },
      { status: 'completed', pollIntervalMs: 5000, result: { content: [] } },
    ]);
    const connected = await connect({ transport }, { tasks: { maxPollInterval: 300 } });
    const start = Date.now();
    const result = connected.callTool('x');
    await vi.runAllTimersAsync();
    await result;
    expect(gets.map((at, index) => at - (index === 0 ? start : (gets[index - 1] as number)))).toEqual([
      100, 5000,
    ]);
  });
});
