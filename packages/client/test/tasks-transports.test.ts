// A task's whole life over the real transports: the conformance fixture over stdio (a child
// process), and a task server behind Snodo's HTTP listener, where a task outlives its client's
// connection and is bounded apart from the listener's request executor.
import { Executor } from '@snodo/core';
import { listen, type McpHttpServer } from '@snodo/transport-http';
import { afterEach, describe, expect, it } from 'vitest';
import { type Client, connect } from '../src/index.js';
import { CONFORMANCE_SERVER_MAIN } from './helpers/paths.js';
import { storedTask, taskRuntime } from './helpers/tasks.js';

const clients: Client[] = [];
const servers: McpHttpServer[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const server of servers.splice(0)) await server.close();
});

async function connected(...args: Parameters<typeof connect>) {
  const client = await connect(...args);
  clients.push(client);
  return client;
}

describe('a task over stdio (the conformance fixture as a child process)', () => {
  it('callTool follows slow_compute and confirm_delete (input answered by onElicit) to their results', async () => {
    const client = await connected(
      { stdio: { command: process.execPath, args: [CONFORMANCE_SERVER_MAIN, '--stdio'] } },
      { tasks: true, onElicit: () => ({ action: 'accept', content: { confirm: true } }) },
    );
    expect(client.protocolVersion).toBe('2026-07-28');
    const started = await client.tasks.start('slow_compute', { seconds: 0.05, label: 'stdio' });
    expect(started.task).toMatchObject({ status: 'working', pollIntervalMs: 250 });
    expect(await client.tasks.follow(started.task?.taskId as string)).toMatchObject({
      content: [{ type: 'text', text: 'Computed stdio after 0.05 s' }],
    });
    expect(await client.callTool('confirm_delete', { filename: 'a.txt' })).toMatchObject({
      content: [{ text: 'Deleted a.txt' }],
    });
    await expect(client.callTool('protocol_error_job')).rejects.toMatchObject({ code: -32603 });
  });
});

describe('a task over the HTTP listener', () => {
  async function serve(options: Parameters<typeof taskRuntime>[0] = {}, executor?: Executor) {
    const fixture = taskRuntime(options);
    const server = await listen({
      runtime: fixture.runtime,
      port: 0,
      ...(executor ? { executor } : {}),
    });
    servers.push(server);
    return { ...fixture, url: server.url() };
  }

  it('lifecycle: the handle, polls (Mcp-Name is the task id, else the server refuses), input, result', async () => {
    const { url, release } = await serve();
    const seen: string[] = [];
    const client = await connected(
      { http: url },
      { tasks: true, onElicit: () => ({ action: 'accept', content: {} }) },
    );
    const result = client.callTool(
      'long',
      {},
      {
        onStatus: (task) => {
          seen.push(task.status);
          if (task.statusMessage === 'working on it') release();
        },
      },
    );
    expect(await result).toMatchObject({ content: [{ text: 'long done (task)' }] });
    expect(seen[0]).toBe('working');
    expect(await client.callTool('confirm')).toMatchObject({ content: [{ text: 'accept then accept' }] });
  });

  it('a task outlives its client: the client closes its connections, another one reads the result', async () => {
    const { url, tasks, release } = await serve();
    const first = await connected({ http: url }, { tasks: true });
    const { task } = await first.tasks.start('job');
    const taskId = task?.taskId as string;
    await first.close();
    release();
    const done = await storedTask(tasks, (stored) => stored.status !== 'working', taskId);
    expect(done.status).toBe('completed');
    const second = await connected({ http: url }, { tasks: true });
    expect((await second.tasks.get(taskId)).result).toMatchObject({ content: [{ text: 'job done' }] });
    expect(await second.tasks.follow(taskId)).toMatchObject({ content: [{ text: 'job done' }] });
  });

  it('a running task holds no request slot and no request deadline of the listener', async () => {
    // One request at a time, none waiting, 200 ms each: the tasks below outlast all three bounds.
    const executor = new Executor({ maxConcurrency: 1, maxQueue: 0, requestTimeout: 200 });
    const { url, tasks, release } = await serve({}, executor);
    const client = await connected({ http: url }, { tasks: true });
    const one = (await client.tasks.start('job')).task?.taskId as string;
    const two = (await client.tasks.start('job')).task?.taskId as string;
    expect(executor.stats().running).toBe(0);
    // An ordinary call that outlives the request deadline is cut at 200 ms (-32001)...
    const plain = await connected({ http: url });
    await expect(plain.callTool('long')).rejects.toMatchObject({ code: -32001 });
    // ...while the tasks, older than that, still run and then finish.
    expect((await client.tasks.get(one)).status).toBe('working');
    release();
    await storedTask(tasks, (stored) => stored.status === 'completed', two);
    expect(await client.tasks.follow(one)).toMatchObject({ content: [{ text: 'job done' }] });
    await executor.close();
  });
});
