import { type ChangeEvent, type ChangeHub, ProtocolError, type SubscriptionFilter } from '@snodo/core';
import { type ListenCall, openListen, type SubscribeCall } from '@snodo/core/internal';
import { unavailable } from '../backend.js';
import { type AuthorizationPolicy, allowed, type Principal } from '../policy.js';
import { forbidden, type ProxyCore } from './context.js';
import { resolve } from './reads.js';

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

function notSubscribable(uri: string, why: string): ProtocolError {
  return ProtocolError.invalidParams(`Cannot subscribe to ${uri}: ${why}`, { uri, reason: 'not_subscribable' });
}

/**
 * An initialize-based `resources/subscribe`: acknowledged only for what `subscribable` admits, and
 * otherwise refused with the reason (never `{}` for updates that will not come): not found, as a
 * read would be; forbidden by the policy; the backend unavailable; a template instance (no
 * demand-driven upstream listener); or a resource its backend does not report updates of.
 */
export function admitSubscribeOperation(core: ProxyCore, policy: AuthorizationPolicy | undefined) {
  return ({ uri }: SubscribeCall): void => {
    // Updates reach initialize-based sessions as an anonymous caller's would (see buildRuntime):
    // admitted the same way, so nothing is acknowledged that delivery would then withhold.
    const auth = undefined;
    const { entry, backend } = resolve({ core, policy }, auth, uri);
    if (entry.item.kind === 'template') {
      throw notSubscribable(
        uri,
        `it is an instance of the template ${entry.key}, and the proxy relays updates of exact catalog resources only`,
      );
    }
    if (!allowed(policy, 'canSubscribe', auth, entry.item)) {
      throw forbidden(`Subscribing to ${uri} is not allowed for this caller`, { uri });
    }
    if (backend.status === 'down') throw unavailable(`resource ${JSON.stringify(uri)}`);
    if (!backend.accepts(entry.item.original)) {
      throw notSubscribable(uri, 'the server behind it does not report updates of it');
    }
  };
}
