import type { AuthInfo, HandlerContext } from '../dispatch/context.js';
import type { Selection } from '../dispatch/select.js';
import { ProtocolError } from '../errors/protocol-error.js';
import { definitionError } from '../errors/table.js';

export type ExtensionMethod = (
  params: Record<string, unknown>,
  context: HandlerContext,
) => Record<string, unknown> | Promise<Record<string, unknown>>;

export interface ExtensionDefinition {
  /** Advertised in `capabilities.extensions[id]` (`{}` when absent). */
  settings?: Record<string, unknown>;
  /** Methods this extension adds, routed only for requests whose client declared the extension. */
  methods?: Record<string, ExtensionMethod>;
  /**
   * What a request for one of `methods` gets when its client did not declare the extension:
   * `method-not-found` (-32601, the default: the method does not exist for that client) or
   * `missing-capability` (-32021 with `data.requiredCapabilities.extensions[id]`, for an extension
   * whose specification asks for it, like the Tasks extension).
   */
  undeclared?: 'method-not-found' | 'missing-capability';
  /** Serve the methods on 2026-07-28 only: on the initialize-based revisions they do not exist (-32601). */
  modernOnly?: boolean;
  /**
   * The param each method's `Mcp-Name` header mirrors on 2026-07-28 HTTP (SEP-2243), e.g.
   * `{ 'tasks/get': 'taskId' }`: a request whose header is missing or differs is refused with -32020.
   */
  nameParams?: Record<string, string>;
  /**
   * Notifications this extension adds to `subscriptions/listen`: called for every listen request
   * with its filter; returns the feed for the filter keys it owns, or undefined when the filter
   * names none of them. May throw a `ProtocolError` (the listen request is then refused with it).
   */
  listen?: (request: ExtensionListenRequest) => Promise<ExtensionListenFeed | undefined>;
}

/** What an extension's `listen` gets. */
export interface ExtensionListenRequest {
  /** The listen request's `params.notifications`, as sent. */
  readonly filter: Readonly<Record<string, unknown>>;
  /** Whether the listen request's client declared this extension. */
  readonly declared: boolean;
  readonly auth: AuthInfo | undefined;
}

/** An extension's part of one open `subscriptions/listen`. */
export interface ExtensionListenFeed {
  /** Filter keys the acknowledgement lists as honoured (e.g. `{ taskIds: [...] }`). */
  readonly honoured: Record<string, unknown>;
  /**
   * Starts delivery after the acknowledgement: `send` queues one notification on the stream (its
   * subscription id is added) and returns false once the stream is gone. Returns the function that
   * stops delivery, called when the stream ends.
   */
  start(send: (method: string, params: Record<string, unknown>) => boolean): () => void;
  /** Drops the feed when the listen request fails before `start` (another extension refused it). */
  cancel(): void;
}

export interface Extension {
  readonly id: string;
  readonly settings: Record<string, unknown>;
  readonly methods: ReadonlyMap<string, ExtensionMethod>;
  readonly undeclared: 'method-not-found' | 'missing-capability';
  readonly modernOnly: boolean;
  readonly nameParams: ReadonlyMap<string, string>;
  readonly listen: ExtensionDefinition['listen'];
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
  const undeclared = definition?.undeclared ?? 'method-not-found';
  if (undeclared !== 'method-not-found' && undeclared !== 'missing-capability') {
    throw definitionError(`extension "${id}": undeclared must be "method-not-found" or "missing-capability"`);
  }
  const nameParams = new Map<string, string>();
  for (const [method, param] of Object.entries(definition?.nameParams ?? {})) {
    if (!methods.has(method) || typeof param !== 'string' || param === '') {
      throw definitionError(
        `extension "${id}": nameParams["${method}"] must name a param of one of its methods`,
      );
    }
    nameParams.set(method, param);
  }
  const listen = definition?.listen;
  if (listen !== undefined && typeof listen !== 'function')
    throw definitionError(`extension "${id}": listen must be a function`);
  return Object.freeze({
    id,
    settings: definition?.settings ?? {},
    methods,
    undeclared,
    modernOnly: definition?.modernOnly === true,
    nameParams,
    listen,
  });
}

/** Whether the client declared `id` (in `capabilities.extensions`, or `experimental` on older revisions). */
export function declaresExtension(capabilities: Record<string, unknown>, id: string): boolean {
  const extensions = capabilities.extensions as Record<string, unknown> | undefined;
  const experimental = capabilities.experimental as Record<string, unknown> | undefined;
  return (extensions?.[id] ?? experimental?.[id]) !== undefined;
}

/** `data.requiredCapabilities` naming one extension (the -32021 of an undeclared extension). */
export function missingExtension(id: string): ProtocolError {
  return ProtocolError.missingCapability({ extensions: { [id]: {} } });
}

/** Why a request for an extension's method is refused on this selection, or undefined when it is routed. */
export function extensionRefusal(
  extension: Extension,
  method: string,
  selection: Selection,
): ProtocolError | undefined {
  if (extension.modernOnly && selection.dialect.era !== 'modern') {
    return ProtocolError.methodNotFound(method, { protocolVersion: selection.dialect.version });
  }
  if (declaresExtension(selection.clientCapabilities, extension.id)) return undefined;
  return extension.undeclared === 'missing-capability'
    ? missingExtension(extension.id)
    : ProtocolError.methodNotFound(method, { requiresExtension: extension.id });
}
