import type { Writable } from 'node:stream';
import { encodeJson } from '@snodo/core';
import { stdioError } from './errors.js';

/**
 * Writes whole messages to the output, one `write` call per message, so two messages never
 * interleave whatever their size. Backpressure is in the return value and `ready()`:
 *
 *   write(m) ──► output.write(json + '\n') ──false──► blocked: writeTimeout timer runs
 *                                                      'drain' ──► unblocked, waiters resume
 *                                                      timer fires ──► terminal (SNODO_ERR_WRITE_TIMEOUT)
 *
 * Writes made while blocked still go to the output's buffer (callers wait on `ready()` before
 * producing more, so that buffer is bounded by the work in flight). A failed output (an 'error'
 * event) is terminal too. After a terminal failure nothing more is written.
 */
export class Writer {
  readonly #output: NodeJS.WritableStream & Partial<Pick<Writable, 'cork' | 'uncork'>>;
  readonly #writeTimeout: number;
  readonly #onTerminal: (error: Error) => void;
  #blocked = false;
  #failed = false;
  #corked = false;
  readonly #uncork = () => {
    this.#corked = false;
    this.#output.uncork?.();
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
    this.#output = output;
    this.#writeTimeout = writeTimeout;
    this.#onTerminal = onTerminal;
    output.on('drain', this.#onDrain);
    output.on('error', this.#onError);
  }

  get blocked(): boolean {
    return this.#blocked;
  }

  /**
   * Encodes `message` (non-ASCII as \u escapes) and writes it with its newline in one call.
   * Returns false when the output is now blocked: wait on `ready()` before writing more.
   */
  write(message: unknown): boolean {
    if (this.#failed) return false;
    if (!this.#corked && this.#output.cork !== undefined) {
      // Messages written in one tick leave in one writev: far fewer syscalls, each message still whole.
      this.#corked = true;
      this.#output.cork();
      process.nextTick(this.#uncork);
    }
    const ok = this.#output.write(encodeJson(message, { ascii: true }) + '\n');
    if (!ok && !this.#blocked && !this.#failed) this.#block();
    return !this.#blocked;
  }

  /** Hands what this tick corked to the output now (the last writes before serving ends). */
  flush(): void {
    if (this.#corked) this.#uncork();
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
    this.#release();
    this.#onTerminal(error);
  }
}

const RESOLVED = Promise.resolve();
