import { DIALECTS, dialectFor } from '../dialects/registry.js';
import { importKeyring, KEY_NAME, randomKeyring, type StateKeyring } from '../dispatch/request-state.js';
import { definitionError } from '../errors/table.js';
import {
  DEFAULT_CACHE_SCOPE,
  DEFAULT_MAX_INPUT_ROUNDS,
  DEFAULT_MAX_RESERVED_EXPRESSIONS,
  DEFAULT_MAX_URI_LENGTH,
  DEFAULT_PAGE_SIZE,
  DEFAULT_REQUEST_STATE_TTL_MS,
  DEFAULT_TTL_MS,
  MAX_MRTR_KEYS,
  MIN_MRTR_SECRET_BYTES,
} from '../limits/defaults.js';
import { enumOf, nonNegativeInteger, option, positiveInteger } from '../limits/validate.js';
import { sortByPrecedence } from '../ops/resources.js';
import {
  type CacheHint,
  type Implementation,
  type ProtocolVersion,
  type ServerCapabilities,
  SUPPORTED_VERSIONS,
} from '../protocol/types.js';
import type { ChangeHub } from '../subscriptions/hub.js';
import { TaskManager } from '../tasks/manager.js';
import { TASKS_EXTENSION } from '../tasks/wire.js';
import { checkObservers, type ErrorHook } from '../telemetry/hooks.js';
import type { Logger } from '../telemetry/log.js';
import { loadOtel } from '../telemetry/otel.js';
import { compileExtension, type Extension, type ExtensionDefinition } from './extension.js';
import { compilePrompt, type PromptDefinition } from './prompt.js';
import {
  compileResource,
  compileTemplate,
  type ResourceDefinition,
  type ResourceTemplateDefinition,
} from './resource.js';
import type { Instructions, MrtrConfig, Runtime } from './runtime.js';
import { compileTool, type Tool, type ToolDefinition } from './tool.js';
import { UI_EXTENSION, UI_MIME_TYPE } from './ui.js';

export interface ServerDefinition {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: unknown[];
  /** Guidance for the model: a string, or a function of the request (revision, client, principal). */
  instructions?: Instructions;
  tools?: ToolDefinition[];
  resources?: ResourceDefinition[];
  resourceTemplates?: ResourceTemplateDefinition[];
  prompts?: PromptDefinition[];
  /** Server extensions (`capabilities.extensions`), routed only for clients that declare them. */
  extensions?: Record<string, ExtensionDefinition>;
  /**
   * The change hub the application notifies (`createChangeHub()`). With one, the server declares
   * `listChanged` for its tools, prompts and resources and `resources.subscribe`.
   */
  hub?: ChangeHub;
  /**
   * Run tool calls as tasks (the Tasks extension, `io.modelcontextprotocol/tasks`, 2026-07-28): a
   * `createTaskManager()`. The server then declares the extension and serves `tasks/get`,
   * `tasks/update`, `tasks/cancel` and `notifications/tasks`; tools opt in with `task`. Close the
   * manager when the server stops.
   */
  tasks?: TaskManager;
  /** MRTR `requestState` protection. */
  mrtr?: {
    /**
     * HMAC key (at least 32 bytes): the one-key ring `[{ name: 'default', secret }]`. Default:
     * random per `createServer` call, which is right for one process; servers behind a load
     * balancer must share their keys (this or `keys`).
     */
    secret?: Uint8Array | string;
    /**
     * The keyring, 1 to 8 named keys (names `[A-Za-z0-9_-]{1,64}`, unique; secrets at least 32
     * bytes): the first signs new states, every key verifies. A state carries its key's name. To
     * rotate with no failed request: add the new key second everywhere, then move it first, then
     * drop the old one (core README, "Rotating the MRTR key"). Not with `secret`.
     */
    keys?: readonly MrtrKey[];
    /** Lifetime of an issued `requestState`; default 600,000 ms. */
    stateTtlMs?: number;
    /** Input rounds one request may take; default 8. */
    maxRounds?: number;
  };
  /** Items per list page; default 100. */
  pageSize?: number;
  /** Longest URI `resources/read` accepts (default 4,096; longer is -32602). */
  maxUriLength?: number;
  /** Most `{+var}` expressions a resource template may have (default 2; bounds matching cost). */
  maxReservedExpressions?: number;
  /** `ttlMs` / `cacheScope` of cacheable 2026-07-28 results; default 60,000 ms, private. */
  cache?: CacheHint;
  /** Restrict the revisions served (default: all of 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26). */
  protocolVersions?: ProtocolVersion[];
  /** Declare the `logging` capability (default true): handlers' `log` reaches clients that ask. */
  logging?: boolean;
  /**
   * Called once for each error the client sees only as -32603 (a resource or prompt handler that
   * threw, a tool's broken output) or as an `isError` tool result (a tool handler that threw).
   */
  onError?: ErrorHook;
  /** A pino-compatible logger (`info`/`warn`/`error`, object first): lifecycle events, and errors when no `onError`. */
  logger?: Logger;
}

/** One key of the MRTR keyring (`mrtr.keys`). */
export interface MrtrKey {
  readonly name: string;
  readonly secret: Uint8Array | string;
}

/** Validates a server definition once and returns the immutable runtime every transport serves. */
export function createServer(definition: ServerDefinition): Runtime {
  if (typeof definition !== 'object' || definition === null)
    throw definitionError('createServer needs a definition');
  if (typeof definition.name !== 'string' || definition.name === '')
    throw definitionError('name must be a non-empty string');
  if (typeof definition.version !== 'string' || definition.version === '') {
    throw definitionError('version must be a non-empty string');
  }
  const versions = selectVersions(definition.protocolVersions);
  const tools = compileTools(definition.tools ?? []);
  const resources = compileAll(definition.resources, 'resources', compileResource, (r) => r.uri);
  const templates = compileAll(
    definition.resourceTemplates,
    'resourceTemplates',
    (item: ResourceTemplateDefinition) =>
      compileTemplate(
        item,
        positiveInteger(
          'maxReservedExpressions',
          definition.maxReservedExpressions,
          DEFAULT_MAX_RESERVED_EXPRESSIONS,
        ),
      ),
    (t) => t.template.template,
  );
  const prompts = compileAll(definition.prompts, 'prompts', compilePrompt, (p) => p.name);
  const extensions = compileExtensions(definition.extensions, definition.tasks);
  for (const tool of tools.list) {
    if (tool.task === 'always' && definition.tasks === undefined) {
      throw definitionError(
        `tool "${tool.name}" has task: 'always' but the server has no tasks (createTaskManager)`,
      );
    }
  }
  const hub = definition.hub;
  const serverInfo: Implementation = { name: definition.name, version: definition.version };
  if (definition.title !== undefined) serverInfo.title = definition.title;
  if (definition.description !== undefined) serverInfo.description = definition.description;
  if (definition.websiteUrl !== undefined) serverInfo.websiteUrl = definition.websiteUrl;
  if (definition.icons !== undefined) serverInfo.icons = definition.icons;

  const capabilities: ServerCapabilities = {};
  if (definition.logging !== false) capabilities.logging = {};
  const listChanged = hub !== undefined;
  if (tools.list.length > 0) capabilities.tools = listChanged ? { listChanged } : {};
  if (prompts.list.length > 0) capabilities.prompts = listChanged ? { listChanged } : {};
  if (resources.list.length > 0 || templates.list.length > 0) {
    capabilities.resources = listChanged ? { subscribe: true, listChanged } : {};
  }
  const completes =
    prompts.list.some((p) => p.definition.complete !== undefined) ||
    templates.list.some((t) => t.definition.complete !== undefined);
  if (completes) capabilities.completions = {};
  const hasUi =
    resources.list.some((r) => r.definition.mimeType === UI_MIME_TYPE) ||
    tools.list.some((t) => t.definition.ui);
  if (hasUi && !extensions.byId.has(UI_EXTENSION)) {
    extensions.byId.set(
      UI_EXTENSION,
      compileExtension(UI_EXTENSION, { settings: { mimeTypes: [UI_MIME_TYPE] } }, CORE_METHODS),
    );
  }
  if (extensions.byId.size > 0) {
    capabilities.extensions = Object.fromEntries(
      [...extensions.byId.values()].map((e) => [e.id, e.settings]),
    );
  }
  if (
    definition.instructions !== undefined &&
    typeof definition.instructions !== 'string' &&
    typeof definition.instructions !== 'function'
  ) {
    throw definitionError('instructions must be a string or a function');
  }
  checkObservers(definition.onError, definition.logger);
  // Start importing @opentelemetry/api (if installed) now, so the first request does not wait for it.
  void loadOtel();

  return Object.freeze({
    serverInfo: Object.freeze(serverInfo),
    versions,
    modernVersions: versions.filter((v) => dialectFor(v)?.era === 'modern'),
    legacyVersions: versions.filter((v) => dialectFor(v)?.era === 'legacy'),
    instructions: definition.instructions,
    capabilities: Object.freeze(capabilities),
    tools: tools.byName,
    toolList: tools.list,
    resources: resources.byKey,
    resourceList: resources.list,
    templateList: templates.list,
    templatesByPrecedence: sortByPrecedence(templates.list),
    prompts: prompts.byKey,
    promptList: prompts.list,
    extensions: extensions.byId,
    extensionMethods: extensions.byMethod,
    hub,
    ...(definition.tasks === undefined ? {} : { tasks: definition.tasks }),
    ...(definition.onError === undefined ? {} : { onError: definition.onError }),
    ...(definition.logger === undefined ? {} : { logger: definition.logger }),
    mrtr: mrtrConfig(definition.mrtr),
    pageSize: positiveInteger('pageSize', definition.pageSize, DEFAULT_PAGE_SIZE),
    maxUriLength: positiveInteger('maxUriLength', definition.maxUriLength, DEFAULT_MAX_URI_LENGTH),
    shaping: Object.freeze({
      serverInfo,
      ttlMs: nonNegativeInteger('cache.ttlMs', definition.cache?.ttlMs, DEFAULT_TTL_MS),
      cacheScope: option<'public' | 'private'>(
        'cache.cacheScope',
        definition.cache?.cacheScope,
        enumOf('public', 'private'),
        DEFAULT_CACHE_SCOPE,
      ),
    }),
  });
}

function selectVersions(requested: ProtocolVersion[] | undefined): readonly ProtocolVersion[] {
  if (requested === undefined) return SUPPORTED_VERSIONS;
  if (!Array.isArray(requested) || requested.length === 0) {
    throw definitionError(`protocolVersions must be a non-empty array of ${SUPPORTED_VERSIONS.join(', ')}`);
  }
  for (const version of requested) {
    if (!SUPPORTED_VERSIONS.includes(version)) {
      throw definitionError(
        `protocolVersions: unknown revision ${JSON.stringify(version)}; known: ${SUPPORTED_VERSIONS.join(', ')}`,
      );
    }
  }
  return Object.freeze(SUPPORTED_VERSIONS.filter((version) => requested.includes(version)));
}

function compileTools(definitions: ToolDefinition[]): {
  byName: ReadonlyMap<string, Tool>;
  list: readonly Tool[];
} {
  if (!Array.isArray(definitions)) throw definitionError('tools must be an array');
  const byName = new Map<string, Tool>();
  for (const definition of definitions) {
    const compiled = compileTool(definition);
    if (byName.has(compiled.name)) throw definitionError(`duplicate tool name "${compiled.name}"`);
    byName.set(compiled.name, compiled);
  }
  const list = Object.freeze(
    [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
  );
  return { byName, list };
}

function compileAll<D, T>(
  definitions: D[] | undefined,
  what: string,
  compile: (definition: D) => T,
  keyOf: (item: T) => string,
): { byKey: ReadonlyMap<string, T>; list: readonly T[] } {
  if (definitions !== undefined && !Array.isArray(definitions))
    throw definitionError(`${what} must be an array`);
  const byKey = new Map<string, T>();
  for (const definition of definitions ?? []) {
    const item = compile(definition);
    const key = keyOf(item);
    if (byKey.has(key)) throw definitionError(`${what}: duplicate ${JSON.stringify(key)}`);
    byKey.set(key, item);
  }
  const list = Object.freeze(
    [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, item]) => item),
  );
  return { byKey, list };
}

const CORE_METHODS: ReadonlySet<string> = new Set(DIALECTS.flatMap((dialect) => [...dialect.methods.keys()]));

function compileExtensions(
  definitions: Record<string, ExtensionDefinition> | undefined,
  tasks: TaskManager | undefined,
) {
  const byId = new Map<string, Extension>();
  const byMethod = new Map<string, Extension>();
  const all = Object.entries(definitions ?? {});
  if (tasks !== undefined) {
    if (!TaskManager.is(tasks)) throw definitionError('tasks must be a TaskManager (createTaskManager())');
    if (definitions?.[TASKS_EXTENSION] !== undefined) {
      throw definitionError(`extension "${TASKS_EXTENSION}" comes from tasks; do not define it`);
    }
    all.push([TASKS_EXTENSION, tasks.extension()]);
  }
  for (const [id, definition] of all) {
    const extension = compileExtension(id, definition, CORE_METHODS);
    for (const method of extension.methods.keys()) {
      const owner = byMethod.get(method);
      if (owner) throw definitionError(`extensions "${owner.id}" and "${id}" both define method "${method}"`);
      byMethod.set(method, extension);
    }
    byId.set(id, extension);
  }
  return { byId, byMethod };
}

function mrtrConfig(options: ServerDefinition['mrtr']): MrtrConfig {
  const keys = mrtrKeyring(options);
  keys.catch(() => undefined);
  return Object.freeze({
    keys,
    stateTtlMs: positiveInteger('mrtr.stateTtlMs', options?.stateTtlMs, DEFAULT_REQUEST_STATE_TTL_MS),
    maxRounds: positiveInteger('mrtr.maxRounds', options?.maxRounds, DEFAULT_MAX_INPUT_ROUNDS),
  });
}

/** `mrtr.keys`, or `mrtr.secret` as the one-key ring named "default", or a random key. */
function mrtrKeyring(options: ServerDefinition['mrtr']): Promise<StateKeyring> {
  const { secret, keys } = options ?? {};
  if (secret !== undefined && keys !== undefined) {
    throw definitionError('mrtr: give secret (one key) or keys (a keyring), not both');
  }
  if (secret !== undefined)
    return importKeyring([{ name: 'default', secret: secretBytes('mrtr.secret', secret) }]);
  if (keys === undefined) return randomKeyring();
  if (!Array.isArray(keys) || keys.length === 0 || keys.length > MAX_MRTR_KEYS) {
    throw definitionError(`mrtr.keys must be an array of 1 to ${MAX_MRTR_KEYS} keys`);
  }
  const entries: { name: string; secret: Uint8Array }[] = [];
  for (const [index, key] of (keys as readonly MrtrKey[]).entries()) {
    const name = (key as Partial<MrtrKey> | null)?.name;
    if (typeof name !== 'string' || !KEY_NAME.test(name)) {
      throw definitionError(
        `mrtr.keys[${index}].name must match ${KEY_NAME.source}, got ${JSON.stringify(name)}`,
      );
    }
    if (entries.some((entry) => entry.name === name)) {
      throw definitionError(`mrtr.keys: duplicate name ${JSON.stringify(name)}`);
    }
    entries.push({ name, secret: secretBytes(`mrtr.keys[${index}].secret`, key.secret) });
  }
  return importKeyring(entries);
}

function secretBytes(what: string, secret: unknown): Uint8Array {
  const bytes = typeof secret === 'string' ? new TextEncoder().encode(secret) : secret;
  if (!(bytes instanceof Uint8Array) || bytes.length < MIN_MRTR_SECRET_BYTES) {
    throw definitionError(`${what} must be at least ${MIN_MRTR_SECRET_BYTES} bytes`);
  }
  return bytes;
}
