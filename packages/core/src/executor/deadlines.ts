/** An item with a deadline; the lists keep their links here so removal is O(1). */
export interface DeadlineItem {
  /** performance.now() at which the item expires. Owned by the list: do not write it. */
  deadlineAt: number;
  deadlinePrev: DeadlineItem | undefined;
  deadlineNext: DeadlineItem | undefined;
  deadlineList: DeadlineList | undefined;
}

/**
 * Deadlines with one timer per distinct timeout instead of one per item. Items of one timeout are
 * added in time order, so their list is sorted by deadline and only its head needs a timer:
 *
 *   timeout 60000:  head ─► A(t0+60s) ─► B(t0+2ms+60s) ─► C(…) ◄─ tail     timer armed for ≥ A
 *   timeout 50:     head ─► D(t1+50ms) ◄─ tail                           timer armed for ≥ D
 *
 * - within a list, deadlineAt never decreases from head to tail (performance.now() is monotonic).
 * - a list with items always has a timer, due no later than its head's deadline; an item expires
 *   when a timer armed for its deadline (or a later one) fires, never before: as with a timer per
 *   item, the host's timer decides when the delay has passed.
 * - removing an item never re-arms: the timer may then fire for an item already gone, finds the new
 *   head not yet due, and re-arms for it. With steady traffic that is one timer firing per timeout.
 * - an empty list keeps its timer, unref'd where the host has unref (Node), so that a burst of
 *   short requests does not set and clear a timer each; it is ref'd again when an item arrives, so a
 *   pending deadline still keeps the process alive as a per-item timer did.
 */
export class DeadlineList {
  #head: DeadlineItem | undefined;
  #tail: DeadlineItem | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  readonly #timeout: number;
  readonly #expire: (item: DeadlineItem) => void;
  readonly #onIdle: () => void;

  /** `onIdle`: called when the timer fires with the list empty; the list holds nothing then. */
  constructor(timeout: number, expire: (item: DeadlineItem) => void, onIdle: () => void) {
    this.#timeout = timeout;
    this.#expire = expire;
    this.#onIdle = onIdle;
  }

  add(item: DeadlineItem): void {
    item.deadlineAt = performance.now() + this.#timeout;
    item.deadlineList = this;
    item.deadlineNext = undefined;
    item.deadlinePrev = this.#tail;
    const wasEmpty = this.#tail === undefined;
    if (this.#tail === undefined) this.#head = item;
    else this.#tail.deadlineNext = item;
    this.#tail = item;
    if (this.#timer === undefined || this.#timerAt > item.deadlineAt) this.#arm(item.deadlineAt);
    else if (wasEmpty) refTimer(this.#timer, true);
  }

  remove(item: DeadlineItem): void {
    if (item.deadlineList !== this) return;
    const { deadlinePrev: prev, deadlineNext: next } = item;
    if (prev === undefined) this.#head = next;
    else prev.deadlineNext = next;
    if (next === undefined) this.#tail = prev;
    else next.deadlinePrev = prev;
    item.deadlinePrev = item.deadlineNext = item.deadlineList = undefined;
    if (this.#head === undefined && this.#timer !== undefined) refTimer(this.#timer, false);
  }

  #arm(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(onTimer, Math.max(0, Math.ceil(at - performance.now())), this);
  }

  /** Expires every item that is due, then re-arms for the next one (or leaves no timer). */
  fire(): void {
    // The host fired the timer: as for a timer per item, its delay has passed, whatever the clock
    // reads (a host's timer clock and performance.now() may drift apart, and tests fake timers alone).
    const now = Math.max(performance.now(), this.#timerAt);
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    for (let item = this.#head; item !== undefined && item.deadlineAt <= now; item = this.#head) {
      this.remove(item);
      this.#expire(item);
    }
    if (this.#head === undefined) this.#onIdle();
    else if (this.#timer === undefined) this.#arm(this.#head.deadlineAt);
  }
}

function onTimer(list: DeadlineList): void {
  list.fire();
}

/** `ref()` / `unref()` where the host's timers have them (Node, Bun, Deno); nothing elsewhere. */
function refTimer(timer: ReturnType<typeof setTimeout>, on: boolean): void {
  const handle = timer as { ref?: () => void; unref?: () => void };
  if (on) handle.ref?.();
  else handle.unref?.();
}
