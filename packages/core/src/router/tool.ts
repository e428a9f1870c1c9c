import { checkRequiredScopes } from '../auth/scopes.js';
import type { HandlerContext } from '../dispatch/context.js';
import { definitionError } from '../errors/table.js';
import type { CallToolResult, ContentBlock, ToolAnnotations } from '../protocol/types.js';
import { type CompiledSchema, compileSchema, type SchemaInput } from './schema.js';
import { type ToolUi, toolUiMeta } from './ui.js';

/** What a tool handler may return: a full result, or a string (one text block). */
export type ToolReturn = CallToolResult | string;

export interface ToolDefinition<Args = any> {
  name: string;
  title?: string;
  description?: string;
  /** A Standard Schema (zod 4) or a JSON Schema object whose root is `type: "object"`. Defaults to an empty object schema. */
  inputSchema?: SchemaInput;
  /** When set, `structuredContent` is validated against it before the result leaves the server. */
  outputSchema?: SchemaInput;
  annotations?: ToolAnnotations;
  icons?: unknown[];
  _meta?: Record<string, unknown>;
  /**
   * Client capabilities the tool cannot work without (e.g. `{ elicitation: {} }`). A call from a
   * client that did not declare them gets -32021 with `data.requiredCapabilities`, before the handler runs.
   */
  requiredClientCapabilities?: Record<string, unknown>;
  /**
   * OAuth scopes a caller needs (HTTP): callers without them do not see the tool in `tools/list`,
   * and a call gets 403 `insufficient_scope` naming them (401 when anonymous).
   */
  requiredScopes?: readonly string[];
  /**
   * Links the tool to an MCP Apps UI resource (`ui://…`). The link is listed only to clients that
   * declare the `io.modelcontextprotocol/ui` extension.
   */
  ui?: ToolUi;
  /**
   * Whether a call may run as a task (Tasks extension, 2026-07-28, for clients that declare it):
   * - `never` (default): every call is an ordinary call;
   * - `auto`: the server decides per call: the call becomes a task when the handler calls
   *   `context.runAsTask()`, or when it is still running after `taskAfterMs`; until then (and for
   *   clients without the extension, throughout) it is an ordinary call, with MRTR input;
   * - `always`: every call is a task from the start; a client without the extension gets -32021.
   * Needs the server's `tasks` (`createTaskManager`).
   */
  task?: TaskSupport;
  /** `auto` tools: ms a call runs before it becomes a task; default the task manager's `taskAfterMs`. */
  taskAfterMs?: number;
  handler(args: Args, context: HandlerContext): ToolReturn | Promise<ToolReturn>;
}

/** Whether a tool's calls may run as tasks: never, when the server decides, or always. */
export type TaskSupport = 'never' | 'auto' | 'always';
const TASK_SUPPORT: readonly TaskSupport[] = ['never', 'auto', 'always'];

/** A tool after definition-time checks, as the router holds it. */
export interface Tool {
  readonly name: string;
  readonly definition: ToolDefinition;
  readonly input: CompiledSchema;
  readonly output: CompiledSchema | undefined;
  /** The neutral `Tool` object of `tools/list`; dialects drop what their revision does not know. */
  readonly listing: Readonly<Record<string, unknown>>;
  /** The listing with the tool's UI link, for clients that declare the UI extension (else `listing`). */
  readonly uiListing: Readonly<Record<string, unknown>>;
  readonly task: TaskSupport;
  readonly taskAfterMs: number | undefined;
}

/** Tool names model APIs and SEP-986 accept. */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const EMPTY_OBJECT_SCHEMA = { type: 'object', properties: {} } as const;

/** Identity helper that infers the handler's argument type from a zod schema. */
export function tool<S extends SchemaInput>(
  definition: Omit<ToolDefinition, 'inputSchema' | 'handler'> & {
    inputSchema?: S;
    handler: (args: InferInput<S>, context: HandlerContext) => ToolReturn | Promise<ToolReturn>;
  },
): ToolDefinition<InferInput<S>> {
  return definition as ToolDefinition<InferInput<S>>;
}

// NonNullable: under exactOptionalPropertyTypes, `types?: X | undefined` infers X | undefined.
type InferInput<S> = S extends { readonly '~standard': { readonly types?: infer T } }
  ? NonNullable<T> extends { readonly output: infer O }
    ? O
    : Record<string, unknown>
  : Record<string, any>;

export function compileTool(definition: ToolDefinition): Tool {
  if (typeof definition !== 'object' || definition === null)
    throw definitionError('a tool must be an object');
  const { name } = definition;
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    throw definitionError(
      `tool name ${JSON.stringify(name)} is invalid: use 1 to 128 characters from A-Z, a-z, 0-9, '_', '-' and '.'`,
    );
  }
  if (typeof definition.handler !== 'function')
    throw definitionError(`tool "${name}": handler must be a function`);
  checkRequiredScopes(definition.requiredScopes, `tool "${name}"`);
  const input = compileSchema(definition.inputSchema ?? EMPTY_OBJECT_SCHEMA, `tool "${name}" inputSchema`);
  if (input.json.type !== 'object') {
    throw definitionError(`tool "${name}": inputSchema must have type "object" at its root`);
  }
  const output = definition.outputSchema
    ? compileSchema(definition.outputSchema, `tool "${name}" outputSchema`)
    : undefined;
  const listing: Record<string, unknown> = { name, inputSchema: input.json };
  if (definition.title !== undefined) listing.title = definition.title;
  if (definition.description !== undefined) listing.description = definition.description;
  if (output) listing.outputSchema = output.json;
  if (definition.annotations) listing.annotations = definition.annotations;
  if (definition.icons) listing.icons = definition.icons;
  if (definition._meta) listing._meta = definition._meta;
  const task = definition.task ?? 'never';
  if (!TASK_SUPPORT.includes(task)) {
    throw definitionError(`tool "${name}": task must be one of ${TASK_SUPPORT.join(', ')}`);
  }
  const { taskAfterMs } = definition;
  if (taskAfterMs !== undefined && (!Number.isSafeInteger(taskAfterMs) || taskAfterMs < 0)) {
    throw definitionError(`tool "${name}": taskAfterMs must be a non-negative integer (ms)`);
  }
  const uiListing = definition.ui
    ? Object.freeze({ ...listing, _meta: { ...definition._meta, ...toolUiMeta(definition.ui) } })
    : Object.freeze(listing);
  return Object.freeze({
    name,
    definition,
    input,
    output,
    listing: Object.freeze(listing),
    uiListing,
    task,
    taskAfterMs,
  });
}

/** Normalizes a handler's return value; adds the JSON text block a structured result SHOULD carry. */
export function normalizeToolResult(value: ToolReturn): CallToolResult {
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  if (typeof value !== 'object' || value === null) {
    throw new TypeError('a tool handler must return a string or an object with content');
  }
  const noContent =
    value.content === undefined || (Array.isArray(value.content) && value.content.length === 0);
  if (noContent || !Array.isArray(value.content)) {
    if (noContent && 'structuredContent' in value) {
      const text = JSON.stringify(value.structuredContent) ?? 'null';
      return { ...value, content: [{ type: 'text', text }] };
    }
    throw new TypeError('a tool result must have a content array');
  }
  return value;
}

export function errorToolResult(error: unknown): CallToolResult {
  const message = error instanceof Error ? error.message : String(error);
  const content: ContentBlock[] = [{ type: 'text', text: message || 'Tool failed' }];
  return { content, isError: true };
}
