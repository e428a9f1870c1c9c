import { definitionError } from '../errors/table.js';
import { matchTemplate } from '../ops/resources.js';
import type { Runtime } from '../router/runtime.js';

/**
 * `requiredScopes` of tools, prompts and resources: a call needs every scope its target lists, and
 * lists show a caller only what it may call. They apply where requests carry verified scopes: on
 * HTTP (every host), where an anonymous request has none. stdio and in-process dispatch are
 * trusted local channels (the MCP authorization spec leaves stdio out) and are not filtered.
 */
export interface Scoped {
  readonly definition: { readonly requiredScopes?: readonly string[] | undefined };
}

/** A scope token (RFC 6749 §3.3): printable ASCII without space, `"` or `\`. */
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** A definition's `requiredScopes` must be scope tokens (RFC 6749 §3.3). */
export function checkRequiredScopes(value: unknown, what: string): void {
  if (value === undefined) return;
  if (!isScopeList(value)) {
    throw definitionError(
      `${what}: requiredScopes must be an array of scope tokens (no spaces, quotes or backslashes)`,
    );
  }
}

export function isScopeList(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every((scope) => typeof scope === 'string' && SCOPE.test(scope));
}

/** The scopes of `required` that `granted` lacks (none when `required` is empty). */
export function missingScopes(
  required: readonly string[] | undefined,
  granted: ReadonlySet<string>,
): readonly string[] {
  if (required === undefined || required.length === 0) return [];
  return required.filter((scope) => !granted.has(scope));
}

/** `items` a caller with `granted` may see; all of them when the request is not scope-checked. */
export function visible<T extends Scoped>(
  items: readonly T[],
  granted: ReadonlySet<string> | undefined,
): readonly T[] {
  if (granted === undefined) return items;
  return items.filter((item) => missingScopes(item.definition.requiredScopes, granted).length === 0);
}

/**
 * The scopes a request's target requires: the tool of `tools/call`, the prompt of `prompts/get`,
 * the resource (or the template serving the URI) of `resources/read` and `resources/subscribe`,
 * the prompt or template of `completion/complete`. Undefined when the target is unknown (the
 * operation reports that) or the method has no target.
 */
export function requiredScopesOf(
  runtime: Runtime,
  method: string,
  params: Record<string, unknown> | undefined,
): readonly string[] | undefined {
  switch (method) {
    case 'tools/call':
      return typeof params?.name === 'string'
        ? runtime.tools.get(params.name)?.definition.requiredScopes
        : undefined;
    case 'prompts/get':
      return typeof params?.name === 'string'
        ? runtime.prompts.get(params.name)?.definition.requiredScopes
        : undefined;
    case 'resources/read':
    case 'resources/subscribe': {
      const uri = params?.uri;
      if (typeof uri !== 'string') return undefined;
      return (runtime.resources.get(uri) ?? matchTemplate(runtime, uri)?.template)?.definition.requiredScopes;
    }
    case 'completion/complete': {
      const ref = params?.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
      if (ref?.type === 'ref/prompt' && typeof ref.name === 'string')
        return runtime.prompts.get(ref.name)?.definition.requiredScopes;
      if (ref?.type === 'ref/resource' && typeof ref.uri === 'string')
        return runtime.templateList.find((item) => item.template.template === ref.uri)?.definition
          .requiredScopes;
      return undefined;
    }
    default:
      return undefined;
  }
}

/** Every scope the runtime's tools, prompts, resources and templates require, sorted. */
export function declaredScopes(runtime: Runtime): readonly string[] {
  const scopes = new Set<string>();
  const lists: readonly (readonly Scoped[])[] = [
    runtime.toolList,
    runtime.promptList,
    runtime.resourceList,
    runtime.templateList,
  ];
  for (const list of lists)
    for (const item of list) for (const scope of item.definition.requiredScopes ?? []) scopes.add(scope);
  return [...scopes].sort();
}
