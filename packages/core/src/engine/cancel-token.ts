/**
 * The cancellation handle of one request, handed to the executor as its outside `signal` (the
 * executor duck-types AbortSignal: `aborted`, `reason`, add/removeEventListener). A real
 * AbortController per request costs more than the rest of handling a small request (EventTarget
 * machinery, and garbage), and almost no request is ever cancelled. It holds one listener: the
 * executor's, which is all that subscribes to it.
 */
export class CancelToken {
  aborted = false;
  reason: unknown = undefined;
  #listener: EventListenerOrEventListenerObject | undefined;

  addEventListener(_type: 'abort', listener: EventListenerOrEventListenerObject): void {
    this.#listener = listener;
  }

  removeEventListener(_type: 'abort', listener: EventListenerOrEventListenerObject): void {
    if (this.#listener === listener) this.#listener = undefined;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listener = this.#listener;
    this.#listener = undefined;
    if (typeof listener === 'function') listener(new Event('abort'));
    else listener?.handleEvent(new Event('abort'));
  }

  /** This token typed as the AbortSignal the executor accepts. */
  get signal(): AbortSignal {
    return this as unknown as AbortSignal;
  }
}
