import { visible } from '../auth/scopes.js';
import type { OperationCall } from '../dispatch/operation.js';
import { ProtocolError } from '../errors/protocol-error.js';
import { paginate } from '../router/pagination.js';
import { toPromptResult } from '../router/prompt.js';

export function listPrompts(call: OperationCall): Record<string, unknown> {
  const page = paginate(
    visible(call.runtime.promptList, call.grantedScopes),
    call.params.cursor,
    call.runtime.pageSize,
  );
  const result: Record<string, unknown> = { prompts: page.items.map((item) => item.listing) };
  if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
  return result;
}

export async function getPrompt(call: OperationCall): Promise<Record<string, unknown>> {
  const { name } = call.params;
  if (typeof name !== 'string') throw ProtocolError.invalidParams('prompts/get needs params.name (a string)');
  const found = call.runtime.prompts.get(name);
  if (!found) throw ProtocolError.invalidParams(`Unknown prompt: ${name}`, { name });
  const raw = call.params.arguments ?? {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw ProtocolError.invalidParams(`Invalid arguments for prompt "${name}": arguments must be an object`);
  }
  const args = raw as Record<string, unknown>;
  for (const [key, value] of Object.entries(args)) {
    if (typeof value !== 'string') {
      throw ProtocolError.invalidParams(`Invalid arguments for prompt "${name}": "${key}" must be a string`, {
        argument: key,
      });
    }
  }
  const missing = (found.definition.arguments ?? [])
    .filter((argument) => argument.required && args[argument.name] === undefined)
    .map((argument) => argument.name);
  if (missing.length > 0) {
    throw ProtocolError.invalidParams(
      `Missing required arguments for prompt "${name}": ${missing.join(', ')}`,
      { missing },
    );
  }
  return toPromptResult(await found.definition.get(args as Record<string, string>, call.context));
}
