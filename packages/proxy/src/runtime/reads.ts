import { ProtocolError, UI_EXTENSION } from '@snodo/core';
import { declaresExtension, type Operation } from '@snodo/core/internal';
import { type Backend, unavailable } from '../backend.js';
import type { Entry, TemplateEntry } from '../catalog/snapshot.js';
import { withoutUi } from '../catalog/ui.js';
import { rewriteReadResult } from '../links.js';
import { parseExposedUri } from '../names.js';
import { allowed, type Principal } from '../policy.js';
import type { Owner } from '../principal.js';
import type { BackendSession } from '../sessions.js';
import {
  type CatalogScope,
  callerOf,
  clean,
  forbidden,
  forwarding,
  owner,
  type Scope,
  visible,
} from './context.js';
import { type Forwarded, forward } from './forward.js';

/** A backend of that id exists but has no catalog yet (it never connected): its URIs are unavailable, not unknown. */
function notConnectedYet(scope: CatalogScope, id: string): boolean {
  return scope.core.backend(id) !== undefined && !scope.core.merged().snapshots.has(id);
}

/**
 * The exact resource, or the one template of its backend, that serves an exposed URI; or, for a
 * backend with a session per principal, a resource the caller's own session handed out (a link
 * in one of its results). Two of the backend's templates matching is an ambiguity error: the
 * proxy does not choose for the backend.
 */
export function resolve(
  scope: CatalogScope,
  principal: Principal,
  uri: string,
  caller?: Owner,
): { entry: Entry; backend: Backend; original: string; session?: BackendSession } {
  const catalog = scope.core.merged();
  const notFound = () => ProtocolError.resourceNotFound(uri);
  const parsed = parseExposedUri(uri);
  if (!parsed) throw notFound();
  if (notConnectedYet(scope, parsed.id)) throw unavailable(`resource ${JSON.stringify(uri)}`);
  const snapshot = catalog.snapshots.get(parsed.id);
  const backend = scope.core.backend(parsed.id);
  if (!snapshot || !backend) throw notFound();
  const exact = catalog.resources.get(uri);
  if (exact) {
    if (!visible(scope, principal, exact)) throw notFound();
    return { entry: exact, backend, original: parsed.original };
  }
  const matching = snapshot.templates.filter(
    (entry) => visible(scope, principal, entry) && entry.template.match(parsed.original) !== null,
  );
  if (matching.length === 0) {
    const handed =
      caller && backend.perPrincipal ? handedOut(backend, caller, parsed.original, uri) : undefined;
    if (!handed || !visible(scope, principal, handed.entry)) throw notFound();
    return { ...handed, backend, original: parsed.original };
  }
  if (matching.length > 1) {
    throw ProtocolError.invalidParams(
      `Ambiguous resource URI: ${uri} matches ${matching.length} templates of one server (${matching.map((t) => t.key).join(', ')})`,
      { uri, templates: matching.map((t) => t.key), reason: 'ambiguous' },
    );
  }
  return { entry: matching[0] as TemplateEntry, backend, original: parsed.original };
}

/**
 * A resource outside the catalog that one of the caller's own sessions of `backend` handed out, as
 * a catalog entry, with that session (which alone holds it).
 */
function handedOut(
  backend: Backend,
  caller: Owner,
  original: string,
  uri: string,
): { entry: Entry; session: BackendSession } | undefined {
  const found = backend.sessions.handedOut(caller.key, original);
  if (!found) return undefined;
  const { block, session } = found;
  const name = typeof block.name === 'string' ? block.name : original;
  return {
    entry: {
      key: uri,
      item: Object.freeze({ kind: 'resource', backend: backend.id, name, uri, original, definition: block }),
      listing: { ...block, uri },
    },
    session,
  };
}

/** `resources/read` of `mcp-proxy://<id>/<original>`: the backend reads `<original>`. */
export function readResourceOperation(scope: Scope): Operation {
  const { policy } = scope;
  const privateReads = policy?.canRead !== undefined || policy?.canList !== undefined;
  return async (call) => {
    const { uri } = call.params;
    if (typeof uri !== 'string' || uri === '')
      throw ProtocolError.invalidParams('resources/read needs params.uri (a string)');
    if (uri.length > call.runtime.maxUriLength) {
      throw ProtocolError.invalidParams(`uri is longer than ${call.runtime.maxUriLength} characters`, {
        maxLength: call.runtime.maxUriLength,
      });
    }
    const caller = callerOf(call);
    const { entry, backend, original, session } = resolve(scope, call.auth, uri, caller);
    if (!allowed(policy, 'canRead', call.auth, entry.item, uri)) {
      throw forbidden(`Resource ${uri} is not allowed for this caller`, { uri });
    }
    let forwarded: Forwarded;
    try {
      forwarded = await forward(
        forwarding(scope, backend, `resource ${JSON.stringify(uri)}`, call, caller, session),
        (client, options) => client.readResource(original, options) as Promise<Record<string, unknown>>,
      );
    } catch (error) {
      // The backend's "not found" (-32002 before 2026-07-28, -32602 with data.uri on it) names the exposed URI.
      const data = ProtocolError.is(error) ? (error.data as { uri?: unknown } | undefined) : undefined;
      if (
        ProtocolError.is(error) &&
        (error.code === -32002 || (error.code === -32602 && data?.uri === original))
      ) {
        throw ProtocolError.resourceNotFound(uri);
      }
      throw error;
    }
    const cleaned = clean(forwarded.result);
    const ttl = cleaned.ttlMs;
    const hint = {
      ttlMs: typeof ttl === 'number' && Number.isFinite(ttl) && ttl > 0 ? Math.floor(ttl) : 0,
      cacheScope: cleaned.cacheScope === 'public' && !privateReads ? 'public' : 'private',
    };
    const linker = { snapshot: backend.snapshot, route: forwarded.route };
    const read = rewriteReadResult(linker, cleaned, original, uri);
    // A UI page keeps its `_meta.ui` (CSP, domain, …) as the backend wrote it, for frontends that declared the extension.
    const ui = declaresExtension(call.selection.clientCapabilities, UI_EXTENSION);
    return { ...(ui ? read : withoutUi(read)), ...hint };
  };
}

/** `completion/complete` routed to the backend owning the prompt or template, with its original name. */
export function completeOperation(scope: Scope): Operation {
  const { core, policy } = scope;
  return async (call) => {
    const ref = call.params.ref as Record<string, unknown> | undefined;
    const argument = call.params.argument as Record<string, unknown> | undefined;
    if (typeof argument?.name !== 'string' || typeof argument.value !== 'string') {
      throw ProtocolError.invalidParams(
        'completion/complete needs argument.name and argument.value (strings)',
      );
    }
    let entry: Entry | undefined;
    let backendRef: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
    let what: string;
    if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') {
      entry = core.merged().prompts.get(ref.name);
      if (!entry && core.pendingOwner(ref.name)) throw unavailable(`prompt ${JSON.stringify(ref.name)}`);
      if (!entry || !visible(scope, call.auth, entry) || !allowed(policy, 'canGet', call.auth, entry.item)) {
        throw ProtocolError.invalidParams(`Unknown prompt: ${ref.name}`, { name: ref.name });
      }
      backendRef = { type: 'ref/prompt', name: entry.item.original };
      what = `prompt ${JSON.stringify(ref.name)}`;
    } else if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
      entry = core.merged().templates.get(ref.uri);
      const parsed = entry ? undefined : parseExposedUri(ref.uri);
      if (parsed && notConnectedYet(scope, parsed.id)) {
        throw unavailable(`resource template ${JSON.stringify(ref.uri)}`);
      }
      if (
        !entry ||
        !visible(scope, call.auth, entry) ||
        !allowed(policy, 'canRead', call.auth, entry.item, ref.uri)
      ) {
        throw ProtocolError.invalidParams(`Unknown resource template: ${ref.uri}`, { uri: ref.uri });
      }
      backendRef = { type: 'ref/resource', uri: entry.item.original };
      what = `resource template ${JSON.stringify(ref.uri)}`;
    } else {
      throw ProtocolError.invalidParams(
        'completion/complete needs ref {type: "ref/prompt", name} or {type: "ref/resource", uri}',
      );
    }
    const backend = owner(scope, entry, () => ProtocolError.invalidParams('Unknown completion reference'));
    const given = (call.params.context as { arguments?: unknown } | undefined)?.arguments;
    const context =
      typeof given === 'object' && given !== null && !Array.isArray(given)
        ? { arguments: given as Record<string, string> }
        : undefined;
    const value = { name: argument.name, value: argument.value as string };
    return backend.call(what, callerOf(call), async (client) => {
      // A server without completions has none to give: an empty answer, as core gives for a prompt without completers.
      if (client.serverCapabilities.completions === undefined) return { completion: { values: [] } };
      return clean(await client.complete(backendRef, value, context, { signal: call.context.signal }));
    });
  };
}
