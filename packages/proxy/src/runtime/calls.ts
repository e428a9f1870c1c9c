import type { CallOptions, Task } from '@snodo/client';
import { ProtocolError, TASKS_EXTENSION } from '@snodo/core';
import { declaresExtension, type Operation } from '@snodo/core/internal';
import { unavailable } from '../backend.js';
import { rewritePromptResult, rewriteToolResult } from '../links.js';
import { allowed } from '../policy.js';
import { clean, forbidden, forwarding, objectParam, owner, type Scope, visible } from './context.js';
import { forward } from './forward.js';
import { frontTask, offersTasks } from './tasks.js';

/** `tools/call`: the owning backend's tool by its original name; links in the result rewritten. */
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
    const what = `tool "${name}"`;
    const forwarded = await forward(forwarding(scope, backend, what, call), async (client, options) => {
      if (!offersTasks(client)) {
        // A client that did not declare tasks cannot take a handle: the backend must not give one.
        const onBehalfOf = options.onBehalfOf && tasksDeclared(options.onBehalfOf, false);
        return client.callTool(entry.item.original, args, {
          ...options,
          reissue,
          ...(onBehalfOf ? { onBehalfOf } : {}),
        }) as Promise<Record<string, unknown>>;
      }
      // Declared on the frontend's behalf whether it did or not: the proxy follows the task then.
      const start = await client.tasks.start(entry.item.original, args, {
        ...options,
        reissue,
        ...(options.onBehalfOf ? { onBehalfOf: tasksDeclared(options.onBehalfOf, true) } : {}),
      });
      return start.task ? { ...start.task, resultType: 'task' } : (start.result as Record<string, unknown>);
    });
    let { result, route } = forwarded;
    if (result.resultType === 'task') {
      if (declaresExtension(call.context.clientCapabilities, TASKS_EXTENSION)) {
        return { ...frontTask(scope, backend, result, call.auth), resultType: 'task' };
      }
      route = backend.shared;
      const task = result as unknown as Task;
      result = (await backend.call(what, undefined, (client) =>
        client.tasks.follow(task, { signal: call.context.signal }).catch((error: unknown) => {
          // The call failed here (e.g. the task asked for input this frontend cannot give): stop it there too.
          client.tasks.cancel(task.taskId).catch(() => undefined);
          throw error;
        }),
      )) as Record<string, unknown>;
    }
    const { ttlMs: _, cacheScope: __, ...rest } = clean(result);
    return rewriteToolResult({ snapshot: backend.snapshot, route }, rest);
  };
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
