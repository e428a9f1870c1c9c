// Tasks on two demo servers (real processes, `--redis URL --tasks`) sharing a real redis-server:
// a task created on one instance is polled, cancelled and read on the other, and its result
// outlives the instance that produced it (killed with SIGKILL).
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Listening, startInstance, startRedis } from '../src/processes.js';
import { modern, post } from './helpers/mcp.js';

type Started = Listening & { readonly url: string };

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const secret = randomBytes(32).toString('base64url');
let redis: Started;
const started: Started[] = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((instance) => instance.stop()));
});
afterAll(() => redis.stop());

async function instance(name: string): Promise<Started> {
  const child = await startInstance(name, {
    redisUrl: redis.url,
    secret,
    args: ['--tasks', '--task-lease-ms', '600'],
  });
  started.push(child);
  return child;
}

/** A 2026-07-28 request that declares the Tasks extension, with its Mcp-Name. */
async function call(url: string, method: string, params: Record<string, unknown>) {
  const { message, headers } = modern(method, params, TASKS);
  if (typeof params.taskId === 'string') headers['mcp-name'] = params.taskId;
  const reply = await post(url, message, headers);
  expect(reply.status).toBe(200);
  return reply.body;
}

async function startJob(url: string, ms: number): Promise<string> {
  const body = await call(url, 'tools/call', { name: 'long_job', arguments: { ms } });
  expect(body.result).toMatchObject({ resultType: 'task', status: 'working' });
  return body.result.taskId;
}

/** Polls `tasks/get` on `url` (as a client does, at a short interval) until the task ended. */
function ended(url: string, taskId: string) {
  return vi.waitFor(
    async () => {
      const { result } = await call(url, 'tasks/get', { taskId });
      expect(['completed', 'failed', 'cancelled']).toContain(result.status);
      return result;
    },
    { timeout: 20_000, interval: 50 },
  );
}

describe('tasks across two demo instances sharing Redis', () => {
  it('created on A: B polls it, cancels it, and A stops the job', async () => {
    const [a, b] = [await instance('a'), await instance('b')];
    const taskId = await startJob(a.url, 3_600_000);
    expect((await call(b.url, 'tasks/get', { taskId })).result).toMatchObject({ taskId, status: 'working' });
    expect((await call(b.url, 'tasks/cancel', { taskId })).result).toMatchObject({ resultType: 'complete' });
    expect(await ended(a.url, taskId)).toMatchObject({ status: 'cancelled' });
  });

  it('a finished task outlives the instance that ran it: A is killed, B reads the result', async () => {
    const [a, b] = [await instance('a'), await instance('b')];
    const taskId = await startJob(a.url, 50);
    expect(await ended(a.url, taskId)).toMatchObject({ status: 'completed' });
    await a.kill();
    expect((await call(b.url, 'tasks/get', { taskId })).result).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'worked 50 ms' }] },
    });
  });

  it('A is killed while its task works: once its lease passed, B reports the task failed with the reason', async () => {
    const [a, b] = [await instance('a'), await instance('b')];
    const taskId = await startJob(a.url, 3_600_000);
    await a.kill();
    expect(await ended(b.url, taskId)).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: 'Task lost: the server running it stopped' },
    });
  });

  it('A stops gracefully (SIGTERM) while its task works: the task is stored failed before A exits', async () => {
    const [a, b] = [await instance('a'), await instance('b')];
    const taskId = await startJob(a.url, 3_600_000);
    await a.stop();
    expect(await a.exited).toBe(0);
    expect((await call(b.url, 'tasks/get', { taskId })).result).toMatchObject({
      status: 'failed',
      error: { message: 'The server shut down before the task finished' },
    });
  });
});
