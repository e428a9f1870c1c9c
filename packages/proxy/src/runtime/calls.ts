import type { CallOptions, Task } from '@snodo/client';
import { type CallToolResult, type HandlerContext, ProtocolError, TASKS_EXTENSION } from '@snodo/core';
import {
  callToolAsTask,
  canUseTasks,
  declaresExtension,
  type Operation,
  type OperationCall,
} from '@snodo/core/internal';
import { type Backend, unavailable } from '../backend.js';
import { rewritePromptResult, rewriteToolResult } from '../links.js';
import { allowed } from '../policy.js';
import type { Route } from '../sessions.js';
import { clean, forbidden, forwarding, objectParam, owner, type Scope, visible } from './context.js';
import { followState, followTask } from './follow.js';
import { forward } from './forward.js';
import { frontTask, offersTasks } from './tasks.js';

/** Backend task handles `forwardCall` returned (apart from the proxy's own task results). */
const handles = new WeakSet<object>();

/** One `tools/call` as the proxy forwards it. */
interface ToolCall {
  readonly scope: Scope;
  readonly call: OperationCall;
  readonly backend: Backend;
  readonly what: string;
  readonly original: string;
  readonly args: Record<string, unknown>;
  readonly reissue: boolean;
}

/**
 * `tools/call`: the owning backend's tool by its original name; links in the result rewritten.
 * For a frontend that declared the Tasks extension the call becomes a task of the proxy's own
 * once it has run `taskAfterMs` (core's `callToolAsTask`, under the proxy's task manager), unless
 * the backend answered first (its result, or its own task's handle).
 */
export function callToolOperation(scope: Scope): Operation {
  const { core, policy } = scope;
  return async (call) => {
    const { name } = call.params;
    if (typeof name !== 'string')
      throw ProtocolError.invalidParams('tools/call needs params.name (a string)');
    const unknown = () => ProtocolError.invalidParams(`Unknown tool: ${name}`, { name });
    const entry = core.merged().tools.get(name);
    if (!entry && core.pendingOwner(name)) throw unavailable(`tool "${name}"`);
    if (!entry || !visible(scope, call.auth, entry)) throw unknown();
    if (!allowed(policy, 'canCall', call.auth, entry.item)) {
      throw forbidden(`Tool "${name}" is not allowed for this caller`, { name });
    }
    const args = objectParam(call, 'arguments', 'tools/call');
    const backend = owner(scope, entry, unknown);
    // A call whose stream broke may have run: sent again only when the tool says that is harmless.
    const annotations = entry.item.definition.annotations as Record<string, unknown> | undefined;
    const reissue = annotations?.readOnlyHint === true || annotations?.idempotentHint === true;
    const target: ToolCall = {
      scope,
      call,
      backend,
      what: `tool "${name}"`,
      original: entry.item.original,
      args,
      reissue,
    };
    const resumed = followState(call.context.state);
    if (resumed) return resumeFollow(target, resumed.t);
    const afterMs = backend.spec.taskAfterMs ?? core.taskAfterMs;
    if (afterMs === false || !canUseTasks(call))
      return answer(target, await forwardCall(target, call.context, undefined));
    const answered = await callToolAsTask(
      core.tasks,
      call,
      { task: 'auto', taskAfterMs: afterMs },
      // Core's tools/call result shape is the dialect's to check: the proxy passes the backend's on.
      (context) => forwardCall(target, context, 0) as Promise<CallToolResult>,
      // The backend's task handle arrived once the call was the proxy's task: the task follows it.
      async (result, context) =>
        (handles.has(result) ? await follow(target, result, context) : result) as CallToolResult,
    );
    return answer(target, answered);
  };
}

/**
 * Sends the call to the backend with `context` (the request's, or the proxy's task's): the
 * backend's result with its links rewritten, or its task's handle (kept in `handles`). `timeout`
 * replaces the backend client's (0: none, for a call that may become a task).
 */
async function forwardCall(
  target: ToolCall,
  context: HandlerContext,
  timeout: number | undefined,
): Promise<Record<string, unknown>> {
  const { scope, call, backend, what, original, args, reissue } = target;
  const forwarded = { ...forwarding(scope, backend, what, call), context };
  const { result, route } = await forward(
    timeout === undefined ? forwarded : { ...forwarded, timeout },
    async (client, options) => {
      if (!offersTasks(client)) {
        // A client that did not declare tasks cannot take a handle: the backend must not give one.
        const onBehalfOf = options.onBehalfOf && tasksDeclared(options.onBehalfOf, false);
        return client.callTool(original, args, {
          ...options,
          reissue,
          ...(onBehalfOf ? { onBehalfOf } : {}),
        }) as Promise<Record<string, unknown>>;
      }
      // Declared on the frontend's behalf whether it did or not: the proxy follows the task then.
      const start = await client.tasks.start(original, args, {
        ...options,
        reissue,
        ...(options.onBehalfOf ? { onBehalfOf: tasksDeclared(options.onBehalfOf, true) } : {}),
      });
      return start.task ? { ...start.task, resultType: 'task' } : (start.result as Record<string, unknown>);
    },
  );
  if (result.resultType === 'task') {
    handles.add(result);
    return result;
  }
  return toolResult(backend, route, result);
}

/** What the frontend gets: the backend's task handle (its id wrapped) when it holds handles, else a result. */
async function answer(target: ToolCall, result: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (!handles.has(result)) return result;
  const { scope, call, backend } = target;
  if (declaresExtension(call.context.clientCapabilities, TASKS_EXTENSION)) {
    return { ...frontTask(scope, backend, result, call.auth), resultType: 'task' };
  }
  return follow(target, result, call.context);
}

/** Follows the backend's task to its result (input asked of `context`), links rewritten. */
async function follow(
  target: ToolCall,
  handle: Record<string, unknown>,
  context: HandlerContext,
): Promise<Record<string, unknown>> {
  const { scope, call, backend, what } = target;
  const task = handle as unknown as Task;
  const wrapped = scope.taskIds.wrap(backend.id, task.taskId, call.auth);
  const result = await followTask(backend, what, task, wrapped, context, scope.core.maxInputRounds);
  return toolResult(backend, backend.shared, result);
}

/** A 2026-07-28 frontend's retry with the answers a followed task asked for: following resumes. */
async function resumeFollow(target: ToolCall, handle: string): Promise<Record<string, unknown>> {
  const { scope, call, backend, what } = target;
  const ids = scope.taskIds.unwrap(handle, call.auth);
  if (!ids || ids.backendId !== backend.id) {
    throw ProtocolError.invalidParams('requestState names a task of another caller or tool');
  }
  const task = (await backend.call(what, undefined, (client) =>
    client.tasks.get(ids.taskId, { signal: call.context.signal }),
  )) as Task;
  const result = await followTask(backend, what, task, handle, call.context, scope.core.maxInputRounds);
  return toolResult(backend, backend.shared, result);
}

function toolResult(
  backend: Backend,
  route: Route,
  result: Record<string, unknown>,
): Record<string, unknown> {
  const { ttlMs: _, cacheScope: __, ...rest } = clean(result);
  return rewriteToolResult({ snapshot: backend.snapshot, route }, rest);
}

/** `prompts/get`: the owning backend's prompt by its original name; links in messages rewritten. */
export function getPromptOperation(scope: Scope): Operation {
  const { core, policy } = scope;
  return async (call) => {
    const { name } = call.params;
    if (typeof name !== 'string')
      throw ProtocolError.invalidParams('prompts/get needs params.name (a string)');
    const unknown = () => ProtocolError.invalidParams(`Unknown prompt: ${name}`, { name });
    const entry = core.merged().prompts.get(name);
    if (!entry && core.pendingOwner(name)) throw unavailable(`prompt "${name}"`);
    if (!entry || !visible(scope, call.auth, entry)) throw unknown();
    if (!allowed(policy, 'canGet', call.auth, entry.item)) {
      throw forbidden(`Prompt "${name}" is not allowed for this caller`, { name });
    }
    const args = objectParam(call, 'arguments', 'prompts/get');
    for (const [key, value] of Object.entries(args)) {
      if (typeof value !== 'string') {
        throw ProtocolError.invalidParams(
          `Invalid arguments for prompt "${name}": "${key}" must be a string`,
          {
            argument: key,
          },
        );
      }
    }
    const backend = owner(scope, entry, unknown);
    const { result, route } = await forward(
      forwarding(scope, backend, `prompt "${name}"`, call),
      (client, options) =>
        client.getPrompt(entry.item.original, args as Record<string, string>, options) as Promise<
          Record<string, unknown>
        >,
    );
    return rewritePromptResult({ snapshot: backend.snapshot, route }, clean(result));
  };
}

/** The frontend's capabilities as the backend sees them, with the Tasks extension declared or not. */
function tasksDeclared(
  onBehalfOf: NonNullable<CallOptions['onBehalfOf']>,
  declared: boolean,
): NonNullable<CallOptions['onBehalfOf']> {
  const { capabilities } = onBehalfOf;
  const { [TASKS_EXTENSION]: _, ...others } = capabilities.extensions ?? {};
  const extensions = declared ? { ...others, [TASKS_EXTENSION]: {} } : others;
  return { ...onBehalfOf, capabilities: { ...capabilities, extensions } };
}
