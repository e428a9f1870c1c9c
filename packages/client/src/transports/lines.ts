import { MemberScanner, type OversizedLine } from './id-scanner.js';

/**
 * Splits a byte stream into newline-terminated lines (`\n`; a `\r` before it is dropped), bounded:
 * a line longer than `maxLineBytes` is never held. From the byte that makes it too long, its bytes
 * go through a `MemberScanner` (constant memory) and are dropped; at its newline `onOversized`
 * gets what the scanner found (its kind and `id`), so the request it answers can fail at once.
 *
 *   bytes ──► parts (the current line, size ≤ maxLineBytes + 1) ──newline──► onLine
 *                │ would exceed
 *                ▼
 *             scanner (parts first, then every further byte) ──newline──► onOversized
 */
export class LineSplitter {
  #parts: Buffer[] = [];
  #size = 0;
  #scanner: MemberScanner | undefined;

  constructor(
    private readonly maxLineBytes: number,
    private readonly onLine: (line: Buffer) => void,
    private readonly onOversized: (line: OversizedLine) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline < 0 ? chunk.length : newline;
      const piece = chunk.subarray(start, end);
      if (this.#scanner) this.#scanner.push(piece);
      else if (this.#size + piece.length > this.maxLineBytes + 1) {
        // +1 leaves room for a '\r' that is not part of the line.
        this.#scanner = new MemberScanner();
        for (const part of this.#parts) this.#scanner.push(part);
        this.#scanner.push(piece);
        this.#parts = [];
        this.#size = 0;
      } else if (piece.length > 0) {
        this.#parts.push(piece);
        this.#size += piece.length;
      }
      if (newline < 0) break;
      this.#endLine();
      start = newline + 1;
    }
  }

  #endLine(): void {
    const scanner = this.#scanner;
    if (scanner) {
      this.#scanner = undefined;
      this.onOversized(scanner.result());
      return;
    }
    let line = this.#parts.length === 1 ? (this.#parts[0] as Buffer) : Buffer.concat(this.#parts, this.#size);
    this.#parts = [];
    this.#size = 0;
    if (line.length > 0 && line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1);
    if (line.length > this.maxLineBytes) {
      const whole = new MemberScanner();
      whole.push(line);
      this.onOversized(whole.result());
      return;
    }
    if (line.length > 0) this.onLine(line);
  }
}
