/** A change the application reports. */
export type ChangeEvent =
  | { readonly type: 'tools' }
  | { readonly type: 'prompts' }
  | { readonly type: 'resources' }
  | { readonly type: 'updated'; readonly uri: string };

export type ChangeListener = (event: ChangeEvent) => void;

/**
 * The one place an application reports changes; every open subscription (2026-07-28
 * `subscriptions/listen`, initialize-based `resources/subscribe` and list-changed streams) is fed
 * from it. Delivery is synchronous fan-out into each subscriber's own bounded queue, so a slow
 * subscriber costs at most its queue and never delays the others.
 */
export interface ChangeHub {
  notifyToolsChanged(): void;
  notifyPromptsChanged(): void;
  notifyResourcesChanged(): void;
  notifyResourceUpdated(uri: string): void;
  /** Registers a listener; returns its unsubscribe function (idempotent). */
  subscribe(listener: ChangeListener): () => void;
  /** Listeners currently registered. */
  readonly size: number;
}

export function createChangeHub(): ChangeHub {
  const listeners = new Set<ChangeListener>();
  const emit = (event: ChangeEvent) => {
    for (const listener of [...listeners]) listener(event);
  };
  return {
    notifyToolsChanged: () => emit({ type: 'tools' }),
    notifyPromptsChanged: () => emit({ type: 'prompts' }),
    notifyResourcesChanged: () => emit({ type: 'resources' }),
    notifyResourceUpdated(uri) {
      if (typeof uri !== 'string') throw new TypeError('notifyResourceUpdated needs a URI string');
      emit({ type: 'updated', uri });
    },
    subscribe(listener) {
      const entry: ChangeListener = (event) => listener(event);
      listeners.add(entry);
      return () => {
        listeners.delete(entry);
      };
    },
    get size() {
      return listeners.size;
    },
  };
}
