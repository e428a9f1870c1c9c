import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import { expect } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../../spec/mcp-schema/', import.meta.url));
const SPEC = fileURLToPath(new URL('../../../../spec/', import.meta.url));
type Validator = {
  validate(schema: object, value: unknown): boolean;
  errorsText(errors?: unknown): string;
  errors?: unknown;
};
const cache = new Map<string, { ajv: Validator; defs: string }>();

function load(revision: string) {
  let entry = cache.get(revision);
  if (!entry) {
    const file = revision === 'ext-tasks' ? `${SPEC}ext-tasks/schema.json` : `${ROOT}${revision}/schema.json`;
    const schema = JSON.parse(readFileSync(file, 'utf8'));
    const modern = typeof schema.$schema === 'string' && schema.$schema.includes('2020-12');
    const AjvClass = (modern ? Ajv2020 : Ajv) as unknown as new (
      options: object,
    ) => Validator & {
      addSchema(schema: object, key: string): void;
    };
    const ajv = new AjvClass({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema(schema, 'mcp');
    entry = { ajv, defs: modern ? '$defs' : 'definitions' };
    cache.set(revision, entry);
  }
  return entry;
}

/** Asserts `value` is a valid `definition` (e.g. 'CallToolResult') of that revision's official schema. */
export function expectSchema(revision: string, definition: string, value: unknown): void {
  const { ajv, defs } = load(revision);
  const ok = ajv.validate({ $ref: `mcp#/${defs}/${definition}` }, value);
  expect(ok, `${revision} ${definition}: ${ajv.errorsText(ajv.errors)}\n${JSON.stringify(value)}`).toBe(true);
}

const RESULT_BY_METHOD: Record<string, string> = {
  initialize: 'InitializeResult',
  ping: 'EmptyResult',
  'server/discover': 'DiscoverResult',
  'tools/list': 'ListToolsResult',
  'tools/call': 'CallToolResult',
  'prompts/list': 'ListPromptsResult',
  'prompts/get': 'GetPromptResult',
  'resources/list': 'ListResourcesResult',
  'resources/templates/list': 'ListResourceTemplatesResult',
  'resources/read': 'ReadResourceResult',
  'completion/complete': 'CompleteResult',
  'logging/setLevel': 'EmptyResult',
  'resources/subscribe': 'EmptyResult',
  'resources/unsubscribe': 'EmptyResult',
  'subscriptions/listen': 'SubscriptionsListenResult',
};

/** The Tasks extension's results, checked against its own schema (spec/ext-tasks). */
const TASKS_RESULT_BY_METHOD: Record<string, string> = {
  'tasks/get': 'GetTaskResult',
  'tasks/update': 'UpdateTaskResult',
  'tasks/cancel': 'CancelTaskResult',
};

/**
 * Asserts a JSON-RPC response message is valid for `revision`: the envelope, and the result
 * against the result type of `method` (an `input_required` result against InputRequiredResult, a
 * task handle and the `tasks/*` results against the Tasks extension's schema).
 */
export function expectResponse(revision: string, method: string, message: unknown): void {
  const envelope =
    (message as { error?: unknown }).error !== undefined ? errorEnvelope(revision) : 'JSONRPCResultResponse';
  expectSchema(revision, envelopeName(revision, envelope), message);
  const result = (message as { result?: Record<string, unknown> }).result;
  if (result === undefined) return;
  const tasksResult = result.resultType === 'task' ? 'CreateTaskResult' : TASKS_RESULT_BY_METHOD[method];
  if (tasksResult) {
    expectSchema(TASKS, tasksResult, result);
    return;
  }
  const definition =
    result.resultType === 'input_required' ? 'InputRequiredResult' : RESULT_BY_METHOD[method];
  if (definition) expectSchema(revision, definition, result);
}

/** The pseudo-revision of `expectSchema` naming the Tasks extension's schema. */
export const TASKS = 'ext-tasks';

function errorEnvelope(revision: string): string {
  return revision === '2025-03-26' || revision === '2025-06-18' ? 'JSONRPCError' : 'JSONRPCErrorResponse';
}

function envelopeName(revision: string, name: string): string {
  if (name !== 'JSONRPCResultResponse') return name;
  return revision === '2025-03-26' || revision === '2025-06-18' ? 'JSONRPCResponse' : 'JSONRPCResultResponse';
}
