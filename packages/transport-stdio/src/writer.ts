import type { Writable } from 'node:stream';
import { encodeJson } from '@snodo/core';
import { escapeNonAscii } from '@snodo/core/internal';
import { stdioError } from './errors.js';

type Output = NodeJS.WritableStream & Partial<Pick<Writable, 'writableHighWaterMark'>>;

/** Characters gathered before they are written within the same tick, when the output states no highWaterMark. */
const DEFAULT_GATHER_CHARS = 16_384;

/**
 * Writes whole messages to the output, one line each. The lines of one tick are gathered into one
 * string and handed to the output with one `write` call (many answers finish in the same tick
 * under load: one syscall for all of them instead of one per answer); a message is never split
 * across writes, so two messages never interleave whatever their size. Backpressure is in the
 * return value and `ready()`:
 *
 *   write(m) ──► pending += json + '\n' ──(end of tick, or pending >= highWaterMark)──► output.write(pending)
 *                                                                                         │ false
 *                                                      blocked: writeTimeout timer runs ◄─┘
 *                                                      'drain' ──► unblocked, waiters resume
 *                                                      timer fires ──► terminal (SNODO_ERR_WRITE_TIMEOUT)
 *
 * Writes made while blocked still go to the output's
 * buffer (callers wait on `ready()` before producing more, so that buffer is bounded by the work in
 * flight). A failed output (an 'error' event) is terminal too. After a terminal failure nothing
 * more is written.
 *
 * Non-ASCII characters go out as \u escapes: the bytes do not depend on how the client decodes its
 * input, and no raw U+2028, U+2029 or U+0085 reaches a client that splits lines on them (Python's
 * `str.splitlines`, for one). One check per write finds the common all-ASCII text and skips the
 * escaping.
 */
export class Writer {
  readonly #output: Output;
  readonly #writeTimeout: number;
  readonly #onTerminal: (error: Error) => void;
  readonly #gatherChars: number;
  /** Lines encoded this tick and not yet handed to the output. */
  #pending = '';
  #scheduled = false;
  #blocked = false;
  #failed = false;
  readonly #flushScheduled = () => {
    this.#scheduled = false;
    this.flush();
  };
  #timer: ReturnType<typeof setTimeout> | undefined;
  #ready: Promise<void> | undefined;
  #resolveReady: (() => void) | undefined;
  readonly #onDrain = () => this.#unblock();
  readonly #onError = (error: unknown) => {
    this.#fail(
      stdioError('SNODO_ERR_WRITE_FAILED', error instanceof Error ? error.message : String(error), error),
    );
  };

  constructor(output: NodeJS.WritableStream, writeTimeout: number, onTerminal: (error: Error) => void) {
    this.#output = output as Output;
    this.#writeTimeout = writeTimeout;
    this.#onTerminal = onTerminal;
    this.#gatherChars = this.#output.writableHighWaterMark || DEFAULT_GATHER_CHARS;
    output.on('drain', this.#onDrain);
    output.on('error', this.#onError);
  }

  get blocked(): boolean {
    return this.#blocked;
  }

  /**
   * Encodes `message` as one line, written with the other lines of this tick (or at once, once
   * they reach the output's highWaterMark). Returns false when the output is now blocked: wait on
   * `ready()` before writing more.
   */
  write(message: unknown): boolean {
    if (this.#failed) return false;
    this.#pending += `${encodeJson(message)}\n`;
    if (this.#pending.length >= this.#gatherChars) this.flush();
    else if (!this.#scheduled) {
      this.#scheduled = true;
      process.nextTick(this.#flushScheduled);
    }
    return !this.#blocked;
  }

  /** Hands the lines gathered so far to the output now (also the last writes before serving ends). */
  flush(): void {
    const text = this.#pending;
    if (text === '' || this.#failed) return;
    this.#pending = '';
    // Byte length equals length only when every code unit is ASCII (each other one takes 2 or 3 bytes).
    const ascii = Buffer.byteLength(text, 'utf8') === text.length;
    const ok = this.#output.write(ascii ? text : escapeNonAscii(text));
    if (!ok && !this.#blocked && !this.#failed) this.#block();
  }

  /** Settles once the output drained (or failed, so callers never wait forever). Resolved when not blocked. */
  ready(): Promise<void> {
    return this.#ready ?? RESOLVED;
  }

  /** Stops listening to the output; idempotent. Pending `ready()` promises resolve. */
  detach(): void {
    this.#output.off('drain', this.#onDrain);
    this.#output.off('error', this.#onError);
    this.#release();
  }

  #block(): void {
    this.#blocked = true;
    this.#ready = new Promise<void>((resolve) => {
      this.#resolveReady = resolve;
    });
    if (this.#writeTimeout !== Number.POSITIVE_INFINITY) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#fail(
          stdioError(
            'SNODO_ERR_WRITE_TIMEOUT',
            `a write did not drain within ${this.#writeTimeout} ms, so serving stopped and all work was aborted`,
          ),
        );
      }, this.#writeTimeout);
    }
  }

  #unblock(): void {
    if (!this.#blocked || this.#failed) return;
    this.#release();
  }

  #release(): void {
    this.#blocked = false;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const resolve = this.#resolveReady;
    this.#ready = this.#resolveReady = undefined;
    resolve?.();
  }

  #fail(error: Error): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#pending = '';
    this.#release();
    this.#onTerminal(error);
  }
}

const RESOLVED = Promise.resolve();
