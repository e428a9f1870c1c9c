/**
 * Splits a byte stream into lines with a bound on what one line may hold.
 *
 *   chunk ──► [ copy of the current line ] ──► line(bytes)      the copy holds <= maxLineBytes bytes
 *                        │ would exceed
 *                        ▼
 *             discarding: count bytes, keep none ──► oversized(length) at its newline (or EOF)
 *
 * - A line is the bytes before '\n' (a '\r' before it stays: JSON treats it as whitespace).
 * - A line of at most maxLineBytes is delivered whole; a longer one is never held: its bytes are
 *   dropped as they arrive and only its length is reported, once it ends.
 * - A UTF-8 BOM at the very start of the stream is dropped, even when split across chunks.
 * - Blank lines (spaces, tabs, '\r' only) are skipped.
 * - A final line without '\n' is delivered at end().
 * - A chunk's bytes are never kept past the call that received them (or the handler it waits on):
 *   the input may reuse its buffer. A line split across chunks is copied into one owned buffer.
 * - Handlers may return a promise: the next line is not delivered before it settles, so lines
 *   are handled strictly in order. push() then returns a promise for the rest of its chunk.
 */
export interface LineHandlers {
  line(bytes: Uint8Array): void | Promise<void>;
  oversized(length: number): void | Promise<void>;
}

const NEWLINE = 0x0a;
const BOM = Uint8Array.of(0xef, 0xbb, 0xbf);
const EMPTY = new Uint8Array(0);

export class LineReader {
  readonly #maxLineBytes: number;
  readonly #handlers: LineHandlers;
  /** The start of a line split across chunks (a copy), and how many of its bytes are used. */
  #held: Buffer | undefined;
  #heldBytes = 0;
  /** Bytes of the current line already dropped; -1 while the line is within the limit. */
  #discarded = -1;
  /** Bytes of a BOM matched so far at the start of the stream; 3 once settled either way. */
  #bomMatched = 0;
  #stopped = false;

  constructor(maxLineBytes: number, handlers: LineHandlers) {
    this.#maxLineBytes = maxLineBytes;
    this.#handlers = handlers;
  }

  /** Delivers no more lines, even from a chunk being processed. */
  stop(): void {
    this.#stopped = true;
    this.#held = undefined;
    this.#heldBytes = 0;
  }

  push(chunk: Uint8Array): void | Promise<void> {
    if (this.#bomMatched < BOM.length) {
      chunk = this.#skipBom(chunk);
      if (chunk.length === 0) return;
    }
    return this.#scan(chunk, 0);
  }

  /** The input ended: delivers the unterminated last line, if any. */
  end(): void | Promise<void> {
    if (this.#bomMatched > 0 && this.#bomMatched < BOM.length) {
      // The stream ended inside what looked like a BOM: those bytes were content.
      this.#hold(BOM.subarray(0, this.#bomMatched));
    }
    this.#bomMatched = BOM.length;
    if (this.#discarded >= 0) return this.#finishOversized();
    if (this.#heldBytes === 0) return;
    return this.#finishLine(EMPTY);
  }

  #scan(chunk: Uint8Array, from: number): void | Promise<void> {
    let start = from;
    while (start < chunk.length && !this.#stopped) {
      const newline = chunk.indexOf(NEWLINE, start);
      const stop = newline === -1 ? chunk.length : newline;
      const pending =
        this.#discarded >= 0
          ? this.#discard(start, stop, newline !== -1)
          : this.#take(chunk, start, stop, newline !== -1);
      start = stop + 1;
      if (pending !== undefined) {
        return start < chunk.length ? pending.then(() => this.#scan(chunk, start)) : pending;
      }
    }
  }

  #take(chunk: Uint8Array, start: number, stop: number, complete: boolean): void | Promise<void> {
    const length = stop - start;
    if (this.#heldBytes + length > this.#maxLineBytes) {
      this.#discarded = this.#heldBytes;
      this.#held = undefined;
      this.#heldBytes = 0;
      return this.#discard(start, stop, complete);
    }
    if (complete) return this.#finishLine(chunk.subarray(start, stop));
    if (length > 0) this.#hold(chunk.subarray(start, stop));
  }

  /** Appends to the held copy, growing it geometrically up to maxLineBytes. */
  #hold(bytes: Uint8Array): void {
    const needed = this.#heldBytes + bytes.length;
    if (this.#held === undefined || needed > this.#held.length) {
      const capacity = Math.min(this.#maxLineBytes, Math.max(needed, 2 * (this.#held?.length ?? 0), 4096));
      const grown = Buffer.allocUnsafe(capacity);
      if (this.#held !== undefined) grown.set(this.#held.subarray(0, this.#heldBytes));
      this.#held = grown;
    }
    this.#held.set(bytes, this.#heldBytes);
    this.#heldBytes = needed;
  }

  #discard(start: number, stop: number, complete: boolean): void | Promise<void> {
    this.#discarded += stop - start;
    if (complete) return this.#finishOversized();
  }

  #finishOversized(): void | Promise<void> {
    const length = this.#discarded;
    this.#discarded = -1;
    return this.#handlers.oversized(length);
  }

  #finishLine(last: Uint8Array): void | Promise<void> {
    let line = last;
    if (this.#heldBytes > 0) {
      this.#hold(last);
      // The line takes the held buffer with it: the next split line gets a new one.
      line = (this.#held as Buffer).subarray(0, this.#heldBytes);
      this.#held = undefined;
      this.#heldBytes = 0;
    }
    if (isBlank(line)) return;
    return this.#handlers.line(line);
  }

  #skipBom(chunk: Uint8Array): Uint8Array {
    let i = 0;
    while (i < chunk.length && this.#bomMatched < BOM.length) {
      if (chunk[i] !== BOM[this.#bomMatched]) {
        // Not a BOM: the bytes matched so far (from earlier chunks) are content.
        const held = this.#bomMatched - i;
        this.#bomMatched = BOM.length;
        return held > 0 ? Buffer.concat([BOM.subarray(0, held), chunk]) : chunk;
      }
      this.#bomMatched++;
      i++;
    }
    return chunk.subarray(i);
  }
}

function isBlank(line: Uint8Array): boolean {
  for (let i = 0; i < line.length; i++) {
    const byte = line[i];
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return false;
  }
  return true;
}
