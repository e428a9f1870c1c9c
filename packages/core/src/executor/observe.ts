import type { ExecutorStats } from './executor.js';

// What observers (core's telemetry) read of executors, kept here so the executor imports nothing
// outside its folder.

/** Live executors, held weakly so none is kept alive by being observed. */
const live = new Set<WeakRef<{ stats(): ExecutorStats }>>();

export function trackExecutor(executor: { stats(): ExecutorStats }): void {
  live.add(new WeakRef(executor));
}

/** The stats of every live executor (the collected ones are dropped on the way). */
export function* executorStats(): Generator<ExecutorStats> {
  for (const ref of live) {
    const executor = ref.deref();
    if (executor) yield executor.stats();
    else live.delete(ref);
  }
}

/**
 * How long the task now starting waited in its executor's queue, in ms: set for the synchronous
 * start of a task, so that `dispatch`, called synchronously from the task, reads it before its
 * first await. Undefined outside a task's start (a message dispatched directly).
 */
let waited: number | undefined;

/** `start(argument)`, with `queueWait()` answering `waitedMs` while it runs synchronously. */
export function startAfterWait<A, T>(waitedMs: number, start: (argument: A) => T, argument: A): T {
  waited = waitedMs;
  try {
    return start(argument);
  } finally {
    waited = undefined;
  }
}

export function queueWait(): number | undefined {
  return waited;
}
