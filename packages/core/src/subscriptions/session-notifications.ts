import type { Session } from '../dispatch/session.js';
import type { JsonRpcMessage } from '../jsonrpc/types.js';
import { notification } from '../jsonrpc/types.js';
import { DEFAULT_SUBSCRIPTION_QUEUE } from '../limits/defaults.js';
import type { Runtime, SessionOwner } from '../router/runtime.js';
import { NotificationQueue } from './queue.js';

export interface SessionNotifications extends AsyncIterable<JsonRpcMessage> {
  /** Stops delivery; idempotent. */
  close(): void;
  readonly overflowed: boolean;
  /** Aborted when the queue overflows (the reader was dropped). */
  readonly dropped: AbortSignal;
}

/**
 * The server-to-client notifications of one initialize-based session (the stdio stream, or the
 * HTTP GET stream): list-changed for what the server declares `listChanged` for, and
 * `notifications/resources/updated` for the URIs the session subscribed to (read from
 * `getSession()` at each event, so `resources/subscribe`/`unsubscribe` take effect at once).
 * Bounded like every subscription: a reader `queueSize` behind is dropped. `owner` says whose
 * stream it is, for a runtime whose `sessionHub` depends on it.
 */
export function openSessionNotifications(
  runtime: Runtime,
  getSession: () => Session | undefined,
  queueSize = DEFAULT_SUBSCRIPTION_QUEUE,
  owner: SessionOwner = { auth: undefined, connectionId: undefined },
): SessionNotifications {
  const queue = new NotificationQueue(queueSize);
  const caps = runtime.capabilities;
  const hub = runtime.sessionHub?.(owner) ?? runtime.hub;
  const unsubscribe = hub?.subscribe((event) => {
    const session = getSession();
    if (!session) return;
    let message: JsonRpcMessage | undefined;
    if (event.type === 'tools' && caps.tools?.listChanged)
      message = notification('notifications/tools/list_changed');
    else if (event.type === 'prompts' && caps.prompts?.listChanged)
      message = notification('notifications/prompts/list_changed');
    else if (event.type === 'resources' && caps.resources?.listChanged) {
      message = notification('notifications/resources/list_changed');
    } else if (event.type === 'updated' && session.subscriptions.includes(event.uri)) {
      message = notification('notifications/resources/updated', { uri: event.uri });
    }
    if (message && !queue.push(message)) unsubscribe?.();
  });
  if (!unsubscribe) queue.end();
  return {
    get overflowed() {
      return queue.overflowed;
    },
    dropped: queue.dropped,
    close() {
      unsubscribe?.();
      queue.end(true);
    },
    [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator](),
  };
}
