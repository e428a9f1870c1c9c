import { visible } from '../auth/scopes.js';
import { withContextField } from '../dispatch/job-signal.js';
import type { OperationCall } from '../dispatch/operation.js';
import { ProtocolError } from '../errors/protocol-error.js';
import type { CacheHint, CacheScope } from '../protocol/types.js';
import { declaresExtension } from '../router/extension.js';
import { paginate } from '../router/pagination.js';
import { type ResourceTemplate, toContents } from '../router/resource.js';
import type { Runtime } from '../router/runtime.js';
import { UI_EXTENSION, UI_MIME_TYPE } from '../router/ui.js';
import { compareTemplatePrecedence } from '../router/uri-template.js';

export function listResources(call: OperationCall): Record<string, unknown> {
  const page = paginate(
    visible(call.runtime.resourceList, call.grantedScopes),
    call.params.cursor,
    call.runtime.pageSize,
  );
  const result: Record<string, unknown> = {
    resources: page.items.map((item) =>
      item.listing.mimeType === UI_MIME_TYPE &&
      !declaresExtension(call.selection.clientCapabilities, UI_EXTENSION)
        ? { ...item.listing, mimeType: 'text/html' }
        : item.listing,
    ),
    ...listHint(page.items.map((item) => item.definition.cache)),
  };
  if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
  return result;
}

export function listResourceTemplates(call: OperationCall): Record<string, unknown> {
  const page = paginate(
    visible(call.runtime.templateList, call.grantedScopes),
    call.params.cursor,
    call.runtime.pageSize,
  );
  const result: Record<string, unknown> = {
    resourceTemplates: page.items.map((item) => item.listing),
    ...listHint(page.items.map((item) => item.definition.cache)),
  };
  if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
  return result;
}

export async function readResource(call: OperationCall): Promise<Record<string, unknown>> {
  const { uri } = call.params;
  if (typeof uri !== 'string' || uri === '')
    throw ProtocolError.invalidParams('resources/read needs params.uri (a string)');
  if (uri.length > call.runtime.maxUriLength) {
    throw ProtocolError.invalidParams(`uri is longer than ${call.runtime.maxUriLength} characters`, {
      maxLength: call.runtime.maxUriLength,
    });
  }
  const exact = call.runtime.resources.get(uri);
  if (exact) {
    const value = await exact.definition.read(call.context);
    return { contents: toContents(value, uri, exact.definition.mimeType), ...hint(exact.definition.cache) };
  }
  const found = matchTemplate(call.runtime, uri);
  if (!found) throw ProtocolError.resourceNotFound(uri);
  const { template, variables } = found;
  const value = await template.definition.read(variables, withContextField(call.context, 'uri', uri));
  return {
    contents: toContents(value, uri, template.definition.mimeType),
    ...hint(template.definition.cache),
  };
}

/**
 * The template serving a URI. Templates are kept sorted by precedence (more literal characters,
 * then fewer `{+var}`, then fewer variables, then template text), so the first match wins and the
 * result never depends on definition order.
 */
export function matchTemplate(
  runtime: Runtime,
  uri: string,
): { template: ResourceTemplate; variables: Record<string, string> } | undefined {
  if (uri.length > runtime.maxUriLength) return undefined;
  for (const template of runtime.templatesByPrecedence) {
    const variables = template.template.match(uri);
    if (variables) return { template, variables };
  }
  return undefined;
}

export function sortByPrecedence(templates: readonly ResourceTemplate[]): readonly ResourceTemplate[] {
  return Object.freeze([...templates].sort((a, b) => compareTemplatePrecedence(a.template, b.template)));
}

function hint(cache: CacheHint | undefined): CacheHint {
  if (!cache) return {};
  const out: CacheHint = {};
  if (cache.ttlMs !== undefined) out.ttlMs = cache.ttlMs;
  if (cache.cacheScope !== undefined) out.cacheScope = cache.cacheScope;
  return out;
}

/** A list's hint from its items': the smallest ttlMs, and private if any item is private. */
function listHint(hints: readonly (CacheHint | undefined)[]): CacheHint {
  const out: CacheHint = {};
  for (const item of hints) {
    if (item?.ttlMs !== undefined)
      out.ttlMs = out.ttlMs === undefined ? item.ttlMs : Math.min(out.ttlMs, item.ttlMs);
    if (item?.cacheScope === 'private') out.cacheScope = 'private' satisfies CacheScope;
  }
  return out;
}
