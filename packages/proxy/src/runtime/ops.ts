import type { ChangeEvent, ChangeHub, SubscriptionFilter } from '@snodo/core';
import { ProtocolError } from '@snodo/core';
import { type ListenCall, type Operation, type OperationCall, openListen } from '@snodo/core/internal';
import { type Backend, type BackendStatus, unavailable } from '../backend.js';
import type { Catalog } from '../catalog/catalog.js';
import type { Entry, ListKind, TemplateEntry } from '../catalog/snapshot.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import type { ParkedExchanges } from '../exchange.js';
import { rewritePromptResult, rewriteReadResult, rewriteToolResult } from '../links.js';
import { parseExposedUri } from '../names.js';
import { type AuthorizationPolicy, allowed, type Principal } from '../policy.js';
import { forward } from './forward.js';

/** What the runtime's operations read from the proxy, at each call. */
export interface ProxyCore {
  /** The merged catalog now (immutable: a request keeps the one it read). */
  merged(): Catalog;
  backend(id: string): Backend | undefined;
  /**
   * The backend without an accepted catalog yet (never connected) whose prefix `name` carries:
   * a call to it is "unavailable", not "unknown".
   */
  pendingOwner(name: string): Backend | undefined;
  readonly parked: ParkedExchanges;
  readonly pageSize: number;
  readonly maxInputRounds: number;
  /** Every change: list changes and `updated` events with exposed URIs. */
  readonly changes: ChangeHub;
  aggregate(): BackendStatus;
}

const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';

/** A backend result without what the proxy's own dialect sets (`resultType`, the backend's serverInfo). */
function clean(result: Record<string, unknown>): Record<string, unknown> {
  const { resultType: _, ...rest } = result;
  const meta = rest._meta as Record<string, unknown> | undefined;
  if (meta && SERVER_INFO_KEY in meta) {
    const { [SERVER_INFO_KEY]: __, ...others } = meta;
    if (Object.keys(others).length > 0) rest._meta = others;
    else delete rest._meta;
  }
  return rest;
}

function firstAfter(entries: readonly Entry[], key: string): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((entries[mid] as Entry).key <= key) low = mid + 1;
    else high = mid;
  }
  return low;
}

function objectParam(call: OperationCall, name: string, method: string): Record<string, unknown> {
  const value = call.params[name] ?? {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw ProtocolError.invalidParams(`${method}: ${name} must be an object`);
  }
  return value as Record<string, unknown>;
}

export function operations(
  core: ProxyCore,
  policy: AuthorizationPolicy | undefined,
): Record<string, Operation> {
  const visible = (principal: Principal, entry: Entry) => allowed(policy, 'canList', principal, entry.item);
  const privateLists = policy?.canList !== undefined;

  const list =
    (kind: ListKind, field: string): Operation =>
    (call) => {
      const after = decodeCursor(kind, call.params.cursor);
      const catalog = core.merged();
      const entries = catalog.lists[kind];
      const page: Entry[] = [];
      let nextCursor: string | undefined;
      for (let i = after === undefined ? 0 : firstAfter(entries, after); i < entries.length; i++) {
        const entry = entries[i] as Entry;
        if (!visible(call.auth, entry)) continue;
        if (page.length === core.pageSize) {
          nextCursor = encodeCursor(kind, (page[page.length - 1] as Entry).key);
          break;
        }
        page.push(entry);
      }
      let ttlMs = Number.POSITIVE_INFINITY;
      let cacheScope: 'public' | 'private' = privateLists ? 'private' : 'public';
      for (const id of new Set(page.map((entry) => entry.item.backend))) {
        const hint = catalog.snapshots.get(id)?.hints[kind];
        ttlMs = Math.min(ttlMs, hint?.ttlMs ?? 0);
        if (hint?.cacheScope !== 'public') cacheScope = 'private';
      }
      // Nothing contributed: nothing to say how long it stays true.
      if (page.length === 0) cacheScope = 'private';
      return {
        [field]: page.map((entry) => entry.listing),
        ...(nextCursor === undefined ? {} : { nextCursor }),
        ttlMs: Number.isFinite(ttlMs) ? ttlMs : 0,
        cacheScope,
      };
    };

  const owner = (entry: Entry, unknown: () => ProtocolError): Backend => {
    const backend = core.backend(entry.item.backend);
    if (!backend) throw unknown();
    return backend;
  };

  const callTool: Operation = async (call) => {
    const { name } = call.params;
    if (typeof name !== 'string')
      throw ProtocolError.invalidParams('tools/call needs params.name (a string)');
    const unknown = () => ProtocolError.invalidParams(`Unknown tool: ${name}`, { name });
    const entry = core.merged().tools.get(name);
    if (!entry && core.pendingOwner(name)) throw unavailable(`tool "${name}"`);
    if (!entry || !visible(call.auth, entry)) throw unknown();
    if (!allowed(policy, 'canCall', call.auth, entry.item)) {
      throw ProtocolError.invalidParams(`Tool "${name}" is not allowed for this caller`, {
        name,
        reason: 'forbidden',
      });
    }
    const args = objectParam(call, 'arguments', 'tools/call');
    const backend = owner(entry, unknown);
    // A call whose stream broke may have run: sent again only when the tool says that is harmless.
    const annotations = entry.item.definition.annotations as Record<string, unknown> | undefined;
    const reissue = annotations?.readOnlyHint === true || annotations?.idempotentHint === true;
    const result = await forward(
      {
        backend,
        what: `tool "${name}"`,
        context: call.context,
        parked: core.parked,
        maxInputRounds: core.maxInputRounds,
      },
      (client, options) =>
        client.callTool(entry.item.original, args, { ...options, reissue }) as Promise<
          Record<string, unknown>
        >,
    );
    const { ttlMs: _, cacheScope: __, ...rest } = clean(result);
    return rewriteToolResult(backend.snapshot, rest);
  };

  const getPrompt: Operation = async (call) => {
    const { name } = call.params;
    if (typeof name !== 'string')
      throw ProtocolError.invalidParams('prompts/get needs params.name (a string)');
    const unknown = () => ProtocolError.invalidParams(`Unknown prompt: ${name}`, { name });
    const entry = core.merged().prompts.get(name);
    if (!entry && core.pendingOwner(name)) throw unavailable(`prompt "${name}"`);
    if (!entry || !visible(call.auth, entry)) throw unknown();
    if (!allowed(policy, 'canGet', call.auth, entry.item)) {
      throw ProtocolError.invalidParams(`Prompt "${name}" is not allowed for this caller`, {
        name,
        reason: 'forbidden',
      });
    }
    const args = objectParam(call, 'arguments', 'prompts/get');
    for (const [key, value] of Object.entries(args)) {
      if (typeof value !== 'string') {
        throw ProtocolError.invalidParams(
          `Invalid arguments for prompt "${name}": "${key}" must be a string`,
          { argument: key },
        );
      }
    }
    const backend = owner(entry, unknown);
    const result = await forward(
      {
        backend,
        what: `prompt "${name}"`,
        context: call.context,
        parked: core.parked,
        maxInputRounds: core.maxInputRounds,
      },
      (client, options) =>
        client.getPrompt(entry.item.original, args as Record<string, string>, options) as Promise<
          Record<string, unknown>
        >,
    );
    return rewritePromptResult(backend.snapshot, clean(result));
  };

  /** The exact resource, or the one template of its backend, that serves an exposed URI. */
  const resolve = (
    principal: Principal,
    uri: string,
  ): { entry: Entry; backend: Backend; original: string } => {
    const catalog = core.merged();
    const notFound = () => ProtocolError.resourceNotFound(uri);
    const parsed = parseExposedUri(uri);
    if (!parsed) throw notFound();
    const snapshot = catalog.snapshots.get(parsed.id);
    const backend = core.backend(parsed.id);
    if (backend && !snapshot) throw unavailable(`resource ${JSON.stringify(uri)}`);
    if (!snapshot || !backend) throw notFound();
    const exact = catalog.resources.get(uri);
    if (exact) {
      if (!visible(principal, exact)) throw notFound();
      return { entry: exact, backend, original: parsed.original };
    }
    const matching = snapshot.templates.filter(
      (entry) => visible(principal, entry) && entry.template.match(parsed.original) !== null,
    );
    if (matching.length === 0) throw notFound();
    if (matching.length > 1) {
      throw ProtocolError.invalidParams(
        `Ambiguous resource URI: ${uri} matches ${matching.length} templates of one server (${matching.map((t) => t.key).join(', ')})`,
        { uri, templates: matching.map((t) => t.key), reason: 'ambiguous' },
      );
    }
    return { entry: matching[0] as TemplateEntry, backend, original: parsed.original };
  };

  const readResource: Operation = async (call) => {
    const { uri } = call.params;
    if (typeof uri !== 'string' || uri === '')
      throw ProtocolError.invalidParams('resources/read needs params.uri (a string)');
    if (uri.length > call.runtime.maxUriLength) {
      throw ProtocolError.invalidParams(`uri is longer than ${call.runtime.maxUriLength} characters`, {
        maxLength: call.runtime.maxUriLength,
      });
    }
    const { entry, backend, original } = resolve(call.auth, uri);
    if (!allowed(policy, 'canRead', call.auth, entry.item, uri)) {
      throw ProtocolError.invalidParams(`Resource ${uri} is not allowed for this caller`, {
        uri,
        reason: 'forbidden',
      });
    }
    let result: Record<string, unknown>;
    try {
      result = await forward(
        {
          backend,
          what: `resource ${JSON.stringify(uri)}`,
          context: call.context,
          parked: core.parked,
          maxInputRounds: core.maxInputRounds,
        },
        (client, options) => client.readResource(original, options) as Promise<Record<string, unknown>>,
      );
    } catch (error) {
      // The backend's "not found" (-32002 before 2026-07-28, -32602 with data.uri on it) names the exposed URI.
      if (
        ProtocolError.is(error) &&
        (error.code === -32002 ||
          (error.code === -32602 && (error.data as { uri?: unknown })?.uri === original))
      ) {
        throw ProtocolError.resourceNotFound(uri);
      }
      throw error;
    }
    const cleaned = clean(result);
    const ttl = cleaned.ttlMs;
    const hint = {
      ttlMs: typeof ttl === 'number' && Number.isFinite(ttl) && ttl > 0 ? Math.floor(ttl) : 0,
      cacheScope:
        cleaned.cacheScope === 'public' && policy?.canRead === undefined && !privateLists
          ? 'public'
          : 'private',
    };
    return { ...rewriteReadResult(backend.snapshot, cleaned, original, uri), ...hint };
  };

  const complete: Operation = async (call) => {
    const ref = call.params.ref as Record<string, unknown> | undefined;
    const argument = call.params.argument as Record<string, unknown> | undefined;
    if (typeof argument?.name !== 'string' || typeof argument.value !== 'string') {
      throw ProtocolError.invalidParams(
        'completion/complete needs argument.name and argument.value (strings)',
      );
    }
    let entry: Entry | undefined;
    let backendRef: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
    if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') {
      entry = core.merged().prompts.get(ref.name);
      if (!entry || !visible(call.auth, entry) || !allowed(policy, 'canGet', call.auth, entry.item)) {
        throw ProtocolError.invalidParams(`Unknown prompt: ${ref.name}`, { name: ref.name });
      }
      backendRef = { type: 'ref/prompt', name: entry.item.original };
    } else if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
      entry = core.merged().templates.get(ref.uri);
      if (
        !entry ||
        !visible(call.auth, entry) ||
        !allowed(policy, 'canRead', call.auth, entry.item, ref.uri)
      ) {
        throw ProtocolError.invalidParams(`Unknown resource template: ${ref.uri}`, { uri: ref.uri });
      }
      backendRef = { type: 'ref/resource', uri: entry.item.original };
    } else {
      throw ProtocolError.invalidParams(
        'completion/complete needs ref {type: "ref/prompt", name} or {type: "ref/resource", uri}',
      );
    }
    const backend = owner(entry, () => ProtocolError.invalidParams('Unknown completion reference'));
    const what = `${backendRef.type === 'ref/prompt' ? 'prompt' : 'resource template'} ${JSON.stringify(
      'name' in backendRef ? ref.name : ref.uri,
    )}`;
    const given = (call.params.context as { arguments?: unknown } | undefined)?.arguments;
    const context =
      typeof given === 'object' && given !== null && !Array.isArray(given)
        ? { arguments: given as Record<string, string> }
        : undefined;
    return backend.call(what, async (client) => {
      // A server without completions has none to give: an empty answer, as core gives for a prompt without completers.
      if (client.serverCapabilities.completions === undefined) return { completion: { values: [] } };
      const result = await client.complete(
        backendRef,
        { name: argument.name as string, value: argument.value as string },
        context,
        {
          signal: call.context.signal,
        },
      );
      return clean(result);
    });
  };

  return {
    'tools/list': list('tools', 'tools'),
    'tools/call': callTool,
    'prompts/list': list('prompts', 'prompts'),
    'prompts/get': getPrompt,
    'resources/list': list('resources', 'resources'),
    'resources/templates/list': list('templates', 'resourceTemplates'),
    'resources/read': readResource,
    'completion/complete': complete,
  };
}

/**
 * Whether `principal` may receive updates of the exposed URI `uri`: an exact catalog resource
 * that its backend's listener accepted, and the policy lets it list and subscribe.
 */
export function subscribable(
  core: ProxyCore,
  policy: AuthorizationPolicy | undefined,
  principal: Principal,
  uri: string,
): boolean {
  const entry = core.merged().resources.get(uri);
  if (!entry) return false;
  const backend = core.backend(entry.item.backend);
  return (
    backend?.accepts(entry.item.original) === true &&
    allowed(policy, 'canList', principal, entry.item) &&
    allowed(policy, 'canSubscribe', principal, entry.item)
  );
}

/** A view of `source` that passes only the events `pass` accepts, decided at each event. */
export function filteredHub(source: ChangeHub, pass: (event: ChangeEvent) => boolean): ChangeHub {
  return {
    notifyToolsChanged: () => source.notifyToolsChanged(),
    notifyPromptsChanged: () => source.notifyPromptsChanged(),
    notifyResourcesChanged: () => source.notifyResourcesChanged(),
    notifyResourceUpdated: (uri) => source.notifyResourceUpdated(uri),
    subscribe: (listener) =>
      source.subscribe((event) => {
        if (pass(event)) listener(event);
      }),
    get size() {
      return source.size;
    },
  };
}

/**
 * `subscriptions/listen` of the proxy: list changes as asked; resource subscriptions admitted for
 * exact catalog resources its backend's listener accepted and the policy allows, and both checked
 * again before each update is delivered (core's bounded per-subscriber queue does the rest).
 */
export function listenOperation(core: ProxyCore, policy: AuthorizationPolicy | undefined) {
  return (call: ListenCall) => {
    const { filter, auth } = call;
    const admitted: SubscriptionFilter = {};
    if (filter.toolsListChanged === true) admitted.toolsListChanged = true;
    if (filter.promptsListChanged === true) admitted.promptsListChanged = true;
    if (filter.resourcesListChanged === true) admitted.resourcesListChanged = true;
    const uris = [...new Set(filter.resourceSubscriptions ?? [])].filter((uri) =>
      subscribable(core, policy, auth, uri),
    );
    if (uris.length > 0) admitted.resourceSubscriptions = uris;
    const hub = filteredHub(
      core.changes,
      (event) => event.type !== 'updated' || subscribable(core, policy, auth, event.uri),
    );
    return openListen({ ...call.runtime, hub }, call.id, admitted, call.queueSize);
  };
}
