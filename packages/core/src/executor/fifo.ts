/** An item that can sit in a `Fifo`; the queue keeps its position there so removal is O(1). */
export interface FifoItem {
  /** Absolute position while queued, -1 otherwise. Owned by the queue: do not write it. */
  fifoPos: number;
}

const INITIAL_CAPACITY = 16; // a power of two, like every capacity below

/**
 * A FIFO over one power-of-two ring array, with O(1) push, shift and remove-from-anywhere.
 * `head` and `tail` are absolute positions that only grow; position p lives in slot p & mask.
 *
 *             head              tail
 *              v                 v
 *   slots: [ . A _ B C _ D . . . . . . . . . ]     . = outside the window   _ = hole
 *
 * - head <= tail and tail - head <= capacity; slots outside [head, tail) are undefined.
 * - a removed item leaves a hole (undefined) in the window: it holds no reference.
 * - while size > 0, slots[head] is never a hole: holes reaching the front are skipped at once.
 * - size counts live items exactly.
 * - when the window fills, push rebuilds the array without holes: at the same capacity if at
 *   most half of it is live, otherwise doubled. Capacity therefore stays under 4 x the peak size (or 16),
 *   and each rebuild is paid for by the capacity / 2 pushes before it.
 */
export class Fifo<T extends FifoItem> {
  #slots: Array<T | undefined> = new Array<T | undefined>(INITIAL_CAPACITY).fill(undefined);
  #mask = INITIAL_CAPACITY - 1;
  #head = 0;
  #tail = 0;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Length of the backing array (for tests of the memory bound). */
  get capacity(): number {
    return this.#slots.length;
  }

  push(item: T): void {
    if (this.#tail - this.#head === this.#slots.length) {
      const capacity = this.#slots.length;
      this.#rebuild(this.#size > capacity >>> 1 ? capacity * 2 : capacity);
    }
    this.#slots[this.#tail & this.#mask] = item;
    item.fifoPos = this.#tail;
    this.#tail++;
    this.#size++;
  }

  shift(): T | undefined {
    if (this.#size === 0) return undefined;
    const index = this.#head & this.#mask;
    const item = this.#slots[index] as T; // slots[head] is never a hole
    this.#slots[index] = undefined;
    item.fifoPos = -1;
    this.#head++;
    this.#size--;
    this.#trim();
    return item;
  }

  /** Removes `item` if it is queued here; returns whether it was. */
  remove(item: T): boolean {
    const pos = item.fifoPos;
    if (pos < this.#head || pos >= this.#tail || this.#slots[pos & this.#mask] !== item) return false;
    this.#slots[pos & this.#mask] = undefined;
    item.fifoPos = -1;
    this.#size--;
    this.#trim();
    return true;
  }

  #trim(): void {
    if (this.#size === 0) {
      // Empty: restart the window and give back an array grown by a burst.
      this.#head = this.#tail = 0;
      if (this.#slots.length > INITIAL_CAPACITY) {
        this.#slots = new Array<T | undefined>(INITIAL_CAPACITY).fill(undefined);
        this.#mask = INITIAL_CAPACITY - 1;
      }
      return;
    }
    while (this.#slots[this.#head & this.#mask] === undefined) this.#head++;
  }

  #rebuild(capacity: number): void {
    const slots = new Array<T | undefined>(capacity).fill(undefined);
    let pos = 0;
    for (let p = this.#head; p < this.#tail; p++) {
      const item = this.#slots[p & this.#mask];
      if (item === undefined) continue;
      slots[pos] = item;
      item.fifoPos = pos++;
    }
    this.#slots = slots;
    this.#mask = capacity - 1;
    this.#head = 0;
    this.#tail = pos;
  }
}
