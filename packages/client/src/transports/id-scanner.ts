import { decodeJson, JsonInt, type RequestId } from '@snodo/core';

/** What a line too long to hold was, as far as its top-level members tell. */
export interface OversizedLine {
  /** Bytes of the line (newline excluded). */
  readonly bytes: number;
  /** A response (`result` or `error`), a request (`method` and `id`), a notification, or unknown (not a JSON object). */
  readonly kind: 'response' | 'request' | 'notification' | 'unknown';
  /** The top-level `id`, when present and short enough to keep. */
  readonly id: RequestId | undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
/** Bytes kept of a top-level key: enough for the members that matter (`id`, `method`, `result`, `error`). */
const MAX_KEY_BYTES = 8;
/** Bytes kept of the `id` value; a longer one is not kept, and the line names no request. */
const MAX_ID_BYTES = 256;

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/**
 * Reads the top-level members of a JSON object fed in pieces, keeping only what attributes it: the
 * names of its top-level keys (`method`, `result`, `error`) and the `id` value. One pass, constant
 * memory (at most MAX_KEY_BYTES + 1 + MAX_ID_BYTES held), whatever the line's length or nesting:
 *
 *   depth 0 ──{──► depth 1: key ──:──► value ──,──► key …   (strings and nested [] {} are skipped
 *                                                            by depth; escapes by one flag)
 *
 * It checks no more of JSON than that: a line that is not an object is `unknown`, and a malformed
 * one may still yield an id, which only ever fails a request the client is already waiting for.
 */
export class MemberScanner {
  #bytes = 0;
  #depth = 0;
  #inString = false;
  #escaped = false;
  #broken = false;
  /** At depth 1: what the next token is. */
  #expect: 'key' | 'colon' | 'value' | 'comma' = 'key';
  #key: number[] | undefined;
  #currentKey = '';
  /** The raw bytes of the `id` value, while it is read and after. */
  #id: number[] | undefined;
  #idDone = false;
  #idTooLong = false;
  #hasMethod = false;
  #hasOutcome = false;

  push(chunk: Uint8Array): void {
    this.#bytes += chunk.length;
    if (this.#broken) return;
    for (let i = 0; i < chunk.length; i++) {
      this.#byte(chunk[i] as number);
      if (this.#broken) return;
    }
  }

  #byte(byte: number): void {
    if (this.#inString) {
      if (this.#escaped) this.#escaped = false;
      else if (byte === BACKSLASH) this.#escaped = true;
      else if (byte === QUOTE) {
        this.#endString();
        return;
      }
      if (this.#depth === 1) this.#keep(byte);
      return;
    }
    if (this.#depth === 0) {
      if (byte === OPEN_BRACE) this.#depth = 1;
      else if (!isSpace(byte)) this.#broken = true;
      return;
    }
    if (byte === QUOTE) {
      this.#inString = true;
      if (this.#depth === 1) this.#startString();
      return;
    }
    if (this.#depth > 1) {
      if (byte === OPEN_BRACE || byte === OPEN_BRACKET) this.#depth++;
      else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        this.#depth--;
        if (this.#depth === 1) this.#expect = 'comma';
      }
      return;
    }
    this.#topLevel(byte);
  }

  /** A byte at depth 1 outside strings. */
  #topLevel(byte: number): void {
    if (isSpace(byte)) {
      if (this.#expect === 'value' && this.#id !== undefined && this.#id.length > 0) this.#endScalar();
      return;
    }
    switch (byte) {
      case COLON:
        if (this.#expect === 'colon') this.#expect = 'value';
        else this.#broken = true;
        return;
      case COMMA:
        this.#endScalar();
        this.#expect = 'key';
        return;
      case CLOSE_BRACE:
        this.#endScalar();
        this.#depth = 0;
        this.#expect = 'key';
        return;
      case OPEN_BRACE:
      case OPEN_BRACKET:
        if (this.#expect !== 'value') this.#broken = true;
        this.#depth++;
        return;
    }
    // A number, true, false or null at depth 1: only the id's is kept.
    if (this.#expect !== 'value') {
      if (this.#expect !== 'comma') this.#broken = true;
      return;
    }
    if (this.#currentKey === 'id') this.#keepId(byte);
  }

  #startString(): void {
    if (this.#expect === 'key') this.#key = [];
    else if (this.#expect === 'value' && this.#currentKey === 'id') this.#keepId(QUOTE);
    else if (this.#expect !== 'value') this.#broken = true;
  }

  #keep(byte: number): void {
    if (this.#expect === 'key') {
      // One byte past the bound marks the key as one that does not matter.
      if (this.#key && this.#key.length <= MAX_KEY_BYTES) this.#key.push(byte);
    } else if (this.#expect === 'value' && this.#currentKey === 'id') this.#keepId(byte);
  }

  #endString(): void {
    this.#inString = false;
    if (this.#depth !== 1) return;
    if (this.#expect === 'key') {
      const key = this.#key ?? [];
      this.#currentKey = key.length <= MAX_KEY_BYTES ? String.fromCharCode(...key) : '';
      this.#key = undefined;
      if (this.#currentKey === 'method') this.#hasMethod = true;
      if (this.#currentKey === 'result' || this.#currentKey === 'error') this.#hasOutcome = true;
      this.#expect = 'colon';
    } else if (this.#expect === 'value') {
      if (this.#currentKey === 'id') {
        this.#keepId(QUOTE);
        this.#idDone = true;
      }
      this.#expect = 'comma';
    }
  }

  #keepId(byte: number): void {
    if (this.#idDone) return;
    this.#id ??= [];
    if (this.#id.length >= MAX_ID_BYTES) this.#idTooLong = true;
    else this.#id.push(byte);
  }

  #endScalar(): void {
    if (this.#expect === 'value' && this.#currentKey === 'id' && this.#id !== undefined) this.#idDone = true;
    if (this.#expect === 'value') this.#expect = 'comma';
  }

  /** What the line was, once it has ended. */
  result(): OversizedLine {
    let id: RequestId | undefined;
    if (this.#id !== undefined && this.#idDone && !this.#idTooLong) {
      // Decoded as a message's id, so an integer beyond the safe range keeps its exact literal.
      const decoded = decodeJson(`{"id":${Buffer.from(this.#id).toString('utf8')}}`);
      const value = decoded.ok ? (decoded.value as { id?: unknown }).id : undefined;
      if (typeof value === 'string' || typeof value === 'number' || JsonInt.is(value)) {
        id = value as RequestId;
      }
    }
    let kind: OversizedLine['kind'] = 'unknown';
    if (!this.#broken && this.#key === undefined) {
      if (this.#hasMethod) kind = id === undefined ? 'notification' : 'request';
      else if (this.#hasOutcome || id !== undefined) kind = 'response';
    }
    return { bytes: this.#bytes, kind, id };
  }
}
