/**
 * How long the task now starting waited in its executor's queue, in ms: set by the executor for
 * the synchronous start of a task, so that `dispatch`, called synchronously from the task, reads
 * it before its first await. Undefined outside a task's start (a message dispatched directly).
 */
let current: number | undefined;

export function startAfterWait<T>(waitedMs: number, start: () => T): T {
  current = waitedMs;
  try {
    return start();
  } finally {
    current = undefined;
  }
}

export function queueWait(): number | undefined {
  return current;
}
