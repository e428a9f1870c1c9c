import type { OperationCall } from '../dispatch/operation.js';
import { ProtocolError } from '../errors/protocol-error.js';
import { MAX_COMPLETION_VALUES } from '../limits/defaults.js';
import type { Completer } from '../router/resource.js';

/** `completion/complete` for prompt arguments (`ref/prompt`) and template variables (`ref/resource`). */
export async function complete(call: OperationCall): Promise<Record<string, unknown>> {
  const { ref, argument, context } = call.params as Record<string, any>;
  if (typeof argument?.name !== 'string' || typeof argument?.value !== 'string') {
    throw ProtocolError.invalidParams('completion/complete needs argument.name and argument.value (strings)');
  }
  let completers: Record<string, Completer> | undefined;
  if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') {
    const found = call.runtime.prompts.get(ref.name);
    if (!found) throw ProtocolError.invalidParams(`Unknown prompt: ${ref.name}`, { name: ref.name });
    completers = found.definition.complete;
  } else if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
    const found = call.runtime.templateList.find((item) => item.template.template === ref.uri);
    if (!found) throw ProtocolError.invalidParams(`Unknown resource template: ${ref.uri}`, { uri: ref.uri });
    completers = found.definition.complete;
  } else {
    throw ProtocolError.invalidParams(
      'completion/complete needs ref {type: "ref/prompt", name} or {type: "ref/resource", uri}',
    );
  }
  const completer = completers?.[argument.name];
  const given = context?.arguments;
  const args: Record<string, string> =
    typeof given === 'object' && given !== null && !Array.isArray(given)
      ? (given as Record<string, string>)
      : {};
  const values = completer ? await completer(argument.value, { arguments: args, handler: call.context }) : [];
  const strings = values.filter((value): value is string => typeof value === 'string');
  const completion: Record<string, unknown> = { values: strings.slice(0, MAX_COMPLETION_VALUES) };
  if (strings.length > MAX_COMPLETION_VALUES) {
    completion.total = strings.length;
    completion.hasMore = true;
  }
  return { completion };
}
