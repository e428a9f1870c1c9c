import { randomUUID } from 'node:crypto';
import { decodeMessage, ERROR_TABLE, ErrorCode, type Runtime } from '@snodo/core';
import { Connection, pipeSession, trackSession } from '@snodo/core/internal';
import { stdioError } from './errors.js';
import { StreamSource, stdinSource } from './input.js';
import { LineReader } from './line-reader.js';
import type { ServeSettings } from './options.js';
import { Writer } from './writer.js';

/**
 * One stdio connection: bytes in, core's connection engine, lines out. What it adds over the
 * engine: line framing (one leading BOM dropped, `maxLineBytes` refused with -32600 before
 * decoding), pausing the input while the engine or the output holds it back, and the output's
 * write deadline.
 *
 *   input ──► LineReader ──► line ──► decode ──► Connection.receive ──► Writer ──► output
 *                │                                   (a promise: stop reading until it settles)
 *                └─ oversized ──► -32600
 *
 * Lines are not read while the output is blocked, nor while a request (or a batch item) waits for
 * room in a full executor: a stdio peer is one process on a pipe, so it gets backpressure, never
 * -32000 for a full queue. Memory stays within one line (maxLineBytes) plus what the executor holds.
 */
export class StdioConnection {
  readonly #settings: ServeSettings;
  readonly #writer: Writer;
  readonly #reader: LineReader;
  readonly #engine: Connection;
  #failure: Error | undefined;
  #fail: (error: Error) => void = () => {};
  #stopReading: () => void = () => {};

  constructor(runtime: Runtime, settings: ServeSettings) {
    this.#settings = settings;
    this.#writer = new Writer(settings.output, settings.writeTimeout, (error) => this.#terminate(error));
    const writer = this.#writer;
    this.#engine = new Connection(runtime, {
      output: {
        write: (message) => writer.write(message),
        ready: () => writer.ready(),
        get blocked() {
          return writer.blocked;
        },
      },
      executor: settings.executor,
      requestTimeout: settings.requestTimeout,
      maxBatchItems: settings.maxBatchItems,
      id: randomUUID(),
      networkTransport: 'pipe',
      onError: logInternal,
    });
    this.#reader = new LineReader(settings.maxLineBytes, {
      line: (bytes) => this.#onLine(bytes),
      oversized: (length) => this.#onOversized(length),
    });
  }

  /** Resolves after EOF (or the stop signal) once every admitted request is answered and written. */
  async run(): Promise<void> {
    const failed = new Promise<never>((_, reject) => {
      this.#fail = reject;
    });
    failed.catch(() => {}); // observed below; never unhandled
    if (this.#failure) this.#fail(this.#failure);
    const endSession = trackSession(() => pipeSession(this.#engine.session?.protocolVersion));
    try {
      await Promise.race([this.#read(), failed]);
      await Promise.race([this.#engine.close('The client closed its input'), failed]);
      this.#writer.flush();
      await Promise.race([this.#writer.ready(), failed]);
      if (this.#failure) throw this.#failure;
    } finally {
      this.#stopReading();
      this.#engine.destroy();
      this.#writer.detach();
      endSession();
    }
  }

  // ---- reading --------------------------------------------------------------------------

  #read(): Promise<void> {
    const { signal } = this.#settings;
    const source =
      this.#settings.input === undefined ? stdinSource() : new StreamSource(this.#settings.input);
    return new Promise<void>((resolve) => {
      // Chunks that arrive while a line handler is pending (a source should be paused then, but
      // one that ignores pause must not reorder lines). Copied: a source may reuse its buffer.
      const waiting: Uint8Array[] = [];
      let busy = false;
      let ended = false;
      let done = false;
      const finish = () => {
        if (done) return;
        this.#stopReading();
        resolve();
      };
      // Called when no line handler is pending.
      const next = (): void => {
        const chunk = waiting.shift();
        if (chunk !== undefined) run(chunk);
        else if (ended) run(undefined);
        else source.resume();
      };
      /** Feeds the reader; false when a handler is pending (the source then stays paused). */
      const run = (chunk: Uint8Array | undefined): boolean => {
        const atEnd = chunk === undefined;
        const pending = atEnd ? this.#reader.end() : this.#reader.push(chunk);
        if (pending === undefined) {
          if (atEnd) finish();
          else if (waiting.length > 0 || ended) next();
          return true;
        }
        busy = true;
        const resume = () => {
          busy = false;
          if (done) return;
          if (atEnd) finish();
          else next();
        };
        pending.then(resume, (error: unknown) => {
          logInternal(error);
          resume();
        });
        return false;
      };
      const onAbort = () => finish();
      this.#stopReading = () => {
        this.#stopReading = () => {};
        done = true;
        waiting.length = 0;
        this.#reader.stop();
        source.stop();
        signal?.removeEventListener('abort', onAbort);
      };
      if (signal?.aborted) {
        onAbort();
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      source.start({
        chunk: (bytes) => {
          if (done) return false;
          if (!busy) return run(bytes);
          waiting.push(Buffer.from(bytes));
          return false;
        },
        end: () => {
          if (ended) return;
          ended = true;
          if (!busy) next();
        },
        error: (error) => {
          this.#terminate(
            stdioError(
              'SNODO_ERR_READ_FAILED',
              error instanceof Error ? error.message : String(error),
              error,
            ),
          );
        },
      });
    });
  }

  #onLine(bytes: Uint8Array): void | Promise<void> {
    if (this.#failure) return;
    // The line reader dropped the stream's leading BOM; a BOM on a later line is content.
    return this.#engine.receive(decodeMessage(lineText(bytes), undefined, LATER_LINE));
  }

  #onOversized(length: number): void | Promise<void> {
    if (this.#failure) return;
    if (this.#writer.blocked) return this.#writer.ready().then(() => this.#onOversized(length));
    const { maxLineBytes } = this.#settings;
    this.#writer.write({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: ErrorCode.InvalidRequest,
        message: `${ERROR_TABLE[ErrorCode.InvalidRequest].message}: line of ${length} bytes exceeds maxLineBytes (${maxLineBytes})`,
        data: { maxLineBytes },
      },
    });
  }

  /** Terminal failure: stop reading, abort every task and subscription, reject `run`. */
  #terminate(error: Error): void {
    if (this.#failure) return;
    this.#failure = error;
    this.#stopReading();
    this.#engine.destroy(error);
    this.#fail(error);
  }
}

const LATER_LINE = Object.freeze({ leadingBom: false });

/**
 * A line as text, decoded by node's UTF-8 decoder straight from the input's buffer (no TextDecoder
 * call and no copy per line); the bytes themselves when the text holds U+FFFD, which is what that
 * decoder puts in place of an invalid sequence: core's strict decoder then tells a real U+FFFD
 * from invalid UTF-8 (-32700).
 */
function lineText(bytes: Uint8Array): string | Uint8Array {
  const text = (
    Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  ).toString('utf8');
  return text.includes('\uFFFD') ? bytes : text;
}

/** The library's only log output, on stderr: stdout carries protocol messages alone. */
function logInternal(error: unknown): void {
  console.error('[@snodo/transport-stdio] unexpected error while serving a request:', error);
}
