import type { Client, Subscription } from '@snodo/client';
import type { SubscriptionFilter } from '@snodo/core';

/** Which list a backend said changed. */
export type ListChange = 'tools' | 'prompts' | 'resources';

const LIST_CHANGES: Readonly<Record<string, ListChange>> = {
  'notifications/tools/list_changed': 'tools',
  'notifications/prompts/list_changed': 'prompts',
  'notifications/resources/list_changed': 'resources',
};

/** What the listener reports to its backend. */
export interface ListenerEvents {
  /** The backend said one of its lists changed. */
  listChanged(kind: ListChange): void;
  /** The backend said `uri` (one it accepted) changed. */
  updated(uri: string): void;
  /** The stream ended while its client still looked connected: probe the connection. */
  ended(client: Client): void;
}

/**
 * A backend's one upstream subscription: its list changes and the updates of every exact resource
 * of its snapshot (`subscriptions/listen` on 2026-07-28; `resources/subscribe` and the session
 * stream before). What its acknowledgement honours is what frontends may subscribe to; it is
 * replaced (new one acknowledged first, then the old one closed) when the resources change.
 */
export class UpstreamListener {
  #current: { subscription: Subscription; key: string; client: Client } | undefined;
  #accepted: ReadonlySet<string> = new Set();

  constructor(private readonly events: ListenerEvents) {}

  /** Whether the backend accepted updates of `uri` (its own URI). */
  accepts(uri: string): boolean {
    return this.#accepted.has(uri);
  }

  /**
   * Listens on `client` for what its capabilities offer: list changes, and updates of `resources`
   * (the snapshot's exact URIs).
   */
  async ensure(client: Client, resources: readonly string[]): Promise<void> {
    const caps = client.serverCapabilities;
    const filter: SubscriptionFilter = {};
    if (caps.tools?.listChanged) filter.toolsListChanged = true;
    if (caps.prompts?.listChanged) filter.promptsListChanged = true;
    if (caps.resources?.listChanged) filter.resourcesListChanged = true;
    if (caps.resources?.subscribe && resources.length > 0) filter.resourceSubscriptions = [...resources];
    const key = JSON.stringify(filter);
    const current = this.#current;
    if (current && current.key === key && current.client === client && !current.subscription.ended) return;
    if (key === '{}') {
      this.close();
      return;
    }
    const entry = { subscription: client.listen(filter), key, client };
    this.#current = entry;
    void this.#pump(entry);
    try {
      const honoured = await entry.subscription.ready;
      if (this.#current === entry) this.#accepted = new Set(honoured.resourceSubscriptions ?? []);
    } catch {
      if (this.#current === entry) this.#accepted = new Set();
    }
    if (current && current !== entry) current.subscription.close().catch(() => {});
  }

  async #pump(entry: { subscription: Subscription; client: Client }): Promise<void> {
    try {
      for await (const notification of entry.subscription) {
        if (this.#current !== entry) break;
        if (notification.method === 'notifications/resources/updated') {
          const uri = (notification.params as { uri?: unknown } | undefined)?.uri;
          if (typeof uri === 'string' && this.#accepted.has(uri)) this.events.updated(uri);
        } else {
          const kind = LIST_CHANGES[notification.method];
          if (kind) this.events.listChanged(kind);
        }
      }
    } catch {
      // Ended with an error: handled below like any other end.
    }
    if (this.#current !== entry) return;
    this.#current = undefined;
    this.#accepted = new Set();
    this.events.ended(entry.client);
  }

  /** Stops listening (the next `ensure` listens again). */
  close(): void {
    const current = this.#current;
    this.#current = undefined;
    this.#accepted = new Set();
    current?.subscription.close().catch(() => {});
  }
}
