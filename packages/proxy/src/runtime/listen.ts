import type { ChangeEvent, ChangeHub, SubscriptionFilter } from '@snodo/core';
import { type ListenCall, openListen } from '@snodo/core/internal';
import { type AuthorizationPolicy, allowed, type Principal } from '../policy.js';
import type { ProxyCore } from './context.js';

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
