import { ProtocolError } from '../errors/protocol-error.js';
import {
  compileSchema,
  describeIssues,
  MAX_REPORTED_ISSUES,
  pointer,
  type SchemaIssue,
} from '../router/schema.js';
import type { InputRequest } from './input.js';

const ACTIONS: ReadonlySet<unknown> = new Set(['accept', 'decline', 'cancel']);
const ROLES: ReadonlySet<unknown> = new Set(['user', 'assistant']);
/** The first revision whose `CreateMessageResult.content` may be an array of blocks. */
const SAMPLING_CONTENT_ARRAYS = '2025-11-25';

/**
 * Checks the client's answer to one input request before the handler sees it, on both eras (an
 * MRTR retry's `inputResponses` value, or the result of a server-initiated request):
 *
 *   elicitation/create      `ElicitResult`: `action` one of accept/decline/cancel; an accepted form
 *                           carries `content` (form values only) valid against `requestedSchema`.
 *                           Content of any other answer is dropped, so the handler sees none.
 *   sampling/createMessage  `CreateMessageResult`: `role` user/assistant, `model` a string,
 *                           `content` a content block (or, from 2025-11-25, an array of them).
 *   roots/list              `ListRootsResult`: `roots` an array of `{ uri: string, name?: string }`.
 *
 * Returns what the handler receives; an invalid answer throws -32602 naming `key` and the paths.
 */
export async function checkAnswer(
  key: string,
  request: InputRequest,
  answer: unknown,
  version: string,
): Promise<Record<string, unknown>> {
  const issues: SchemaIssue[] = [];
  let checked: Record<string, unknown> | undefined;
  if (!isObject(answer)) {
    issues.push({ path: '', message: `must be an object (the ${RESULT[request.method]})` });
  } else if (request.method === 'elicitation/create') {
    checked = await checkElicitResult(request.params, answer, issues);
  } else if (request.method === 'sampling/createMessage') {
    checkCreateMessageResult(answer, version, issues);
    checked = answer;
  } else {
    checkListRootsResult(answer, issues);
    checked = answer;
  }
  if (checked === undefined || issues.length > 0) {
    throw ProtocolError.invalidParams(
      `Invalid answer to input request "${key}" (${request.method}): ${describeIssues(issues)}`,
      { key, method: request.method, issues: issues.slice(0, MAX_REPORTED_ISSUES) },
    );
  }
  return checked;
}

const RESULT: Record<InputRequest['method'], string> = {
  'elicitation/create': 'ElicitResult',
  'sampling/createMessage': 'CreateMessageResult',
  'roots/list': 'ListRootsResult',
};

async function checkElicitResult(
  params: Record<string, unknown> | undefined,
  answer: Record<string, unknown>,
  issues: SchemaIssue[],
): Promise<Record<string, unknown> | undefined> {
  if (!ACTIONS.has(answer.action)) {
    issues.push({ path: '/action', message: 'must be "accept", "decline" or "cancel"' });
    return undefined;
  }
  if (answer.action !== 'accept' || params?.mode === 'url') {
    if (!('content' in answer)) return answer;
    const { content: _dropped, ...rest } = answer;
    return rest;
  }
  const { content } = answer;
  if (!isObject(content)) {
    issues.push({ path: '/content', message: 'an accepted form answer must carry content (an object)' });
    return undefined;
  }
  for (const [name, value] of Object.entries(content)) {
    if (!isFormValue(value)) {
      issues.push({
        path: `/content${pointer([name])}`,
        message: 'must be a string, number, boolean or array of strings',
      });
    }
  }
  const schema = params?.requestedSchema;
  if (isObject(schema)) {
    const result = await compileSchema(schema, 'requestedSchema').validate(content);
    if (!result.ok) {
      for (const issue of result.issues)
        issues.push({ path: `/content${issue.path}`, message: issue.message });
    }
  }
  return answer;
}

function checkCreateMessageResult(answer: Record<string, unknown>, version: string, issues: SchemaIssue[]) {
  if (!ROLES.has(answer.role)) issues.push({ path: '/role', message: 'must be "user" or "assistant"' });
  if (typeof answer.model !== 'string') issues.push({ path: '/model', message: 'must be a string' });
  if (answer.stopReason !== undefined && typeof answer.stopReason !== 'string')
    issues.push({ path: '/stopReason', message: 'must be a string' });
  const { content } = answer;
  if (Array.isArray(content) && version >= SAMPLING_CONTENT_ARRAYS) {
    content.forEach((block, index) => {
      if (!isContentBlock(block)) issues.push({ path: `/content/${index}`, message: CONTENT_BLOCK });
    });
  } else if (!isContentBlock(content)) {
    issues.push({ path: '/content', message: CONTENT_BLOCK });
  }
}

const CONTENT_BLOCK = 'must be a content block (an object with a string type)';

function checkListRootsResult(answer: Record<string, unknown>, issues: SchemaIssue[]) {
  const { roots } = answer;
  if (!Array.isArray(roots)) {
    issues.push({ path: '/roots', message: 'must be an array' });
    return;
  }
  roots.forEach((root, index) => {
    if (!isObject(root) || typeof root.uri !== 'string')
      issues.push({ path: `/roots/${index}/uri`, message: 'must be a string' });
    else if (root.name !== undefined && typeof root.name !== 'string')
      issues.push({ path: `/roots/${index}/name`, message: 'must be a string' });
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isContentBlock(value: unknown): boolean {
  return isObject(value) && typeof value.type === 'string';
}

/** A value of an accepted form: `string | number | boolean | string[]`. */
function isFormValue(value: unknown): boolean {
  if (Array.isArray(value)) return value.every((item) => typeof item === 'string');
  return (
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}
