import { createServer as createNodeServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Connection } from '../src/engine/connection.js';
import { type JobSignal, submitJob } from '../src/executor/executor.js';
import { LazySignal } from '../src/executor/lazy-signal.js';
import {
  createHttpHandler,
  createServer,
  Executor,
  ExecutorError,
  type HandlerContext,
  tool,
} from '../src/index.js';
import { classifyMessage } from '../src/internal.js';
import { recordingOutput } from './helpers/run.js';
import { aborted, gate, httpRequest, modernHeaders, modernMessage } from './http-helpers.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('LazySignal: a cancellation whose AbortSignal is made when read', () => {
  it('read after abort: the signal is already aborted, with the reason', () => {
    const lazy = new LazySignal();
    const reason = new Error('stop');
    expect(lazy.abort(reason)).toBe(true);
    expect(lazy.signal).toBeInstanceOf(AbortSignal);
    expect(lazy.signal.aborted).toBe(true);
    expect(lazy.signal.reason).toBe(reason);
  });

  it('read before abort: the signal fires its abort event once, with the reason', () => {
    const lazy = new LazySignal();
    const signal = lazy.signal;
    const seen: unknown[] = [];
    signal.addEventListener('abort', () => seen.push(signal.reason));
    lazy.abort('first');
    lazy.abort('second');
    expect(seen).toEqual(['first']);
    expect(lazy.reason).toBe('first');
  });

  it('listeners run once, in the order they were added (slot, then the real signal), unless removed', () => {
    const lazy = new LazySignal();
    const order: string[] = [];
    const first = () => order.push('first');
    const removed = () => order.push('removed');
    const object = { handleEvent: () => order.push('object') };
    lazy.addEventListener('abort', first);
    lazy.addEventListener('abort', removed);
    lazy.addEventListener('abort', object);
    lazy.addEventListener('abort', first); // already added: not twice
    lazy.removeEventListener('abort', removed);
    lazy.abort();
    lazy.abort();
    expect(order).toEqual(['first', 'object']);
    const late = vi.fn();
    lazy.addEventListener('abort', late);
    expect(late).not.toHaveBeenCalled();
  });

  it('aborted without a reason: an AbortError, as AbortController gives', () => {
    const lazy = new LazySignal();
    lazy.abort();
    expect(lazy.reason).toBeInstanceOf(DOMException);
    expect((lazy.reason as DOMException).name).toBe('AbortError');
    expect(lazy.signal.reason).toBe(lazy.reason);
  });

  it('is accepted by the public Executor.submit as an outside signal', async () => {
    const executor = new Executor();
    const outside = new LazySignal();
    const started = gate<AbortSignal>();
    const result = executor.submit(
      (signal) => {
        started.open(signal);
        return aborted(signal);
      },
      { signal: outside as unknown as AbortSignal },
    );
    const signal = await started.promise;
    outside.abort('gone');
    await expect(result).rejects.toMatchObject({ code: 'SNODO_ERR_CANCELLED', cause: 'gone' });
    expect(signal.aborted).toBe(true);
  });
});

describe('submitJob: a task whose AbortSignal is made only when read', () => {
  it('submit still hands a real AbortSignal to its task', async () => {
    const executor = new Executor();
    const signal = await executor.submit((s) => s);
    expect(signal).toBeInstanceOf(AbortSignal);
  });

  it('a cancel before the first read: the job is aborted, and the signal read afterwards is too', async () => {
    const executor = new Executor();
    const outside = new LazySignal();
    const started = gate<JobSignal>();
    const finish = gate();
    const result = submitJob(
      executor,
      async (job) => {
        started.open(job);
        await finish.promise;
      },
      { signal: outside },
    );
    const job = await started.promise;
    expect(job.aborted).toBe(false);
    outside.abort('client cancel');
    await expect(result).rejects.toMatchObject({ code: 'SNODO_ERR_CANCELLED', cause: 'client cancel' });
    expect(job.aborted).toBe(true);
    expect(job.signal.aborted).toBe(true);
    expect(ExecutorError.is(job.signal.reason)).toBe(true);
    expect(job.signal.reason).toBe(job.reason);
    finish.open();
  });

  it('a signal read before the cancel fires its abort event', async () => {
    const executor = new Executor();
    const outside = new LazySignal();
    const fired = gate<unknown>();
    const result = submitJob(
      executor,
      (job) => {
        const signal = job.signal;
        return new Promise<void>((resolve) => {
          signal.addEventListener('abort', () => {
            fired.open(signal.reason);
            resolve();
          });
        });
      },
      { signal: outside },
    );
    outside.abort('stop');
    await expect(result).rejects.toMatchObject({ code: 'SNODO_ERR_CANCELLED' });
    expect(await fired.promise).toMatchObject({ code: 'SNODO_ERR_CANCELLED', cause: 'stop' });
  });

  it('a running job whose signal was never read times out at its deadline and frees its slot when it ends', async () => {
    vi.useFakeTimers();
    const executor = new Executor({ maxConcurrency: 1, maxQueue: 1 });
    const finish = gate();
    let seen: JobSignal | undefined;
    const result = submitJob(
      executor,
      async (job) => {
        seen = job;
        await finish.promise;
      },
      { timeout: 1_000 },
    );
    const rejected = expect(result).rejects.toMatchObject({ code: 'SNODO_ERR_REQUEST_TIMEOUT' });
    await vi.advanceTimersByTimeAsync(1_000);
    await rejected;
    expect(seen?.aborted).toBe(true);
    expect(executor.stats()).toMatchObject({ running: 1, timedOut: 1 });
    finish.open();
    await executor.close();
    expect(executor.stats()).toMatchObject({ running: 0, queued: 0 });
    // Read only now: aborted, with the deadline's reason.
    expect(seen?.signal.aborted).toBe(true);
    expect(seen?.signal.reason).toMatchObject({ code: 'SNODO_ERR_REQUEST_TIMEOUT' });
  });

  it('a queued job whose signal was never read leaves the queue at its deadline, never started', async () => {
    vi.useFakeTimers();
    const executor = new Executor({ maxConcurrency: 1, maxQueue: 1 });
    const finish = gate();
    const first = submitJob(executor, () => finish.promise, { timeout: 0 });
    const task = vi.fn();
    const queued = submitJob(executor, task, { timeout: 500 });
    expect(executor.stats()).toMatchObject({ running: 1, queued: 1 });
    const rejected = expect(queued).rejects.toMatchObject({ code: 'SNODO_ERR_REQUEST_TIMEOUT' });
    await vi.advanceTimersByTimeAsync(500);
    await rejected;
    expect(executor.stats()).toMatchObject({ running: 1, queued: 0, timedOut: 1 });
    expect(executor.full).toBe(false);
    finish.open();
    await first;
    expect(task).not.toHaveBeenCalled();
  });

  it('owner close and destroy abort a job whose signal was never read', async () => {
    const executor = new Executor();
    const owner = executor.owner();
    const jobs: JobSignal[] = [];
    const finish = gate();
    const owned = submitJob(
      executor,
      (job) => {
        jobs.push(job);
        return finish.promise;
      },
      { owner },
    );
    const other = submitJob(executor, (job) => {
      jobs.push(job);
      return finish.promise;
    });
    owner.close('bye');
    await expect(owned).rejects.toMatchObject({ code: 'SNODO_ERR_CANCELLED', cause: 'bye' });
    expect(jobs.map((job) => job.aborted)).toEqual([true, false]);
    executor.destroy('down');
    await expect(other).rejects.toMatchObject({ code: 'SNODO_ERR_EXECUTOR_CLOSED', cause: 'down' });
    expect(jobs[1]?.signal.aborted).toBe(true);
    finish.open();
  });
});

/** A connection (the stdio engine) with an executor, over a server whose tool the test drives. */
function engine(handler: (context: HandlerContext) => Promise<string>, requestTimeout?: number) {
  const runtime = createServer({
    name: 'lazy',
    version: '1.0.0',
    tools: [tool({ name: 'work', handler: (_args, context) => handler(context) })],
  });
  const { output, written } = recordingOutput();
  const executor = new Executor();
  const connection = new Connection(runtime, {
    output,
    executor,
    ...(requestTimeout === undefined ? {} : { requestTimeout }),
    maxBatchItems: 10,
    onError: (error) => {
      throw error;
    },
  });
  const call = (id: number) =>
    connection.receive(
      classifyMessage({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: {
          name: 'work',
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    );
  const cancel = (id: number) =>
    connection.receive(
      classifyMessage({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } }),
    );
  return { connection, executor, written, call, cancel };
}

describe('a handler’s ctx.signal on the connection engine', () => {
  it('read after a client cancel: aborted, and nothing is written for the request', async () => {
    const started = gate();
    const resume = gate();
    const seen = gate<{ aborted: boolean; reason: unknown }>();
    const { connection, written, call, cancel } = engine(async (context) => {
      started.open();
      await resume.promise;
      seen.open({ aborted: context.signal.aborted, reason: context.signal.reason });
      return 'late';
    });
    await call(1);
    await started.promise;
    await cancel(1);
    resume.open();
    expect(await seen.promise).toMatchObject({ aborted: true, reason: { code: 'SNODO_ERR_CANCELLED' } });
    await connection.close('done');
    expect(written).toEqual([]);
  });

  it('read after the deadline: aborted with the timeout, and the client got -32001', async () => {
    vi.useFakeTimers();
    const started = gate();
    const resume = gate();
    const seen = gate<unknown>();
    const { connection, written, call } = engine(async (context) => {
      started.open();
      await resume.promise;
      seen.open(context.signal.reason);
      return 'late';
    }, 1_000);
    await call(7);
    await started.promise;
    await vi.advanceTimersByTimeAsync(1_000);
    resume.open();
    expect(await seen.promise).toMatchObject({ code: 'SNODO_ERR_REQUEST_TIMEOUT' });
    await connection.close('done');
    expect(written).toEqual([{ jsonrpc: '2.0', id: 7, error: expect.objectContaining({ code: -32001 }) }]);
  });

  it('read before the cancel: its abort event fires', async () => {
    const listening = gate();
    const { connection, call, cancel } = engine(async (context) => {
      const signal = context.signal;
      const fired = aborted(signal);
      listening.open();
      await fired;
      return 'stopped';
    });
    await call(2);
    await listening.promise;
    await cancel(2);
    await connection.close('done');
  });

  describe('passed to fetch', () => {
    let server: Server | undefined;
    afterEach(async () => {
      server?.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
      server = undefined;
    });

    it('is a real AbortSignal: a cancel aborts the handler’s fetch', async () => {
      const arrived = gate();
      server = createNodeServer(() => arrived.open()); // never answers
      await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const outcome = gate<unknown>();
      const { connection, call, cancel } = engine(async (context) => {
        try {
          await fetch(`http://127.0.0.1:${port}/`, { signal: context.signal });
          outcome.open('answered');
        } catch (error) {
          outcome.open(error);
        }
        return 'done';
      });
      await call(3);
      await arrived.promise;
      await cancel(3);
      const error = await outcome.promise;
      expect(error).toMatchObject({ code: 'SNODO_ERR_CANCELLED' });
      await connection.close('done');
    });
  });
});

describe('a handler’s ctx.signal over core’s HTTP handler (2026-07-28)', () => {
  it('with the host’s disconnect a LazySignal: a handler reading ctx.signal only after the client left sees it aborted', async () => {
    const started = gate();
    const resume = gate();
    const seen = gate<unknown>();
    const runtime = createServer({
      name: 'lazy',
      version: '1.0.0',
      tools: [
        tool({
          name: 'work',
          handler: async (_args, context) => {
            started.open();
            await resume.promise;
            seen.open(context.signal.aborted ? context.signal.reason : 'not aborted');
            return 'late';
          },
        }),
      ],
    });
    const handler = createHttpHandler(runtime);
    const disconnect = new LazySignal();
    const message = modernMessage('tools/call', { name: 'work' });
    const response = handler.handle(
      httpRequest({ headers: modernHeaders(message), body: JSON.stringify(message), signal: disconnect }),
    );
    await started.promise;
    disconnect.abort(new Error('client left'));
    resume.open();
    expect(await seen.promise).toMatchObject({
      code: 'SNODO_ERR_CANCELLED',
      cause: { message: 'client left' },
    });
    await response;
    await handler.close();
  });
});
