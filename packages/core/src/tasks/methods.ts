import type { AuthInfo } from '../dispatch/context.js';
import { checkAnswer } from '../dispatch/input-answers.js';
import { ProtocolError } from '../errors/protocol-error.js';
import type { ExtensionMethod } from '../router/extension.js';
import type { TaskManager } from './manager.js';
import type { StoredTask } from './store.js';
import { detailedTask, isTerminal, plausibleTaskId } from './wire.js';

/**
 * `tasks/get`, `tasks/update` and `tasks/cancel`. A task another principal created is "not found"
 * exactly like an unknown one (-32602), so task ids do not leak. Updates and cancellations are
 * acknowledged with an empty result once stored; the task's status follows (SEP-2663: eventually
 * consistent), and both are acknowledged for a task that already ended.
 */
export function tasksMethods(manager: TaskManager): Record<string, ExtensionMethod> {
  const find = async (params: Record<string, unknown>, auth: AuthInfo | undefined): Promise<StoredTask> => {
    const { taskId } = params;
    if (typeof taskId !== 'string') throw ProtocolError.invalidParams('params.taskId must be a string');
    const task = plausibleTaskId(taskId) ? await manager.find(taskId, auth) : undefined;
    if (task === undefined)
      throw ProtocolError.invalidParams('Failed to retrieve task: Task not found', { taskId });
    return task;
  };

  return {
    'tasks/get': async (params, context) => detailedTask(await find(params, context.auth)),

    'tasks/update': async (params, context) => {
      const { inputResponses } = params;
      if (typeof inputResponses !== 'object' || inputResponses === null || Array.isArray(inputResponses)) {
        throw ProtocolError.invalidParams('tasks/update needs params.inputResponses (an object)');
      }
      const task = await find(params, context.auth);
      if (isTerminal(task.status)) return {};
      // Answers to keys not outstanding are ignored (SEP-2663); the others are checked like MRTR answers.
      const checked: Record<string, Record<string, unknown>> = {};
      for (const [key, answer] of Object.entries(inputResponses as Record<string, unknown>)) {
        const request = task.inputRequests?.[key];
        if (request) checked[key] = await checkAnswer(key, request, answer, task.protocolVersion);
      }
      if (Object.keys(checked).length === 0) return {};
      await manager.store.update(task.taskId, (current) => answered(current, checked));
      return {};
    },

    'tasks/cancel': async (params, context) => {
      const task = await find(params, context.auth);
      if (isTerminal(task.status)) return {};
      await manager.store.update(task.taskId, (current) =>
        isTerminal(current.status) || current.cancelRequested
          ? undefined
          : { ...current, cancelRequested: true },
      );
      return {};
    },
  };
}

/** `task` with the answers to its still-outstanding requests stored: `working` once none is left. */
function answered(
  task: StoredTask,
  answers: Record<string, Record<string, unknown>>,
): StoredTask | undefined {
  if (isTerminal(task.status)) return undefined;
  const outstanding = { ...task.inputRequests };
  const responses = { ...task.inputResponses };
  let changed = false;
  for (const [key, answer] of Object.entries(answers)) {
    if (!(key in outstanding)) continue;
    delete outstanding[key];
    responses[key] = answer;
    changed = true;
  }
  if (!changed) return undefined;
  const waiting = Object.keys(outstanding).length > 0;
  const { inputRequests: _requests, ...rest } = task;
  return {
    ...rest,
    ...(waiting ? { inputRequests: outstanding } : {}),
    inputResponses: responses,
    status: waiting ? 'input_required' : 'working',
    lastUpdatedAt: Date.now(),
    revision: task.revision + 1,
  };
}
