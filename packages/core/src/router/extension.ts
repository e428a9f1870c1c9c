import type { HandlerContext } from '../dispatch/context.js';
import { definitionError } from '../errors/snodo-error.js';

export type ExtensionMethod = (
  params: Record<string, unknown>,
  context: HandlerContext,
) => Record<string, unknown> | Promise<Record<string, unknown>>;

export interface ExtensionDefinition {
  /** Advertised in `capabilities.extensions[id]` (`{}` when absent). */
  settings?: Record<string, unknown>;
  /** Methods this extension adds, routed only for requests whose client declared the extension. */
  methods?: Record<string, ExtensionMethod>;
}

export interface Extension {
  readonly id: string;
  readonly settings: Record<string, unknown>;
  readonly methods: ReadonlyMap<string, ExtensionMethod>;
}

/** `_meta` key grammar with its mandatory prefix: dot-separated labels, '/', then a name. */
const EXTENSION_ID =
  /^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\/[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

export function compileExtension(
  id: string,
  definition: ExtensionDefinition,
  coreMethods: ReadonlySet<string>,
): Extension {
  if (!EXTENSION_ID.test(id)) {
    throw definitionError(
      `extension id "${id}" must be "<prefix>/<name>", e.g. "com.example/search" (the prefix is required)`,
    );
  }
  const methods = new Map<string, ExtensionMethod>();
  for (const [method, handler] of Object.entries(definition?.methods ?? {})) {
    if (coreMethods.has(method))
      throw definitionError(`extension "${id}": method "${method}" is a core MCP method`);
    if (typeof handler !== 'function')
      throw definitionError(`extension "${id}": method "${method}" must be a function`);
    methods.set(method, handler);
  }
  return Object.freeze({ id, settings: definition?.settings ?? {}, methods });
}

/** Whether the client declared `id` (in `capabilities.extensions`, or `experimental` on older revisions). */
export function declaresExtension(capabilities: Record<string, unknown>, id: string): boolean {
  const extensions = capabilities.extensions as Record<string, unknown> | undefined;
  const experimental = capabilities.experimental as Record<string, unknown> | undefined;
  return (extensions?.[id] ?? experimental?.[id]) !== undefined;
}
