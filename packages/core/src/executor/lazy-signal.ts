/** An `abort` listener, as EventTarget takes one (spelled out: @types/node has no global name for it). */
export type AbortListener = ((event: Event) => void) | { handleEvent(event: Event): void };

/**
 * What core reads of a cancellation: `aborted`, `reason`, and `abort` listeners. An AbortSignal is
 * one; so is a LazySignal, which costs almost nothing until something needs a real AbortSignal.
 */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: AbortListener, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: AbortListener): void;
}

/**
 * A cancellation whose AbortController is made only when something asks for it. A real
 * AbortController per request costs more than the rest of handling a small one (EventTarget
 * machinery, garbage), and almost no request is ever cancelled; so a request's cancellation is
 * this, and `signal` makes the AbortSignal the first time it is read (a handler reading
 * `ctx.signal`, core passing one to an API that needs it), already aborted when this was.
 *
 * It is an AbortSignalLike itself: its first `abort` listener is held in a slot of its own, and
 * only a second one (or reading `signal`) makes the controller, whose signal then holds the rest.
 * Listeners run in the order they were added, once.
 */
export class LazySignal implements AbortSignalLike {
  aborted = false;
  reason: unknown = undefined;
  #listener: AbortListener | undefined = undefined;
  #controller: AbortController | undefined = undefined;

  /** The AbortSignal of this cancellation, made on the first read; aborted when this is. */
  get signal(): AbortSignal {
    let controller = this.#controller;
    if (controller === undefined) {
      controller = this.#controller = new AbortController();
      if (this.aborted) controller.abort(this.reason);
    }
    return controller.signal;
  }

  addEventListener(_type: 'abort', listener: AbortListener, options?: { once?: boolean }): void {
    // As on an AbortSignal: a listener added once aborted never runs.
    if (this.aborted || this.#listener === listener) return;
    if (this.#listener === undefined && this.#controller === undefined) this.#listener = listener;
    else this.signal.addEventListener('abort', listener, options);
  }

  removeEventListener(_type: 'abort', listener: AbortListener): void {
    if (this.#listener === listener) this.#listener = undefined;
    else this.#controller?.signal.removeEventListener('abort', listener);
  }

  /** Aborts with `reason` (an AbortError DOMException when undefined, as AbortController does); false if already aborted. */
  abort(reason?: unknown): boolean {
    if (this.aborted) return false;
    this.aborted = true;
    this.reason =
      reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    const listener = this.#listener;
    this.#listener = undefined;
    if (listener !== undefined) {
      const event = new Event('abort');
      if (typeof listener === 'function') listener.call(this, event);
      else listener.handleEvent(event);
    }
    this.#controller?.abort(this.reason);
    return true;
  }
}
