// The proxy's own tasks: for a frontend that declared the Tasks extension, a backend's tools/call
// (the backend answering no task itself) still running after taskAfterMs becomes a task of the
// proxy's own, run by core's task machinery under the proxy's task manager. The backends are the
// demo server (examples/everything) in real processes: 2026-07-28 over stdio and over HTTP, and an
// initialize-based one over stdio.
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, type RawClientDispatch } from '@modelcontextprotocol/ext-tasks/client';
import { type Client, type ConnectOptions, connect } from '@snodo/client';
import { createTaskManager, type TaskManager } from '@snodo/core';
import { listen, type McpHttpServer } from '@snodo/transport-http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bearerAuthenticator } from '../src/cli/tokens.js';
import { createProxy, type McpProxy } from '../src/index.js';
import { reader } from './helpers/proxy.js';
import { DEMO_MAIN, demoStdio, type Started, startDemoHttp } from './helpers/servers.js';

const TOKENS = ['alice-token-0123456789', 'bob-token-0123456789'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const NOT_FOUND = { code: -32602, message: 'Failed to retrieve task: Task not found' };

describe("the proxy's own tasks, over the demo server in real processes", () => {
  let demoHttp: Started;
  let tasks: TaskManager;
  let proxy: McpProxy;
  let http: McpHttpServer;
  const clients: Client[] = [];

  beforeAll(async () => {
    demoHttp = await startDemoHttp();
    tasks = createTaskManager({ pollIntervalMs: 20 });
    proxy = await createProxy({
      taskManager: tasks,
      // Every call that is not answered at once becomes a task.
      taskAfterMs: 0,
      backends: [
        { id: 'st', target: demoStdio() },
        { id: 'ht', target: { http: demoHttp.url } },
        {
          id: 'old',
          target: { stdio: { command: process.execPath, args: [DEMO_MAIN, '--stdio'] } },
          clientOptions: { protocolVersions: ['2025-11-25'] },
        },
        // The same server, with the proxy's tasks off for it.
        { id: 'off', target: demoStdio(), taskAfterMs: false },
      ],
    });
    http = await listen({ runtime: proxy.runtime(), port: 0, authenticate: bearerAuthenticator(TOKENS) });
  });

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await http?.close();
    await proxy?.close();
    await demoHttp?.stop();
  });

  async function as(token: string, options: ConnectOptions = {}): Promise<Client> {
    const client = await connect(
      { http: http.url() },
      { tasks: true, ...options, authorization: () => token },
    );
    clients.push(client);
    return client;
  }
  const alice = () => as(TOKENS[0] as string);

  /** How many `sleep` calls the backend runs now (itself excluded): its answer to a sleep of 0 ms. */
  async function sleeping(client: Client, backend: string): Promise<number> {
    const { structuredContent } = await client.callTool(`${backend}.sleep`, { ms: 0 });
    return (structuredContent as { concurrent: number }).concurrent - 1;
  }

  for (const backend of ['st', 'ht']) {
    it(`${backend}: a slow call becomes a task of the proxy's own, followed to the backend's result`, async () => {
      const client = await alice();
      const { task, result } = await client.tasks.start(`${backend}.sleep`, { ms: 300 });
      expect(result).toBeUndefined();
      expect(task).toMatchObject({ status: 'working', pollIntervalMs: 20 });
      expect(task?.taskId).toMatch(UUID);
      const done = await client.tasks.follow(task?.taskId as string);
      expect(done.structuredContent).toMatchObject({ sleptMs: 300 });
      expect((await client.tasks.get(task?.taskId as string)).status).toBe('completed');
    });

    it(`${backend}: tasks/cancel stops the task and cancels the backend's call`, async () => {
      const client = await alice();
      const { task } = await client.tasks.start(`${backend}.sleep`, { ms: 600_000 });
      const taskId = task?.taskId as string;
      await vi.waitFor(async () => expect(await sleeping(client, backend)).toBe(1));
      await client.tasks.cancel(taskId);
      await vi.waitFor(async () => expect((await client.tasks.get(taskId)).status).toBe('cancelled'));
      // The backend got notifications/cancelled: its sleep stopped.
      await vi.waitFor(async () => expect(await sleeping(client, backend)).toBe(0));
    });
  }

  it('the task keeps running when its frontend disconnects, and the same principal reads its result later', async () => {
    const first = await alice();
    const { task } = await first.tasks.start('st.sleep', { ms: 1_000 });
    await first.close();
    const later = await alice();
    const done = await later.tasks.follow(task?.taskId as string);
    expect(done.structuredContent).toMatchObject({ sleptMs: 1_000 });
  });

  it('another principal gets "not found" for the task, exactly like an unknown id', async () => {
    const owner = await alice();
    const other = await as(TOKENS[1] as string);
    const { task } = await owner.tasks.start('st.sleep', { ms: 600_000 });
    const taskId = task?.taskId as string;
    for (const id of [taskId, '00000000-0000-4000-8000-000000000000']) {
      await expect(other.tasks.get(id)).rejects.toMatchObject(NOT_FOUND);
      await expect(other.tasks.cancel(id)).rejects.toMatchObject(NOT_FOUND);
      await expect(other.tasks.update(id, { x: {} })).rejects.toMatchObject(NOT_FOUND);
    }
    expect((await owner.tasks.get(taskId)).status).toBe('working');
    await owner.tasks.cancel(taskId);
  });

  for (const backend of ['st', 'old']) {
    it(`${backend}: the backend's elicitation during the task is the task's input request, answered by tasks/update`, async () => {
      // It declares elicitation; the test answers with tasks/update itself.
      const client = await as(TOKENS[0] as string, {
        onElicit: async () => {
          throw new Error('answered by tasks/update');
        },
      });
      const { task } = await client.tasks.start(`${backend}.ask`, { afterMs: 300 });
      const taskId = task?.taskId as string;
      expect(taskId).toMatch(UUID);
      const asked = await vi.waitFor(
        async () => {
          const current = await client.tasks.get(taskId);
          expect(current.status).toBe('input_required');
          return current;
        },
        { timeout: 10_000 },
      );
      const [key, request] = Object.entries(asked.inputRequests ?? {})[0] ?? [];
      expect(request).toMatchObject({
        method: 'elicitation/create',
        params: { message: 'What is your name?' },
      });
      await client.tasks.update(taskId, { [key as string]: { action: 'accept', content: { name: 'Ada' } } });
      const done = await client.tasks.follow(taskId);
      expect(done.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
    });
  }

  it("callTool of our client follows the proxy's task and answers its input with its own handler", async () => {
    const client = await as(TOKENS[0] as string, {
      onElicit: async () => ({ action: 'accept', content: { name: 'Grace' } }),
    });
    const result = await client.callTool('ht.ask', { afterMs: 300 });
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, Grace!' }]);
  });

  it('a listen naming the task gets its state at once, then each change until it ends', async () => {
    const client = await alice();
    const { task } = await client.tasks.start('st.sleep', { ms: 600_000 });
    const taskId = task?.taskId as string;
    const subscription = client.listen({ taskIds: [taskId] } as never);
    expect(await subscription.ready).toEqual({ taskIds: [taskId] });
    const next = reader(subscription);
    expect((await next()).params).toMatchObject({ taskId, status: 'working' });
    await client.tasks.cancel(taskId);
    expect((await next()).params).toMatchObject({ taskId, status: 'cancelled' });
    await subscription.close();
  });

  it("the official requester (@modelcontextprotocol/ext-tasks over the SDK v2 client) follows the proxy's task to its result", async () => {
    const authorization = `Bearer ${TOKENS[0]}`;
    const client = new V2Client(
      { name: 'official', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new V2Transport(new URL(http.url()), { requestInit: { headers: { authorization } } }),
    );
    let id = 0;
    // The requester sends task wire shapes itself: a 2026-07-28 POST with its headers.
    const rawDispatch: RawClientDispatch = async (request, options) => {
      const message = { jsonrpc: '2.0', id: ++id, ...(request as { method: string; params?: object }) };
      const params = (message.params ?? {}) as Record<string, unknown>;
      const name = message.method === 'tools/call' ? params.name : params.taskId;
      const response = await fetch(http.url(), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': message.method,
          ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
          authorization,
        },
        body: JSON.stringify(message),
        ...(options?.signal ? { signal: options.signal } : {}),
      });
      const text = await response.text();
      const body = response.headers.get('content-type')?.includes('text/event-stream')
        ? JSON.parse(
            text
              .split('\n')
              .filter((line) => line.startsWith('data:'))
              .map((line) => line.slice(5))
              .find((data) => JSON.parse(data).id === message.id) as string,
          )
        : JSON.parse(text);
      return 'error' in body ? { kind: 'error', error: body.error } : { kind: 'result', result: body.result };
    };
    const session = createTaskSessionFromClient(client, {
      endpointId: 'proxy',
      rawDispatch,
      v2RequestFraming: {
        protocolVersion: '2026-07-28',
        clientInfo: { name: 'official', version: '1.0.0' },
        clientCapabilities: {},
      },
    });
    try {
      const execution = await session.callTool('st.sleep', { ms: 300 });
      expect(execution.kind).toBe('task');
      expect(execution.handle?.taskId).toMatch(UUID);
      const { outcome } = await execution.settle();
      expect(outcome).toMatchObject({ status: 'completed', result: { structuredContent: { sleptMs: 300 } } });
    } finally {
      await session.close();
      await client.close();
    }
  });

  it('no task for a frontend without the extension, nor for a backend whose taskAfterMs is false', async () => {
    const plain = await as(TOKENS[0] as string, { tasks: false });
    const result = await plain.callTool('st.sleep', { ms: 300 });
    expect(result.structuredContent).toMatchObject({ sleptMs: 300 });
    const client = await alice();
    const started = await client.tasks.start('off.sleep', { ms: 300 });
    expect(started.task).toBeUndefined();
    expect(started.result?.structuredContent).toMatchObject({ sleptMs: 300 });
  });
});

describe("the proxy's own tasks end with their deadline and with the proxy", () => {
  it("the task's deadline fails it and cancels the backend's call; close() stops a running one", async () => {
    const demoHttp = await startDemoHttp();
    const tasks = createTaskManager({ pollIntervalMs: 20, taskTimeout: 300 });
    const proxy = await createProxy({
      taskManager: tasks,
      taskAfterMs: 0,
      backends: [{ id: 'ht', target: { http: demoHttp.url } }],
    });
    const direct = await connect({ http: demoHttp.url });
    try {
      const client = await connect({ direct: proxy.runtime() }, { tasks: true });
      const { task } = await client.tasks.start('ht.sleep', { ms: 600_000 });
      const taskId = task?.taskId as string;
      const failed = await vi.waitFor(async () => {
        const current = await client.tasks.get(taskId);
        expect(current.status).toBe('failed');
        return current;
      });
      expect(failed.error).toMatchObject({ code: -32001, message: 'Task timed out' });
      const concurrent = async () =>
        ((await direct.callTool('sleep', { ms: 0 })).structuredContent as { concurrent: number }).concurrent;
      await vi.waitFor(async () => expect(await concurrent()).toBe(1));

      const { task: running } = await client.tasks.start('ht.sleep', { ms: 600_000 });
      await vi.waitFor(async () => expect(await concurrent()).toBe(2));
      await proxy.close();
      const stored = await tasks.store.get(running?.taskId as string);
      expect(stored).toMatchObject({
        status: 'failed',
        error: { message: 'The server shut down before the task finished' },
      });
      // The backend got notifications/cancelled before its client closed: its sleep stopped.
      await vi.waitFor(async () => expect(await concurrent()).toBe(1));
      await client.close();
    } finally {
      await direct.close();
      await proxy.close();
      await demoHttp.stop();
    }
  });
});
