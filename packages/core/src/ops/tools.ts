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
    return callToolAsTask(tasks, call, tool, (context: HandlerContext) =>
      runTool(tool, validation.value, context, call),
    );
  }
  return runTool(tool, validation.value, call.context, call);
}

/** Runs a tool's handler with `context` and checks what it returns (as an ordinary call or as a task). */
async function runTool(
  tool: Tool,
  args: unknown,
  context: HandlerContext,
  call: OperationCall,
): Promise<CallToolResult> {
  const { name } = tool;
  let result: CallToolResult;
  try {
    result = normalizeToolResult(await tool.definition.handler(args, context));
  } catch (error) {
    if (ProtocolError.is(error) || error instanceof InputRequiredSignal || contextAborted(context))
      throw error;
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
  if (tool.output && result.isError !== true) {
    if (!('structuredContent' in result)) {
      throw new ProtocolError(
        ErrorCode.InternalError,
        `Tool "${name}" has an outputSchema but returned no structuredContent`,
      );
    }
    const checked = await tool.output.validate(result.structuredContent);
    if (!checked.ok) {
      throw new ProtocolError(
        ErrorCode.InternalError,
        `Tool "${name}" returned structuredContent that does not match its outputSchema: ${describeIssues(checked.issues)}`,
        { issues: checked.issues.slice(0, MAX_REPORTED_ISSUES) },
      );
    }
  }
  return result;
}
