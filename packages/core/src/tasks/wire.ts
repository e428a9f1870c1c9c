import type { StoredTask, TaskStatus } from './store.js';

/** The Tasks extension's identifier (SEP-2663). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** Task ids this server mints: UUIDs (122 random bits), so anything else is unknown without a lookup. */
const TASK_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function mintTaskId(): string {
  return globalThis.crypto.randomUUID();
}

export function plausibleTaskId(taskId: string): boolean {
  return TASK_ID.test(taskId);
}

export function isTerminal(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** The `Task` fields every task shape shares. */
function taskFields(task: StoredTask): Record<string, unknown> {
  const out: Record<string, unknown> = {
    taskId: task.taskId,
    status: task.status,
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
  };
  if (task.statusMessage !== undefined) out.statusMessage = task.statusMessage;
  return out;
}

/** `CreateTaskResult`: the task handle a `tools/call` answers with (no result, error or input). */
export function createTaskResult(task: StoredTask): Record<string, unknown> {
  return { resultType: 'task', ...taskFields(task) };
}

/**
 * `DetailedTask`, what `tasks/get` answers and `notifications/tasks` carries: the task, with its
 * outstanding `inputRequests`, its `result` or its `error` as its status has them.
 */
export function detailedTask(task: StoredTask): Record<string, unknown> {
  const out = taskFields(task);
  if (task.status === 'input_required') out.inputRequests = task.inputRequests ?? {};
  // The result is a 2026-07-28 CallToolResult, which carries its `resultType` (the requester of
  // @modelcontextprotocol/ext-tasks refuses one without it).
  else if (task.status === 'completed') out.result = { ...task.result, resultType: 'complete' };
  else if (task.status === 'failed') out.error = task.error ?? { code: -32603, message: 'Internal error' };
  return out;
}
