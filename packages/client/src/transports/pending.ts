import type { AbortSignalLike, JsonRpcResponse, RequestId } from '@snodo/core';
import { requestKey } from '@snodo/core/internal';

/** The key of a request id in a Map: core's one scheme (its JSON text; "1" and 1 differ). */
export const idKey: (id: RequestId) => string = requestKey;

interface Entry {
  resolve(response: JsonRpcResponse): void;
  reject(error: unknown): void;
}

/**
 * Requests awaiting their response on a shared stream (stdio, in-process). An entry leaves the
 * table when it settles, when its signal aborts, or when the table is failed; a response for an id
 * not in the table (late, after a cancel, or unknown) is reported as not taken.
 */
export class PendingRequests {
  readonly #entries = new Map<string, Entry>();

  get size(): number {
    return this.#entries.size;
  }

  /** Registers `id`; the promise settles with its response, or rejects on abort or `failAll`. */
  wait(id: RequestId, signal: AbortSignalLike, onAbort?: () => void): Promise<JsonRpcResponse> {
    const key = idKey(id);
    return new Promise<JsonRpcResponse>((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      const abort = () => {
        if (this.#entries.get(key) !== entry) return;
        this.#entries.delete(key);
        onAbort?.();
        reject(signal.reason);
      };
      const entry: Entry = {
        resolve: (response) => {
          signal.removeEventListener('abort', abort);
          resolve(response);
        },
        reject: (error) => {
          signal.removeEventListener('abort', abort);
          reject(error);
        },
      };
      this.#entries.set(key, entry);
      signal.addEventListener('abort', abort, { once: true });
    });
  }

  /** Settles the request `response` answers; false when none is pending (drop the response). */
  settle(response: JsonRpcResponse): boolean {
    if (response.id === null) return false;
    const key = idKey(response.id);
    const entry = this.#entries.get(key);
    if (!entry) return false;
    this.#entries.delete(key);
    entry.resolve(response);
    return true;
  }

  /** Rejects one request (e.g. the server answered it with garbage we could attribute). */
  fail(id: RequestId, error: unknown): boolean {
    const key = idKey(id);
    const entry = this.#entries.get(key);
    if (!entry) return false;
    this.#entries.delete(key);
    entry.reject(error);
    return true;
  }

  failAll(error: unknown): void {
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    for (const entry of entries) entry.reject(error);
  }
}
