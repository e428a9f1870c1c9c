import {
  type ChangeEvent,
  type ChangeHub,
  ProtocolError,
  type SessionOwner,
  type SubscriptionFilter,
} from '@snodo/core';
import { type ListenCall, openExtensionFeeds, openListen, type SubscribeCall } from '@snodo/core/internal';
import { unavailable } from '../backend.js';
import { exposedUri } from '../names.js';
import { type AuthorizationPolicy, allowed, type Principal } from '../policy.js';
import { type Owner, ownerOf } from '../principal.js';
import { forbidden, type ProxyCore } from './context.js';
import { resolve } from './reads.js';

/**
 * Whether `principal` may receive updates of the exposed URI `uri`: an exact catalog resource the
 * policy lets it list and subscribe to, reported by its backend's shared listener (which accepted
 * it) or, `own`, by the principal's own backend session (which reports only what it accepted).
 */
export function subscribable(
  core: ProxyCore,
  policy: AuthorizationPolicy | undefined,
  principal: Principal,
  uri: string,
  own = false,
): boolean {
  const entry = core.merged().resources.get(uri);
  if (!entry) return false;
  if (!own && core.backend(entry.item.backend)?.accepts(entry.item.original) !== true) return false;
  return (
    allowed(policy, 'canList', principal, entry.item) &&
    allowed(policy, 'canSubscribe', principal, entry.item)
  );
}

/** The delivery check of one subscriber: list changes pass, updates as `subscribable` says, at each event. */
function passFor(core: ProxyCore, policy: AuthorizationPolicy | undefined, principal: Principal) {
  return (event: ChangeEvent, own: boolean) =>
    event.type !== 'updated' || subscribable(core, policy, principal, event.uri, own);
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
 * The exposed URIs of `uris` whose updates `owner` will receive: exact catalog resources the
 * policy allows, accepted by their backend's shared listener or, for a backend with a session per
 * principal, by the owner's own session (opened for it when needed; one that cannot be opened
 * leaves its URIs out). The caller keeps the owner pinned meanwhile.
 */
async function admit(
  core: ProxyCore,
  policy: AuthorizationPolicy | undefined,
  owner: Owner,
  uris: readonly string[],
): Promise<string[]> {
  const out = new Set<string>();
  const perBackend = new Map<string, string[]>();
  for (const uri of new Set(uris)) {
    const entry = core.merged().resources.get(uri);
    if (!entry) continue;
    if (!allowed(policy, 'canList', owner.auth, entry.item)) continue;
    if (!allowed(policy, 'canSubscribe', owner.auth, entry.item)) continue;
    const backend = core.backend(entry.item.backend);
    if (backend?.perPrincipal) {
      const originals = perBackend.get(backend.id) ?? [];
      originals.push(entry.item.original);
      perBackend.set(backend.id, originals);
    } else if (backend?.accepts(entry.item.original)) out.add(uri);
  }
  for (const [id, originals] of perBackend) {
    const backend = core.backend(id);
    if (!backend) continue;
    try {
      const accepted = await backend.subscribe(owner, originals, `the resources of backend "${id}"`);
      for (const original of accepted) out.add(exposedUri(id, original));
    } catch {
      // No session for this caller (the backend is down, or every session is in use): not honoured.
    }
  }
  // In the order asked, each once.
  return [...new Set(uris)].filter((uri) => out.has(uri));
}

/**
 * `subscriptions/listen` of the proxy: list changes as asked; resource subscriptions as `admit`
 * decides, and checked again (the policy) before each update is delivered; the caller receives
 * everyone's changes and its own sessions' updates (core's bounded per-subscriber queue does the
 * rest). The stream keeps the caller's backend sessions in use while it is open.
 */
export function listenOperation(core: ProxyCore, policy: AuthorizationPolicy | undefined) {
  return async (call: ListenCall) => {
    const { filter, auth } = call;
    const owner = ownerOf(auth, call.connectionId);
    const admitted: SubscriptionFilter = {};
    if (filter.toolsListChanged === true) admitted.toolsListChanged = true;
    if (filter.promptsListChanged === true) admitted.promptsListChanged = true;
    if (filter.resourcesListChanged === true) admitted.resourcesListChanged = true;
    core.pin(owner);
    try {
      const uris = await admit(core, policy, owner, filter.resourceSubscriptions ?? []);
      if (uris.length > 0) admitted.resourceSubscriptions = uris;
      const hub = core.hubFor(owner, passFor(core, policy, auth));
      // The extensions' parts of the filter (the Tasks extension's taskIds: relayed from the backends).
      const feeds = await openExtensionFeeds(
        call.runtime,
        filter as Record<string, unknown>,
        call.selection,
        auth,
      );
      return openListen({ ...call.runtime, hub }, call.id, admitted, call.queueSize, feeds);
    } finally {
      core.unpin(owner);
    }
  };
}

/** The hub of an initialize-based session's stream: its owner's changes, as `listenOperation`'s. */
export function sessionHubOperation(core: ProxyCore, policy: AuthorizationPolicy | undefined) {
  return ({ auth, connectionId }: SessionOwner): ChangeHub =>
    core.hubFor(ownerOf(auth, connectionId), passFor(core, policy, auth));
}

function notSubscribable(uri: string, why: string): ProtocolError {
  return ProtocolError.invalidParams(`Cannot subscribe to ${uri}: ${why}`, {
    uri,
    reason: 'not_subscribable',
  });
}

/**
 * An initialize-based `resources/subscribe`: acknowledged only for what `admit` admits, and
 * otherwise refused with the reason (never `{}` for updates that will not come): not found, as a
 * read would be; a template instance (no demand-driven upstream listener) or a resource outside
 * the catalog; forbidden by the policy; the backend unavailable; or a resource its backend (or
 * the caller's own session of it) does not report updates of.
 */
export function admitSubscribeOperation(core: ProxyCore, policy: AuthorizationPolicy | undefined) {
  return async ({ uri, auth, connectionId }: SubscribeCall): Promise<void> => {
    const owner = ownerOf(auth, connectionId);
    const { entry, backend } = resolve({ core, policy }, auth, uri, owner);
    if (entry.item.kind === 'template') {
      throw notSubscribable(
        uri,
        `it is an instance of the template ${entry.key}, and the proxy relays updates of exact catalog resources only`,
      );
    }
    if (!core.merged().resources.has(uri)) {
      throw notSubscribable(uri, 'it is a resource of your own backend session, outside the catalog');
    }
    if (!allowed(policy, 'canSubscribe', auth, entry.item)) {
      throw forbidden(`Subscribing to ${uri} is not allowed for this caller`, { uri });
    }
    const what = `resource ${JSON.stringify(uri)}`;
    if (backend.status === 'down') throw unavailable(what);
    const { original } = entry.item;
    let accepted: boolean;
    if (backend.perPrincipal) {
      core.pin(owner);
      try {
        // Opening the caller's session may fail: unavailable, or every session in use (-32000).
        accepted = (await backend.subscribe(owner, [original], what)).has(original);
      } finally {
        core.unpin(owner);
      }
    } else accepted = backend.accepts(original);
    if (!accepted) throw notSubscribable(uri, 'the server behind it does not report updates of it');
  };
}
