import type { OpenedSubscription } from '../dispatch/outcome.js';
import { ProtocolError } from '../errors/protocol-error.js';
import type { RequestId } from '../json/int.js';
import { type JsonRpcMessage, type JsonRpcResponse, notification, resultResponse } from '../jsonrpc/types.js';
import { matchTemplate } from '../ops/resources.js';
import { META } from '../protocol/types.js';
import type { ExtensionListenFeed } from '../router/extension.js';
import type { Runtime } from '../router/runtime.js';
import type { ChangeEvent } from './hub.js';
import { NotificationQueue } from './queue.js';

export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}

const LIST_CHANGED = {
  tools: 'notifications/tools/list_changed',
  prompts: 'notifications/prompts/list_changed',
  resources: 'notifications/resources/list_changed',
} as const;

/** The part of a requested filter this server will honour (what the acknowledgement lists). */
export function honouredFilter(runtime: Runtime, requested: SubscriptionFilter): SubscriptionFilter {
  const caps = runtime.capabilities;
  const out: SubscriptionFilter = {};
  if (requested.toolsListChanged === true && caps.tools?.listChanged) out.toolsListChanged = true;
  if (requested.promptsListChanged === true && caps.prompts?.listChanged) out.promptsListChanged = true;
  if (requested.resourcesListChanged === true && caps.resources?.listChanged) out.resourcesListChanged = true;
  if (Array.isArray(requested.resourceSubscriptions) && caps.resources?.subscribe) {
    const known = requested.resourceSubscriptions.filter(
      (uri) =>
        typeof uri === 'string' && (runtime.resources.has(uri) || matchTemplate(runtime, uri) !== undefined),
    );
    if (known.length > 0) out.resourceSubscriptions = [...new Set(known)];
  }
  return out;
}

export function parseFilter(params: Record<string, unknown>): SubscriptionFilter {
  const filter = params.notifications;
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) {
    throw ProtocolError.invalidParams('subscriptions/listen needs params.notifications (an object)');
  }
  const typed = filter as Record<string, unknown>;
  for (const key of ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const) {
    if (typed[key] !== undefined && typeof typed[key] !== 'boolean') {
      throw ProtocolError.invalidParams(`notifications.${key} must be a boolean`);
    }
  }
  const uris = typed.resourceSubscriptions;
  if (uris !== undefined && (!Array.isArray(uris) || uris.some((uri) => typeof uri !== 'string'))) {
    throw ProtocolError.invalidParams('notifications.resourceSubscriptions must be an array of URI strings');
  }
  return typed as SubscriptionFilter;
}

/**
 * An open 2026-07-28 `subscriptions/listen`: the acknowledgement first, then each matching change,
 * every message tagged with the subscription id (the listen request's id, type kept). The queue is
 * bounded; a reader that falls `queueSize` messages behind is dropped (iteration ends; the
 * transport then sends `close()`'s graceful result). List-changed notifications still unread are
 * coalesced, since one says all. Extensions' `feeds` add their honoured keys to the acknowledgement
 * and deliver their own notifications into the same queue.
 */
export function openListen(
  runtime: Runtime,
  id: RequestId,
  filter: SubscriptionFilter,
  queueSize: number,
  feeds: readonly ExtensionListenFeed[] = [],
): OpenedSubscription & { readonly overflowed: boolean } {
  const tag = { [META.subscriptionId]: id };
  const queue = new NotificationQueue(queueSize + 1);
  let acknowledged: Record<string, unknown> = { ...filter };
  for (const feed of feeds) acknowledged = { ...acknowledged, ...feed.honoured };
  queue.push(
    notification('notifications/subscriptions/acknowledged', { notifications: acknowledged, _meta: tag }),
  );
  const uris = new Set(filter.resourceSubscriptions ?? []);
  const wanted = (event: ChangeEvent): JsonRpcMessage | undefined => {
    switch (event.type) {
      case 'tools':
        return filter.toolsListChanged ? notification(LIST_CHANGED.tools, { _meta: tag }) : undefined;
      case 'prompts':
        return filter.promptsListChanged ? notification(LIST_CHANGED.prompts, { _meta: tag }) : undefined;
      case 'resources':
        return filter.resourcesListChanged ? notification(LIST_CHANGED.resources, { _meta: tag }) : undefined;
      case 'updated':
        return uris.has(event.uri)
          ? notification('notifications/resources/updated', { uri: event.uri, _meta: tag })
          : undefined;
    }
  };
  let closed = false;
  const unsubscribe =
    runtime.hub?.subscribe((event) => {
      const message = wanted(event);
      if (!message) return;
      if (
        event.type !== 'updated' &&
        queue.hasPending((m) => 'method' in m && m.method === (message as { method: string }).method)
      ) {
        return;
      }
      if (!queue.push(message)) stop();
    }) ?? undefined;
  // A feed may send (and overflow the queue) inside start(): the stops are collected as they come.
  const stops: (() => void)[] = [];
  let stopped = false;
  function stop() {
    stopped = true;
    unsubscribe?.();
    for (const stopFeed of stops.splice(0)) stopFeed();
  }
  const send = (method: string, params: Record<string, unknown>) => {
    if (!stopped && queue.push(notification(method, { ...params, _meta: tag }))) return true;
    stop();
    return false;
  };
  for (const feed of feeds) {
    if (stopped) feed.cancel();
    else stops.push(feed.start(send));
    if (stopped) stop();
  }
  if (!unsubscribe && feeds.length === 0) queue.end();
  const final = (): JsonRpcResponse =>
    resultResponse(id, {
      resultType: 'complete',
      _meta: { [META.subscriptionId]: id, [META.serverInfo]: runtime.shaping.serverInfo },
    });
  return {
    id,
    get overflowed() {
      return queue.overflowed;
    },
    dropped: queue.dropped,
    close() {
      if (!closed) {
        closed = true;
        stop();
        queue.end(true);
      }
      return final();
    },
    [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator](),
  };
}
