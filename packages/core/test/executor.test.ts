import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Fifo, type FifoItem } from '../src/executor/fifo.js';
import {
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_MAX_QUEUE,
  DEFAULT_MAX_SUBSCRIPTIONS,
  DEFAULT_REFUSAL_LOG_INTERVAL,
  DEFAULT_REQUEST_TIMEOUT,
  Executor,
  ExecutorError,
  type ExecutorStats,
} from '../src/executor/index.js';
import { CORE_ERRORS, MAX_TIMER_DELAY, SnodoError } from '../src/index.js';

interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets already-queued promise reactions run; a fixed number of microtask turns, not a sleep. */
async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

/** Observes a promise's state without awaiting it. */
function track<T>(promise: Promise<T>): { readonly state: 'pending' | 'fulfilled' | 'rejected' } {
  const box = { state: 'pending' as 'pending' | 'fulfilled' | 'rejected' };
  promise.then(
    () => {
      box.state = 'fulfilled';
    },
    () => {
      box.state = 'rejected';
    },
  );
  return box;
}

const ZERO: ExecutorStats = {
  running: 0,
  queued: 0,
  completed: 0,
  rejected: 0,
  timedOut: 0,
  cancelled: 0,
  subscriptions: 0,
  subscriptionsRejected: 0,
};
const stats = (partial: Partial<ExecutorStats>): ExecutorStats => ({ ...ZERO, ...partial });

/** A task that records its signal and waits for the test to finish it. */
function gatedTask<T = string>(value?: T) {
  const gate = deferred<void>();
  const probe = {
    started: false,
    signal: undefined as AbortSignal | undefined,
    gate,
    task: async (signal: AbortSignal) => {
      probe.started = true;
      probe.signal = signal;
      await gate.promise;
      return value as T;
    },
  };
  return probe;
}

async function expectCode(promise: Promise<unknown>, code: string): Promise<ExecutorError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  expect(ExecutorError.is(error)).toBe(true);
  expect((error as ExecutorError).code).toBe(code);
  return error as ExecutorError;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('errors', () => {
  it('declares each code once, with its message', () => {
    const messages = {
      SNODO_ERR_OVERLOADED: 'Executor is at capacity: every worker is busy and the queue is full',
      SNODO_ERR_REQUEST_TIMEOUT: 'Request did not finish before its deadline',
      SNODO_ERR_CANCELLED: 'Request was cancelled',
      SNODO_ERR_EXECUTOR_CLOSED: 'Executor is closed',
    } as const;
    for (const [code, message] of Object.entries(messages)) {
      expect(CORE_ERRORS[code as keyof typeof messages].message).toBe(message);
      const error = new ExecutorError(code as keyof typeof messages, { cause: 'why' });
      expect(error).toBeInstanceOf(Error);
      expect(error).toBeInstanceOf(SnodoError);
      expect(error.name).toBe('ExecutorError');
      expect(error.code).toBe(code);
      expect(error.message).toBe(message);
      expect(error.cause).toBe('why');
    }
    expect('cause' in new ExecutorError('SNODO_ERR_CANCELLED')).toBe(false);
  });

  it('recognises errors from a second copy of the module', async () => {
    vi.resetModules();
    const copy = await import('../src/executor/errors.js');
    expect(copy.ExecutorError).not.toBe(ExecutorError);
    const foreign = new copy.ExecutorError('SNODO_ERR_OVERLOADED');
    expect(ExecutorError.is(foreign)).toBe(true);
    expect(foreign instanceof ExecutorError).toBe(true);
    expect(copy.ExecutorError.is(new ExecutorError('SNODO_ERR_CANCELLED'))).toBe(true);
    expect(ExecutorError.is(new Error('plain'))).toBe(false);
    expect(ExecutorError.is({ code: 'SNODO_ERR_CANCELLED' })).toBe(false);
    expect(ExecutorError.is(null)).toBe(false);
    expect(new Error('plain') instanceof ExecutorError).toBe(false);
  });
});

describe('portability', () => {
  it('imports nothing outside the executor folder but errors/, limits/ and the import-free telemetry/log (no node:*, no dependencies)', () => {
    const dir = new URL('../src/executor/', import.meta.url);
    for (const file of readdirSync(dir)) {
      const source = readFileSync(new URL(file, dir), 'utf8');
      const specifiers = [...source.matchAll(/\bfrom\s+'([^']+)'/g)].map((m) => m[1]);
      for (const specifier of specifiers)
        expect(specifier, file).toMatch(
          /^((\.|\.\.\/errors|\.\.\/limits)\/[a-z-]+|\.\.\/telemetry\/log)\.js$/,
        );
    }
    const log = readFileSync(new URL('../src/telemetry/log.ts', import.meta.url), 'utf8');
    expect(log).not.toMatch(/\bfrom\s+'/);
  });
});

describe('options', () => {
  it('has the documented defaults', () => {
    expect([
      DEFAULT_MAX_CONCURRENCY,
      DEFAULT_MAX_QUEUE,
      DEFAULT_REQUEST_TIMEOUT,
      DEFAULT_MAX_SUBSCRIPTIONS,
    ]).toEqual([64, 256, 60_000, 256]);
    expect(MAX_TIMER_DELAY).toBe(2 ** 31 - 1);
  });

  const timeoutRule = 'an integer number of milliseconds from 0 to 2147483647, or Infinity for none';
  it.each([
    [{ maxConcurrency: -1 }, 'maxConcurrency must be a positive integer, got -1'],
    [{ maxConcurrency: 0 }, 'maxConcurrency must be a positive integer, got 0'],
    [{ maxConcurrency: 1.5 }, 'maxConcurrency must be a positive integer, got 1.5'],
    [{ maxConcurrency: Number.POSITIVE_INFINITY }, 'maxConcurrency must be a positive integer, got Infinity'],
    [{ maxConcurrency: '8' }, 'maxConcurrency must be a positive integer, got "8"'],
    [{ maxQueue: -1 }, 'maxQueue must be a non-negative integer, got -1'],
    [{ maxQueue: Number.NaN }, 'maxQueue must be a non-negative integer, got NaN'],
    [{ maxQueue: null }, 'maxQueue must be a non-negative integer, got null'],
    [{ maxSubscriptions: 0 }, 'maxSubscriptions must be a positive integer, got 0'],
    [{ requestTimeout: -1 }, `requestTimeout must be ${timeoutRule}, got -1`],
    [{ requestTimeout: Number.NaN }, `requestTimeout must be ${timeoutRule}, got NaN`],
    [{ requestTimeout: 2 ** 31 }, `requestTimeout must be ${timeoutRule}, got 2147483648`],
    [{ requestTimeout: '5s' }, `requestTimeout must be ${timeoutRule}, got "5s"`],
    [{ requestTimeout: 1.5 }, `requestTimeout must be ${timeoutRule}, got 1.5`],
  ])('rejects %o with SNODO_ERR_INVALID_OPTION naming the option and its rule', (options, message) => {
    const construct = () => new Executor(options as never);
    expect(construct).toThrow(expect.objectContaining({ code: 'SNODO_ERR_INVALID_OPTION' }));
    expect(construct).toThrow(`Invalid option: ${message}`);
  });

  it('rejects a non-object options argument', () => {
    expect(() => new Executor(null as never)).toThrow(
      'Invalid option: Executor needs an options object, got null',
    );
    expect(() => new Executor({ maxQueu: 1 } as never)).toThrow(
      'Invalid option: unknown Executor option "maxQueu"; known: maxConcurrency, maxQueue, requestTimeout, maxSubscriptions',
    );
  });

  it('accepts the boundaries', () => {
    expect(
      () => new Executor({ maxConcurrency: 1, maxQueue: 0, maxSubscriptions: 1, requestTimeout: 0 }),
    ).not.toThrow();
    expect(() => new Executor({ requestTimeout: Number.POSITIVE_INFINITY })).not.toThrow();
    expect(() => new Executor({ requestTimeout: MAX_TIMER_DELAY })).not.toThrow();
    expect(new Executor().stats()).toEqual(ZERO);
  });

  it('rejects invalid submit arguments through the promise, without counting them', async () => {
    const executor = new Executor();
    await expect(executor.submit('nope' as never)).rejects.toThrow(
      new TypeError('task must be a function, got "nope"'),
    );
    await expect(executor.submit(() => 1, { timeout: -5 })).rejects.toThrow(
      `Invalid option: timeout must be ${timeoutRule}, got -5`,
    );
    await expect(executor.submit(() => 1, { signal: {} as never })).rejects.toThrow(TypeError);
    const other = new Executor().owner();
    await expect(executor.submit(() => 1, { owner: other })).rejects.toThrow(
      'owner must come from this executor’s owner()',
    );
    expect(() => executor.acquireSubscription(other)).toThrow(TypeError);
    expect(executor.stats()).toEqual(ZERO);
  });
});

describe('admission', () => {
  it('never runs more than maxConcurrency tasks (500 submissions, 8 at once)', async () => {
    const executor = new Executor({ maxConcurrency: 8, maxQueue: 492 });
    let active = 0;
    let highWater = 0;
    const gates = new Map<number, Deferred>();
    const results = Array.from({ length: 500 }, (_, i) =>
      executor.submit(async () => {
        active++;
        highWater = Math.max(highWater, active);
        const gate = deferred();
        gates.set(i, gate);
        await gate.promise;
        active--;
        return i;
      }),
    );
    expect(executor.stats()).toEqual(stats({ running: 8, queued: 492 }));

    // Finish the started tasks in a scrambled (but reproducible) order.
    let seed = 12345;
    for (let done = 0; done < 500; done++) {
      const open = [...gates.keys()];
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      const pick = open[seed % open.length]!;
      gates.get(pick)!.resolve();
      gates.delete(pick);
      await expect(results[pick]).resolves.toBe(pick);
      const remaining = 500 - done - 1;
      expect(active).toBeLessThanOrEqual(8);
      expect(executor.stats().running).toBe(Math.min(8, remaining));
      expect(executor.stats().queued).toBe(Math.max(0, remaining - 8));
    }
    expect(highWater).toBe(8);
    expect(executor.stats()).toEqual(stats({ completed: 500 }));
  });

  it('starts queued tasks in FIFO order', async () => {
    const executor = new Executor({ maxConcurrency: 1 });
    const order: number[] = [];
    const gates = Array.from({ length: 6 }, () => deferred());
    const results = gates.map((gate, i) =>
      executor.submit(async () => {
        order.push(i);
        await gate.promise;
      }),
    );
    expect(order).toEqual([0]);
    for (const [i, gate] of gates.entries()) {
      gate.resolve();
      await results[i];
    }
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
    expect(executor.stats()).toEqual(stats({ completed: 6 }));
  });

  it('queues a submit made from inside a running task behind the tasks already waiting', async () => {
    const executor = new Executor({ maxConcurrency: 1 });
    const order: string[] = [];
    const a = gatedTask();
    const pa = executor.submit(a.task);
    let inner: Promise<void> | undefined;
    const pb = executor.submit(() => {
      order.push('b');
      inner = executor.submit(() => {
        order.push('inner');
      });
    });
    const pc = executor.submit(() => {
      order.push('c');
    });
    a.gate.resolve();
    await Promise.all([pa, pb, pc]);
    await inner;
    expect(order).toEqual(['b', 'c', 'inner']);
    expect(executor.stats()).toEqual(stats({ completed: 4 }));
  });

  it('queues at most maxQueue and rejects the rest at once with SNODO_ERR_OVERLOADED', async () => {
    const executor = new Executor({ maxConcurrency: 2, maxQueue: 3 });
    const probes = Array.from({ length: 10 }, (_, i) => gatedTask(i));
    const results = probes.map((probe) => executor.submit(probe.task));
    const states = results.map(track);
    // Decided synchronously: counted before anything is awaited.
    expect(executor.stats()).toEqual(stats({ running: 2, queued: 3, rejected: 5 }));
    await flushMicrotasks();
    // The 5th submission (at the limit) is accepted; the 6th (one over) is refused.
    expect(states.map((s) => s.state)).toEqual([...Array(5).fill('pending'), ...Array(5).fill('rejected')]);
    for (const result of results.slice(5)) await expectCode(result, 'SNODO_ERR_OVERLOADED');
    for (const probe of probes) probe.gate.resolve();
    await expect(Promise.all(results.slice(0, 5))).resolves.toEqual([0, 1, 2, 3, 4]);
    expect(probes.slice(5).some((p) => p.started)).toBe(false);
    expect(executor.stats()).toEqual(stats({ completed: 5, rejected: 5 }));
  });

  it('with maxQueue 0 refuses whenever every slot is busy', async () => {
    const executor = new Executor({ maxConcurrency: 1, maxQueue: 0 });
    const a = gatedTask();
    const pa = executor.submit(a.task);
    await expectCode(
      executor.submit(() => 1),
      'SNODO_ERR_OVERLOADED',
    );
    a.gate.resolve();
    await pa;
    await expect(executor.submit(() => 2)).resolves.toBe(2);
    expect(executor.stats()).toEqual(stats({ completed: 2, rejected: 1 }));
  });

  it('passes a task’s own error through unchanged, whether thrown or rejected', async () => {
    const executor = new Executor({ maxConcurrency: 1 });
    const thrown = new Error('sync');
    const rejected = new Error('async');
    const p1 = executor.submit(() => {
      throw thrown;
    });
    const p2 = executor.submit(() => Promise.reject(rejected));
    const p3 = executor.submit(() => 'value');
    await expect(p1).rejects.toBe(thrown);
    await expect(p2).rejects.toBe(rejected);
    await expect(p3).resolves.toBe('value');
    expect(executor.stats()).toEqual(stats({ completed: 3 }));
  });

  it('gives each task its own signal', async () => {
    const executor = new Executor();
    const signals: AbortSignal[] = [];
    await executor.submit((signal) => signals.push(signal));
    await executor.submit((signal) => signals.push(signal));
    expect(signals[0]).toBeInstanceOf(AbortSignal);
    expect(signals[0]).not.toBe(signals[1]);
  });
});

describe('backpressure: full and whenNotFull', () => {
  it('full is true exactly when a submit would be refused with SNODO_ERR_OVERLOADED', async () => {
    const executor = new Executor({ maxConcurrency: 1, maxQueue: 1 });
    const a = gatedTask();
    const b = gatedTask();
    expect(executor.full).toBe(false);
    const pa = executor.submit(a.task);
    expect(executor.full).toBe(false); // running 1, queue empty: one more is queued
    const pb = executor.submit(b.task);
    expect(executor.full).toBe(true);
    await expectCode(
      executor.submit(() => 1),
      'SNODO_ERR_OVERLOADED',
    );
    a.gate.resolve();
    b.gate.resolve();
    await Promise.all([pa, pb]);
    expect(executor.full).toBe(false);
  });

  it('with maxQueue 0 it is full while every slot is busy', async () => {
    const executor = new Executor({ maxConcurrency: 2, maxQueue: 0 });
    const probes = [gatedTask(), gatedTask()];
    const results = probes.map((probe) => executor.submit(probe.task));
    expect(executor.full).toBe(true);
    const notFull = track(executor.whenNotFull());
    probes[0]?.gate.resolve();
    await results[0];
    await flushMicrotasks();
    expect(notFull.state).toBe('fulfilled');
    expect(executor.full).toBe(false);
    probes[1]?.gate.resolve();
    await results[1];
  });

  it('whenNotFull resolves at once when there is room', async () => {
    const executor = new Executor({ maxConcurrency: 1, maxQueue: 0 });
    const notFull = track(executor.whenNotFull());
    await flushMicrotasks();
    expect(notFull.state).toBe('fulfilled');
  });

  it('whenNotFull resolves when a running task finishes and frees a place, not before', async () => {
    const executor = new Executor({ maxConcurrency: 1, maxQueue: 1 });
    const a = gatedTask();
    const b = gatedTask();
    const pa = executor.submit(a.task);
    const pb = executor.submit(b.task);
    const notFull = track(executor.whenNotFull());
    await flushMicrotasks();
    expect(notFull.state).toBe('pending');
    a.gate.resolve();
    await pa;
    await flushMicrotasks();
    // b moved from the queue to the slot: the queue has room again.
    expect(notFull.state).toBe('fulfilled');
    expect(executor.stats()).toMatchObject({ running: 1, queued: 0 });
    b.gate.resolve();
    await pb;
  });

  it('whenNotFull resolves when a queued task leaves the queue (cancelled), not when a running one is aborted', async () => {
    const executor = new Executor({ maxConcurrency: 1, maxQueue: 1 });
    const a = gatedTask();
    const running = new AbortController();
    const queued = new AbortController();
    const pa = executor.submit(a.task, { signal: running.signal });
    const pb = executor.submit(() => 'never', { signal: queued.signal });
    const notFull = track(executor.whenNotFull());
    running.abort();
    await expectCode(pa, 'SNODO_ERR_CANCELLED');
    await flushMicrotasks();
    // The aborted task still holds its slot until it settles: still full.
    expect(executor.full).toBe(true);
    expect(notFull.state).toBe('pending');
    queued.abort();
    await expectCode(pb, 'SNODO_ERR_CANCELLED');
    await flushMicrotasks();
    expect(notFull.state).toBe('fulfilled');
    a.gate.resolve();
  });

  it('whenNotFull resolves on close() and destroy(), so a waiter submits and learns the executor closed', async () => {
    for (const end of ['close', 'destroy'] as const) {
      const executor = new Executor({ maxConcurrency: 1, maxQueue: 0 });
      const a = gatedTask();
      const pa = executor.submit(a.task);
      pa.catch(() => {});
      const notFull = track(executor.whenNotFull());
      if (end === 'close') void executor.close();
      else executor.destroy();
      await flushMicrotasks();
      expect(notFull.state).toBe('fulfilled');
      expect(executor.full).toBe(false);
      await expectCode(
        executor.submit(() => 1),
        'SNODO_ERR_EXECUTOR_CLOSED',
      );
      a.gate.resolve();
    }
  });
});

describe('deadlines', () => {
  it('aborts the signal and rejects with SNODO_ERR_REQUEST_TIMEOUT, then clears the timer', async () => {
    vi.useFakeTimers();
    const executor = new Executor({ requestTimeout: 1000 });
    const probe = gatedTask();
    const result = executor.submit(probe.task);
    const state = track(result);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(probe.signal!.aborted).toBe(false);
    expect(state.state).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(probe.signal!.aborted).toBe(true);
    const error = await expectCode(result, 'SNODO_ERR_REQUEST_TIMEOUT');
    expect(probe.signal!.reason).toBe(error);
    expect(vi.getTimerCount()).toBe(0);
    // The task ignores its signal: the caller already has its answer, the slot is still held.
    expect(executor.stats()).toEqual(stats({ running: 1, timedOut: 1 }));
    probe.gate.resolve();
    await flushMicrotasks();
    expect(executor.stats()).toEqual(stats({ timedOut: 1 }));
  });

  it('keeps the slot of a timed-out task until it settles, so the next task waits', async () => {
    vi.useFakeTimers();
    const executor = new Executor({ maxConcurrency: 1, requestTimeout: 1000 });
    const a = gatedTask();
    const pa = executor.submit(a.task);
    const b = gatedTask('b');
    const pb = executor.submit(b.task, { timeout: 0 });
    const timedOut = expectCode(pa, 'SNODO_ERR_REQUEST_TIMEOUT');
    await vi.advanceTimersByTimeAsync(1000);
    await timedOut;
    expect(b.started).toBe(false);
    expect(executor.stats()).toEqual(stats({ running: 1, queued: 1, timedOut: 1 }));
    a.gate.resolve();
    await flushMicrotasks();
    expect(b.started).toBe(true);
    b.gate.resolve();
    await expect(pb).resolves.toBe('b');
    expect(executor.stats()).toEqual(stats({ completed: 1, timedOut: 1 }));
  });

  it('counts queue time: a queued task times out without running and leaves the queue', async () => {
    vi.useFakeTimers();
    const executor = new Executor({ maxConcurrency: 1, requestTimeout: 1000 });
    const a = gatedTask('a');
    const pa = executor.submit(a.task, { timeout: Number.POSITIVE_INFINITY });
    await vi.advanceTimersByTimeAsync(400);
    const b = gatedTask();
    const pb = executor.submit(b.task);
    const timedOut = expectCode(pb, 'SNODO_ERR_REQUEST_TIMEOUT');
    expect(executor.stats().queued).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(executor.stats().queued).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(executor.stats().queued).toBe(0);
    await timedOut;
    expect(executor.stats()).toEqual(stats({ running: 1, timedOut: 1 }));
    a.gate.resolve();
    await expect(pa).resolves.toBe('a');
    await flushMicrotasks();
    expect(b.started).toBe(false);
    expect(executor.stats()).toEqual(stats({ completed: 1, timedOut: 1 }));
    expect(vi.getTimerCount()).toBe(0);
  });

  it('uses the per-task timeout over requestTimeout', async () => {
    vi.useFakeTimers();
    const executor = new Executor({ requestTimeout: 10_000 });
    const probe = gatedTask();
    const result = executor.submit(probe.task, { timeout: 50 });
    const timedOut = expectCode(result, 'SNODO_ERR_REQUEST_TIMEOUT');
    await vi.advanceTimersByTimeAsync(49);
    expect(probe.signal!.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await timedOut;
    probe.gate.resolve();
  });

  it('sets no timer when the deadline is disabled, and none is left once the timeout has passed idle', async () => {
    vi.useFakeTimers();
    for (const requestTimeout of [0, Number.POSITIVE_INFINITY]) {
      const executor = new Executor({ requestTimeout });
      const probe = gatedTask();
      const result = executor.submit(probe.task);
      expect(vi.getTimerCount()).toBe(0);
      probe.gate.resolve();
      await result;
    }
    const executor = new Executor({ requestTimeout: 1000 });
    await executor.submit(() => 'quick');
    await expect(executor.submit(() => Promise.reject(new Error('x')))).rejects.toThrow('x');
    // The timeout's one timer outlives a burst (unref'd, holding no task) and ends when it fires.
    expect(vi.getTimerCount()).toBeLessThanOrEqual(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('serves every task of one timeout with one timer, each expiring at its own deadline', async () => {
    vi.useFakeTimers();
    const executor = new Executor({ requestTimeout: 1000 });
    const early = gatedTask();
    const pEarly = executor.submit(early.task);
    await vi.advanceTimersByTimeAsync(300);
    const a = gatedTask();
    const pa = executor.submit(a.task).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(300);
    const b = gatedTask();
    const pb = executor.submit(b.task).catch((error: unknown) => error);
    expect(vi.getTimerCount()).toBe(1);
    // The head of the list finishes first: the timer armed for it must still reach the others.
    early.gate.resolve();
    await pEarly;
    await vi.advanceTimersByTimeAsync(699); // t = 1299
    expect(a.signal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1); // t = 1300
    expect(await pa).toMatchObject({ code: 'SNODO_ERR_REQUEST_TIMEOUT' });
    expect(b.signal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(299); // t = 1599
    expect(b.signal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1); // t = 1600
    expect(await pb).toMatchObject({ code: 'SNODO_ERR_REQUEST_TIMEOUT' });
    expect(executor.stats()).toMatchObject({ timedOut: 2, completed: 1 });
  });

  it('keeps the process alive while a deadline is pending, and not once every task is done', async () => {
    const executor = new Executor({ requestTimeout: 60_000 });
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    const probe = gatedTask();
    const result = executor.submit(probe.task);
    expect(timers()).toBe(before + 1);
    probe.gate.resolve();
    await result;
    await Promise.all(Array.from({ length: 50 }, (_, i) => executor.submit(() => i)));
    expect(timers()).toBe(before);
  });
});

describe('cancellation by an outside signal', () => {
  it('aborts a running task and rejects its caller at once', async () => {
    const executor = new Executor();
    const controller = new AbortController();
    const probe = gatedTask();
    const result = executor.submit(probe.task, { signal: controller.signal });
    controller.abort('client went away');
    const error = await expectCode(result, 'SNODO_ERR_CANCELLED');
    expect(error.cause).toBe('client went away');
    expect(probe.signal!.aborted).toBe(true);
    expect(probe.signal!.reason).toBe(error);
    expect(executor.stats()).toEqual(stats({ running: 1, cancelled: 1 }));
    probe.gate.resolve();
    await flushMicrotasks();
    expect(executor.stats()).toEqual(stats({ cancelled: 1 }));
  });

  it('removes a queued task at once; it never runs', async () => {
    const executor = new Executor({ maxConcurrency: 1 });
    const a = gatedTask('a');
    const pa = executor.submit(a.task);
    const controller = new AbortController();
    const b = gatedTask();
    const pb = executor.submit(b.task, { signal: controller.signal });
    const c = gatedTask('c');
    const pc = executor.submit(c.task);
    expect(executor.stats().queued).toBe(2);
    controller.abort();
    expect(executor.stats()).toEqual(stats({ running: 1, queued: 1, cancelled: 1 }));
    await expectCode(pb, 'SNODO_ERR_CANCELLED');
    a.gate.resolve();
    await pa;
    expect(c.started).toBe(true);
    c.gate.resolve();
    await expect(pc).resolves.toBe('c');
    expect(b.started).toBe(false);
    expect(executor.stats()).toEqual(stats({ completed: 2, cancelled: 1 }));
  });

  it('refuses a task whose signal is already aborted, without running it', async () => {
    const executor = new Executor();
    const task = vi.fn();
    const error = await expectCode(
      executor.submit(task, { signal: AbortSignal.abort('early') }),
      'SNODO_ERR_CANCELLED',
    );
    expect(error.cause).toBe('early');
    expect(task).not.toHaveBeenCalled();
    expect(executor.stats()).toEqual(stats({ cancelled: 1 }));
  });

  it('detaches its listener from the outside signal when the task finishes', async () => {
    const executor = new Executor();
    const controller = new AbortController();
    const add = vi.spyOn(controller.signal, 'addEventListener');
    const remove = vi.spyOn(controller.signal, 'removeEventListener');
    await executor.submit(() => 'done', { signal: controller.signal });
    expect(add).toHaveBeenCalledTimes(1);
    expect(remove).toHaveBeenCalledTimes(1);
    expect(remove.mock.calls[0]![1]).toBe(add.mock.calls[0]![1]);
    controller.abort();
    expect(executor.stats()).toEqual(stats({ completed: 1 }));
  });
});

describe('owners', () => {
  it('closing an owner aborts all of its tasks and none of another owner’s', async () => {
    const executor = new Executor({ maxConcurrency: 2 });
    const alice = executor.owner();
    const bob = executor.owner();
    const a1 = gatedTask();
    const pa1 = executor.submit(a1.task, { owner: alice });
    const b1 = gatedTask('b1');
    const pb1 = executor.submit(b1.task, { owner: bob });
    const a2 = gatedTask();
    const pa2 = executor.submit(a2.task, { owner: alice });
    const b2 = gatedTask('b2');
    const pb2 = executor.submit(b2.task, { owner: bob });
    expect(executor.stats()).toEqual(stats({ running: 2, queued: 2 }));

    const reason = new Error('connection reset');
    alice.close(reason);
    expect(alice.closed).toBe(true);
    expect(bob.closed).toBe(false);
    expect(alice.signal.aborted).toBe(true);
    expect(bob.signal.aborted).toBe(false);
    expect(executor.stats()).toEqual(stats({ running: 2, queued: 1, cancelled: 2 }));
    for (const result of [pa1, pa2]) {
      const error = await expectCode(result, 'SNODO_ERR_CANCELLED');
      expect(error.cause).toBe(reason);
    }
    expect(a1.signal!.aborted).toBe(true);
    expect(b1.signal!.aborted).toBe(false);

    a1.gate.resolve();
    await flushMicrotasks();
    expect(a2.started).toBe(false);
    expect(b2.started).toBe(true);
    b1.gate.resolve();
    b2.gate.resolve();
    await expect(Promise.all([pb1, pb2])).resolves.toEqual(['b1', 'b2']);
    expect(executor.stats()).toEqual(stats({ completed: 2, cancelled: 2 }));

    // A closed owner cannot submit; closing again changes nothing.
    const error = await expectCode(
      executor.submit(() => 1, { owner: alice }),
      'SNODO_ERR_CANCELLED',
    );
    expect(error.cause).toBe(reason);
    alice.close(new Error('again'));
    expect((alice.signal.reason as ExecutorError).cause).toBe(reason);
    expect(executor.stats()).toEqual(stats({ completed: 2, cancelled: 3 }));
  });

  it('forgets tasks that finished, so a later close touches nothing', async () => {
    const executor = new Executor();
    const owner = executor.owner();
    await executor.submit(() => 1, { owner });
    owner.close();
    expect(executor.stats()).toEqual(stats({ completed: 1 }));
  });
});

describe('subscriptions', () => {
  it('holds at most maxSubscriptions slots, shared by every holder', () => {
    const executor = new Executor();
    const slots = Array.from({ length: 256 }, () => executor.acquireSubscription());
    expect(slots.every((slot) => slot !== null)).toBe(true);
    expect(executor.stats()).toEqual(stats({ subscriptions: 256 }));
    expect(executor.acquireSubscription()).toBeNull();
    expect(executor.stats()).toEqual(stats({ subscriptions: 256, subscriptionsRejected: 1 }));

    slots[0]!.release();
    expect(executor.stats().subscriptions).toBe(255);
    const next = executor.acquireSubscription();
    expect(next).not.toBeNull();
    expect(executor.stats()).toEqual(stats({ subscriptions: 256, subscriptionsRejected: 1 }));

    // Releasing twice does not free a second slot.
    slots[0]!.release();
    expect(executor.stats().subscriptions).toBe(256);
    expect(executor.acquireSubscription()).toBeNull();
    expect(executor.stats()).toEqual(stats({ subscriptions: 256, subscriptionsRejected: 2 }));
  });

  it('releases an owner’s slots when it closes', () => {
    const executor = new Executor({ maxSubscriptions: 3 });
    const alice = executor.owner();
    const bob = executor.owner();
    const a1 = executor.acquireSubscription(alice)!;
    executor.acquireSubscription(alice);
    executor.acquireSubscription(bob);
    expect(executor.acquireSubscription(bob)).toBeNull();
    alice.close();
    expect(executor.stats()).toEqual(stats({ subscriptions: 1, subscriptionsRejected: 1 }));
    a1.release(); // already released by the close
    expect(executor.stats().subscriptions).toBe(1);
    expect(executor.acquireSubscription(alice)).toBeNull(); // closed owner
    expect(executor.acquireSubscription(bob)).not.toBeNull();
    expect(executor.stats()).toEqual(stats({ subscriptions: 2, subscriptionsRejected: 2 }));
  });

  it('a slot released by hand is not released again by its owner', () => {
    const executor = new Executor({ maxSubscriptions: 2 });
    const owner = executor.owner();
    executor.acquireSubscription(owner)!.release();
    executor.acquireSubscription();
    owner.close();
    expect(executor.stats().subscriptions).toBe(1);
  });
});

describe('close and destroy', () => {
  it('close() lets running and queued work finish, refuses new work, and is idempotent', async () => {
    const executor = new Executor({ maxConcurrency: 1 });
    const a = gatedTask('a');
    const pa = executor.submit(a.task);
    const b = gatedTask('b');
    const pb = executor.submit(b.task);
    const closing = executor.close();
    const closed = track(closing);
    expect(executor.close()).toBe(closing);

    await expectCode(
      executor.submit(() => 1),
      'SNODO_ERR_EXECUTOR_CLOSED',
    );
    expect(executor.acquireSubscription()).toBeNull();
    expect(executor.stats()).toEqual(stats({ running: 1, queued: 1, rejected: 1, subscriptionsRejected: 1 }));

    a.gate.resolve();
    await expect(pa).resolves.toBe('a');
    await flushMicrotasks();
    expect(b.started).toBe(true);
    expect(closed.state).toBe('pending');
    b.gate.resolve();
    await expect(pb).resolves.toBe('b');
    await closing;
    expect(executor.stats()).toEqual(stats({ completed: 2, rejected: 1, subscriptionsRejected: 1 }));
    await expect(executor.close()).resolves.toBeUndefined();
  });

  it('close() on an idle executor resolves at once', async () => {
    const executor = new Executor();
    await expect(executor.close()).resolves.toBeUndefined();
  });

  it('destroy() aborts running and queued tasks now, and is idempotent', async () => {
    const executor = new Executor({ maxConcurrency: 1 });
    const a = gatedTask();
    const pa = executor.submit(a.task);
    const b = gatedTask();
    const pb = executor.submit(b.task);
    const reason = new Error('shutting down');
    executor.destroy(reason);
    expect(executor.stats()).toEqual(stats({ running: 1, cancelled: 2 }));
    for (const result of [pa, pb]) {
      const error = await expectCode(result, 'SNODO_ERR_EXECUTOR_CLOSED');
      expect(error.cause).toBe(reason);
    }
    expect(a.signal!.aborted).toBe(true);
    expect((a.signal!.reason as ExecutorError).cause).toBe(reason);

    executor.destroy(new Error('again'));
    await expectCode(
      executor.submit(() => 1),
      'SNODO_ERR_EXECUTOR_CLOSED',
    );
    expect(executor.stats()).toEqual(stats({ running: 1, cancelled: 2, rejected: 1 }));

    // close() after destroy() resolves once the ignoring task has actually settled.
    const closed = track(executor.close());
    await flushMicrotasks();
    expect(closed.state).toBe('pending');
    a.gate.resolve();
    await flushMicrotasks();
    expect(closed.state).toBe('fulfilled');
    expect(b.started).toBe(false);
    expect(executor.stats()).toEqual(stats({ cancelled: 2, rejected: 1 }));
  });

  it('destroy() during close() aborts the work close() was waiting for', async () => {
    const executor = new Executor({ maxConcurrency: 1 });
    const a = gatedTask();
    const pa = executor.submit(async (signal) => {
      await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    });
    const pb = executor.submit(a.task);
    const closing = executor.close();
    executor.destroy();
    await expectCode(pa, 'SNODO_ERR_EXECUTOR_CLOSED');
    await expectCode(pb, 'SNODO_ERR_EXECUTOR_CLOSED');
    await closing;
    expect(a.started).toBe(false);
    expect(executor.stats()).toEqual(stats({ cancelled: 2 }));
  });
});

describe('Fifo', () => {
  interface Item extends FifoItem {
    id: number;
  }
  const item = (id: number): Item => ({ id, fifoPos: -1 });

  it('matches an array model under any mix of push, shift and remove', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.nat()), { maxLength: 400 }), (ops) => {
        const fifo = new Fifo<Item>();
        const model: Item[] = [];
        let next = 0;
        let peak = 0;
        for (const [op, n] of ops) {
          if (op === 0) {
            const it = item(next++);
            fifo.push(it);
            model.push(it);
          } else if (op === 1) {
            expect(fifo.shift()).toBe(model.shift());
          } else if (model.length > 0) {
            const [victim] = model.splice(n % model.length, 1);
            expect(fifo.remove(victim!)).toBe(true);
            expect(fifo.remove(victim!)).toBe(false);
          }
          peak = Math.max(peak, model.length);
          expect(fifo.size).toBe(model.length);
          expect(fifo.capacity).toBeLessThanOrEqual(Math.max(16, 4 * peak));
        }
        const drained: Item[] = [];
        for (let it = fifo.shift(); it !== undefined; it = fifo.shift()) drained.push(it);
        expect(drained).toEqual(model);
      }),
    );
  });

  it('does not grow when holes pile up behind a long-lived head', () => {
    const fifo = new Fifo<Item>();
    fifo.push(item(-1)); // never leaves
    let previous = item(0);
    fifo.push(previous);
    for (let i = 1; i < 10_000; i++) {
      const current = item(i);
      fifo.push(current);
      fifo.remove(previous); // leaves a hole between the head and the newest item
      previous = current;
    }
    expect(fifo.size).toBe(2);
    expect(fifo.capacity).toBe(16);
    expect(fifo.shift()!.id).toBe(-1);
    expect(fifo.shift()!.id).toBe(9_999);
  });

  it('removes only items queued in it', () => {
    const mine = new Fifo<Item>();
    const other = new Fifo<Item>();
    const a = item(1);
    const b = item(2);
    mine.push(a);
    other.push(item(0));
    other.push(b);
    expect(mine.remove(b)).toBe(false);
    expect(mine.remove(item(3))).toBe(false);
    expect(mine.size).toBe(1);
    expect(mine.shift()).toBe(a);
    expect(other.size).toBe(2);
  });

  it('gives back a grown array once it drains', () => {
    const fifo = new Fifo<Item>();
    for (let i = 0; i < 1000; i++) fifo.push(item(i));
    expect(fifo.capacity).toBe(1024);
    while (fifo.shift() !== undefined);
    expect(fifo.capacity).toBe(16);
  });
});

describe('Executor logger: refusals under load', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function recorder() {
    const lines: { level: string; fields: Record<string, unknown>; message: string | undefined }[] = [];
    const at = (level: string) => (fields: Record<string, unknown>, message?: string) =>
      lines.push({ level, fields, message });
    return { lines, logger: { info: at('info'), warn: at('warn'), error: at('error') } };
  }

  it('logs one warn per refusalLogInterval, counting the refusals since the last line', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const { lines, logger } = recorder();
    const executor = new Executor({ maxConcurrency: 1, maxQueue: 0, logger });
    expect(DEFAULT_REFUSAL_LOG_INTERVAL).toBe(10_000);
    const busy = gatedTask();
    const running = executor.submit(busy.task);
    for (let i = 0; i < 3; i++)
      await expectCode(
        executor.submit(() => 1),
        'SNODO_ERR_OVERLOADED',
      );
    expect(lines).toEqual([
      {
        level: 'warn',
        fields: { refused: 1, running: 1, queued: 0, maxConcurrency: 1, maxQueue: 0 },
        message: 'executor overloaded: refusing requests',
      },
    ]);
    vi.advanceTimersByTime(9_999);
    await expectCode(
      executor.submit(() => 1),
      'SNODO_ERR_OVERLOADED',
    );
    expect(lines).toHaveLength(1);
    vi.advanceTimersByTime(1);
    await expectCode(
      executor.submit(() => 1),
      'SNODO_ERR_OVERLOADED',
    );
    expect(lines.map((line) => line.fields.refused)).toEqual([1, 4]);
    busy.gate.resolve();
    await running;
  });

  it('with refusalLogInterval 0 logs every refusal; a closed executor refusing is not logged', async () => {
    const { lines, logger } = recorder();
    const executor = new Executor({ maxConcurrency: 1, maxQueue: 0, logger, refusalLogInterval: 0 });
    const busy = gatedTask();
    const running = executor.submit(busy.task);
    for (let i = 0; i < 3; i++)
      await expectCode(
        executor.submit(() => 1),
        'SNODO_ERR_OVERLOADED',
      );
    expect(lines.map((line) => line.fields.refused)).toEqual([1, 1, 1]);
    busy.gate.resolve();
    await running;
    await executor.close();
    await expectCode(
      executor.submit(() => 1),
      'SNODO_ERR_EXECUTOR_CLOSED',
    );
    expect(lines).toHaveLength(3);
  });

  it('refuses a logger without info/warn/error and a negative refusalLogInterval', () => {
    expect(() => new Executor({ logger: { info() {} } as never })).toThrow(
      expect.objectContaining({
        code: 'SNODO_ERR_INVALID_OPTION',
        message: expect.stringContaining('logger.warn'),
      }),
    );
    expect(() => new Executor({ refusalLogInterval: -1 })).toThrow(
      expect.objectContaining({ code: 'SNODO_ERR_INVALID_OPTION' }),
    );
  });

  it('a logger that throws does not turn a refusal into anything else', async () => {
    const throwing = {
      info() {},
      error() {},
      warn() {
        throw new Error('broken logger');
      },
    };
    const executor = new Executor({ maxConcurrency: 1, maxQueue: 0, logger: throwing });
    const busy = gatedTask();
    const running = executor.submit(busy.task);
    await expectCode(
      executor.submit(() => 1),
      'SNODO_ERR_OVERLOADED',
    );
    busy.gate.resolve();
    await running;
  });
});
