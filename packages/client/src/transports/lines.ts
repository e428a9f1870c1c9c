/**
 * Splits a byte stream into newline-terminated lines (`\n`; a `\r` before it is dropped), bounded:
 * a line longer than `maxLineBytes` is reported once through `onOversized` and skipped up to its
 * newline, so one bad message cannot grow memory. Invariant: `parts` holds the bytes of the
 * current, unterminated line and `size` is their sum (never more than maxLineBytes).
 */
export class LineSplitter {
  #parts: Buffer[] = [];
  #size = 0;
  #skipping = false;

  constructor(
    private readonly maxLineBytes: number,
    private readonly onLine: (line: Buffer) => void,
    private readonly onOversized: () => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline < 0 ? chunk.length : newline;
      if (!this.#skipping) {
        const piece = chunk.subarray(start, end);
        if (this.#size + piece.length > this.maxLineBytes + 1) {
          // +1 leaves room for a '\r' that is not part of the line.
          this.#parts = [];
          this.#size = 0;
          this.#skipping = true;
          this.onOversized();
        } else if (piece.length > 0) {
          this.#parts.push(piece);
          this.#size += piece.length;
        }
      }
      if (newline < 0) break;
      if (!this.#skipping) this.#emit();
      this.#skipping = false;
      start = newline + 1;
    }
  }

  #emit(): void {
    let line = this.#parts.length === 1 ? (this.#parts[0] as Buffer) : Buffer.concat(this.#parts, this.#size);
    this.#parts = [];
    this.#size = 0;
    if (line.length > 0 && line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1);
    if (line.length > this.maxLineBytes) {
      this.onOversized();
      return;
    }
    if (line.length > 0) this.onLine(line);
  }
}
