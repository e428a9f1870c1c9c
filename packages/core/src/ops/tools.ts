import { visible } from '../auth/scopes.js';
import type { HandlerContext } from '../dispatch/context.js';
import { InputRequiredSignal } from '../dispatch/input.js';
import { contextAborted } from '../dispatch/job-signal.js';
import type { OperationCall } from '../dispatch/operation.js';
import { ErrorCode } from '../errors/codes.js';
import { ProtocolError } from '../errors/protocol-error.js';
import type { CallToolResult } from '../protocol/types.js';
import { declaresExtension, missingExtension } from '../router/extension.js';
import { paginate } from '../router/pagination.js';
import { describeIssues, MAX_REPORTED_ISSUES } from '../router/schema.js';
import { errorToolResult, normalizeToolResult, type Tool } from '../router/tool.js';
import { UI_EXTENSION } from '../router/ui.js';
import { callToolAsTask, canUseTasks } from '../tasks/call.js';
import { TASKS_EXTENSION } from '../tasks/wire.js';
import { reportError } from '../telemetry/hooks.js';

export function listTools(call: OperationCall): Record<string, unknown> {
  const page = paginate(
    visible(call.runtime.toolList, call.grantedScopes),
    call.params.cursor,
    call.runtime.pageSize,
  );
  const ui = declaresExtension(call.selection.clientCapabilities, UI_EXTENSION);
  const result: Record<string, unknown> = {
    tools: page.items.map((tool) => (ui ? tool.uiListing : tool.listing)),
  };
  if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
  return result;
}

/**
 * Not async: the checks throw synchronously (dispatch turns a throw and a rejection alike into the
 * error response), and a tool whose validator answers synchronously, as compiled schemas do, goes
 * to its handler without an extra async frame and promise per call.
 */
export function callTool(call: OperationCall): Record<string, unknown> | Promise<Record<string, unknown>> {
  const { name } = call.params;
  if (typeof name !== 'string') throw ProtocolError.invalidParams('tools/call needs params.name (a string)');
  const tool = call.runtime.tools.get(name);
  if (!tool) throw ProtocolError.invalidParams(`Unknown tool: ${name}`, { name });
  if (tool.task === 'always' && !canUseTasks(call)) throw missingExtension(TASKS_EXTENSION);
  const required = tool.definition.requiredClientCapabilities;
  if (required) {
    const declared = call.selection.clientCapabilities;
    const missing = Object.fromEntries(
      Object.entries(required).filter(([key]) => declared[key] === undefined),
    );
    if (Object.keys(missing).length > 0) throw ProtocolError.missingCapability(missing);
  }
  const args = call.params.arguments ?? {};
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw ProtocolError.invalidParams(`Invalid arguments for tool "${name}": arguments must be an object`);
  }
  const validation = tool.input.validate(args);
  return validation instanceof Promise
    ? validation.then((checked) => validated(call, tool, checked))
    : validated(call, tool, validation);
}

/** Answers invalid arguments, or runs the tool with the validated ones (as a call or a task). */
function validated(
  call: OperationCall,
  tool: Tool,
  validation: Awaited<ReturnType<Tool['input']['validate']>>,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  if (!validation.ok) {
    const message = `Invalid arguments for tool "${tool.name}": ${describeIssues(validation.issues)}`;
    if (call.selection.dialect.invalidToolArguments === 'tool-error')
      return { content: [{ type: 'text', text: message }], isError: true };
    throw ProtocolError.invalidParams(message, { issues: validation.issues.slice(0, MAX_REPORTED_ISSUES) });
  }
  const tasks = call.runtime.tasks;
  if (tool.task !== 'never' && tasks) {
    // A task runs its handler as a promise, whatever the handler returns.
    return callToolAsTask(tasks, call, tool, async (context: HandlerContext) =>
      runTool(tool, validation.value, context, call),
    );
  }
  return runTool(tool, validation.value, call.context, call);
}

/**
 * Runs a tool's handler with `context` and checks what it returns (as an ordinary call or as a
 * task). Not async: a handler that answers synchronously costs no promise and no extra turn; a
 * throw goes where a rejection would (callers run it where a throw becomes one).
 */
function runTool(
  tool: Tool,
  args: unknown,
  context: HandlerContext,
  call: OperationCall,
): CallToolResult | Promise<CallToolResult> {
  let returned: unknown;
  try {
    returned = tool.definition.handler(args, context);
  } catch (error) {
    return handlerFailed(error, context, call);
  }
  if (typeof (returned as PromiseLike<unknown> | null)?.then !== 'function')
    return handlerReturned(tool, returned, context, call);
  return Promise.resolve(returned).then(
    (value) => handlerReturned(tool, value, context, call),
    (error: unknown) => handlerFailed(error, context, call),
  );
}

/** What a handler returned, as a result: checked against the tool's output schema, if it has one. */
function handlerReturned(
  tool: Tool,
  value: unknown,
  context: HandlerContext,
  call: OperationCall,
): CallToolResult | Promise<CallToolResult> {
  let result: CallToolResult;
  try {
    result = normalizeToolResult(value as Parameters<typeof normalizeToolResult>[0]);
  } catch (error) {
    return handlerFailed(error, context, call);
  }
  if (!tool.output || result.isError === true) return result;
  if (!('structuredContent' in result)) {
    throw new ProtocolError(
      ErrorCode.InternalError,
      `Tool "${tool.name}" has an outputSchema but returned no structuredContent`,
    );
  }
  const checked = tool.output.validate(result.structuredContent);
  return checked instanceof Promise
    ? checked.then((validation) => matchedOutput(tool, result, validation))
    : matchedOutput(tool, result, checked);
}

function matchedOutput(
  tool: Tool,
  result: CallToolResult,
  checked: Awaited<ReturnType<NonNullable<Tool['output']>['validate']>>,
): CallToolResult {
  if (!checked.ok) {
    throw new ProtocolError(
      ErrorCode.InternalError,
      `Tool "${tool.name}" returned structuredContent that does not match its outputSchema: ${describeIssues(checked.issues)}`,
      { issues: checked.issues.slice(0, MAX_REPORTED_ISSUES) },
    );
  }
  return result;
}

/**
 * A handler's throw or rejection: a ProtocolError, an input request, or anything once the request
 * was aborted goes on as it is; anything else is reported and answered as an error result.
 */
function handlerFailed(error: unknown, context: HandlerContext, call: OperationCall): CallToolResult {
  if (ProtocolError.is(error) || error instanceof InputRequiredSignal || contextAborted(context)) throw error;
  reportError(call.runtime, error, {
    method: 'tools/call',
    requestId: context.requestId,
    params: call.params,
    auth: call.auth,
    protocolVersion: call.selection.dialect.version,
    connectionId: call.connectionId,
  });
  return errorToolResult(error);
}
