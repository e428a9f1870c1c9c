import {
  type JsonRpcNotification,
  META,
  ProtocolError,
  type RequestId,
  type ServerCapabilities,
  type SubscriptionFilter,
} from '@snodo/core';
import type { SendOptions } from './client.js';
import { DEFAULT_CLIENT_SUBSCRIPTION_QUEUE } from './defaults.js';
import { clientError } from './errors.js';
import { Subscription } from './subscription.js';
import { idKey } from './transports/pending.js';

/** What the subscriptions need of their client. */
export interface ListenHost {
  send(
    method: string,
    params: Record<string, unknown>,
    options?: SendOptions,
  ): Promise<Record<string, unknown>>;
  era(): 'modern' | 'legacy';
  capabilities(): ServerCapabilities;
  /** False once the client is closed or its transport failed (no unsubscribe is sent then). */
  usable(): boolean;
}

interface Entry {
  readonly subscription: Subscription;
  readonly filter: SubscriptionFilter;
}

/**
 * The client's open `listen()` subscriptions. 2026-07-28: one `subscriptions/listen` request each,
 * its notifications demultiplexed by `_meta` subscriptionId (= the listen request id). Before: the
 * session's notifications go to every subscription whose filter wants them, and
 * `resources/subscribe` is sent once per URI however many subscriptions want it (`refs` counts
 * them; `resources/unsubscribe` when the last one closes); one the server refuses is left out of
 * `ready`, as a 2026-07-28 acknowledgement leaves it out.
 */
export class Listeners {
  readonly #modern = new Map<string, Entry>();
  readonly #legacy = new Set<Entry>();
  readonly #refs = new Map<string, number>();

  constructor(private readonly host: ListenHost) {}

  listen(filter: SubscriptionFilter): Subscription {
    return this.host.era() === 'modern' ? this.#listenModern(filter) : this.#listenLegacy(filter);
  }

  #listenModern(filter: SubscriptionFilter): Subscription {
    const controller = new AbortController();
    let key: string | undefined;
    const subscription = new Subscription(DEFAULT_CLIENT_SUBSCRIPTION_QUEUE, async () => {
      controller.abort(clientError('SNODO_ERR_CLOSED', 'the subscription was closed'));
    });
    const entry: Entry = { subscription, filter };
    this.host
      .send(
        'subscriptions/listen',
        { notifications: filter },
        {
          signal: controller.signal,
          timeout: 0,
          onId: (id) => {
            key = idKey(id);
            this.#modern.set(key, entry);
          },
        },
      )
      .then(
        () => subscription.end(),
        (error: unknown) => subscription.end(controller.signal.aborted ? undefined : error),
      )
      .finally(() => {
        if (key !== undefined) this.#modern.delete(key);
      });
    return subscription;
  }

  #listenLegacy(filter: SubscriptionFilter): Subscription {
    const caps = this.host.capabilities();
    const uris = [...new Set(filter.resourceSubscriptions ?? [])];
    const subscribed: string[] = [];
    let entry: Entry | undefined;
    const subscription = new Subscription(DEFAULT_CLIENT_SUBSCRIPTION_QUEUE, async () => {
      if (entry) this.#legacy.delete(entry);
      for (const uri of subscribed) await this.#unref(uri);
    });
    (async () => {
      const honoured: SubscriptionFilter = {};
      if (filter.toolsListChanged && caps.tools?.listChanged) honoured.toolsListChanged = true;
      if (filter.promptsListChanged && caps.prompts?.listChanged) honoured.promptsListChanged = true;
      if (filter.resourcesListChanged && caps.resources?.listChanged) honoured.resourcesListChanged = true;
      if (caps.resources?.subscribe) {
        for (const uri of uris) {
          const count = this.#refs.get(uri) ?? 0;
          if (count === 0) {
            try {
              await this.host.send('resources/subscribe', { uri });
            } catch (error) {
              // Refused (not found, forbidden, not subscribable): not honoured, as a 2026-07-28
              // acknowledgement would leave it out.
              if (ProtocolError.is(error)) continue;
              throw error;
            }
          }
          this.#refs.set(uri, count + 1);
          subscribed.push(uri);
        }
        if (subscribed.length > 0) honoured.resourceSubscriptions = [...subscribed];
      }
      entry = { subscription, filter: honoured };
      if (subscription.ended) return subscription.close();
      this.#legacy.add(entry);
      subscription.acknowledge(honoured);
    })().catch((error: unknown) => {
      subscription.end(error);
      subscription.close().catch(() => {});
    });
    return subscription;
  }

  async #unref(uri: string): Promise<void> {
    const count = (this.#refs.get(uri) ?? 1) - 1;
    if (count > 0) {
      this.#refs.set(uri, count);
      return;
    }
    this.#refs.delete(uri);
    if (!this.host.usable()) return;
    await this.host.send('resources/unsubscribe', { uri }).catch(() => {});
  }

  /** Delivers a notification to the subscriptions that want it. */
  route(notification: JsonRpcNotification, params: Record<string, unknown>): void {
    const { method } = notification;
    const subscriptionId = (params._meta as Record<string, unknown> | undefined)?.[META.subscriptionId];
    if (this.host.era() === 'modern') {
      if (subscriptionId === undefined) return;
      const entry = this.#modern.get(idKey(subscriptionId as RequestId));
      if (!entry) return;
      if (method === 'notifications/subscriptions/acknowledged') {
        entry.subscription.acknowledge((params.notifications ?? {}) as SubscriptionFilter);
      } else entry.subscription.deliver(notification);
      return;
    }
    for (const entry of this.#legacy) {
      if (wanted(entry.filter, method, params)) entry.subscription.deliver(notification);
    }
  }

  /** `notifications/cancelled` naming a listen request: the server ended that subscription (stdio). */
  cancelled(id: RequestId): void {
    this.#modern.get(idKey(id))?.subscription.end();
  }

  endAll(error: Error | undefined): void {
    for (const entry of this.#modern.values()) entry.subscription.end(error);
    for (const entry of this.#legacy) entry.subscription.end(error);
    if (error === undefined) this.#legacy.clear();
  }
}

function wanted(filter: SubscriptionFilter, method: string, params: Record<string, unknown>): boolean {
  switch (method) {
    case 'notifications/tools/list_changed':
      return filter.toolsListChanged === true;
    case 'notifications/prompts/list_changed':
      return filter.promptsListChanged === true;
    case 'notifications/resources/list_changed':
      return filter.resourcesListChanged === true;
    case 'notifications/resources/updated':
      return typeof params.uri === 'string' && (filter.resourceSubscriptions ?? []).includes(params.uri);
    default:
      return false;
  }
}
